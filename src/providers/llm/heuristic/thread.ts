/**
 * The heuristic extractor in a worker thread: answers `{ id, input }` with `{ id, result }` or
 * `{ id, error }`, one request at a time. compromise, jieba and the tokenizer load here once, so
 * the process's main thread (the queues, the API) neither pays their CPU nor holds them.
 */
import { parentPort } from 'node:worker_threads';
import type { ExtractInput } from '../types.js';
import { makeLemmatizer } from './analyse.js';
import { ChineseTagger } from './chinese.js';
import { extractFromMessages } from './extract.js';

if (parentPort === null) throw new Error('thread.ts must run as a worker thread');
const port = parentPort;
const tools = { chinese: new ChineseTagger(), lemma: makeLemmatizer() };

port.on('message', ({ id, input }: { id: number; input: ExtractInput }) => {
  try {
    port.postMessage({ id, result: extractFromMessages(input, tools) });
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
