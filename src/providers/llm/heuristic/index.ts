/**
 * The offline LLM provider: rule-based extraction with compromise (English) and jieba (Chinese).
 * No network, no weights, no cost; deterministic for a given input.
 *
 * With `thread: true` (what createLlm uses) extraction runs in one worker thread (thread.ts),
 * started on the first call: it costs several milliseconds of CPU per message, which on the main
 * thread would hold the API and the queues.
 * A thread that dies fails the calls it held with a retryable error; the next call starts another.
 */
import { Worker } from 'node:worker_threads';
import { MemloomError } from '../../../errors.js';
import type { ExtractInput, ExtractionResult, LlmProvider } from '../types.js';

export { heuristicTriage } from './triage.js';

type Tools = { extract: (input: ExtractInput) => ExtractionResult };

interface Pending {
  resolve: (r: ExtractionResult) => void;
  reject: (err: Error) => void;
}

/** One thread's lifetime, so a late event of a dead thread never touches its successor. */
interface Session {
  worker: Worker;
  pending: Map<number, Pending>;
  closing: boolean;
  failure: Error | undefined;
}

export class HeuristicLlm implements LlmProvider {
  readonly model = 'heuristic';
  readonly paid = false;
  private readonly thread: boolean;
  private tools: Promise<Tools> | undefined;
  private session: Session | undefined;
  private nextId = 0;

  constructor(opts: { thread?: boolean } = {}) {
    this.thread = opts.thread ?? false;
  }

  async extract(input: ExtractInput): Promise<{ result: ExtractionResult }> {
    if (this.thread) return { result: await this.inThread(input) };
    return { result: (await this.loadTools()).extract(input) };
  }

  async ready(): Promise<void> {}

  /** The thread takes about a second to load its modules; starting it early hides that. */
  warm(): void {
    if (this.thread) this.start();
  }

  async close(): Promise<void> {
    const session = this.session;
    if (session === undefined) return;
    session.closing = true;
    await session.worker.terminate();
  }

  /** The extractor's modules load on first use: a process that never extracts never loads them. */
  private loadTools(): Promise<Tools> {
    this.tools ??= (async () => {
      const [{ makeLemmatizer }, { ChineseTagger }, { extractFromMessages }] = await Promise.all([
        import('./analyse.js'),
        import('./chinese.js'),
        import('./extract.js'),
      ]);
      const tools = { chinese: new ChineseTagger(), lemma: makeLemmatizer() };
      return { extract: (input: ExtractInput) => extractFromMessages(input, tools) };
    })();
    return this.tools;
  }

  private inThread(input: ExtractInput): Promise<ExtractionResult> {
    const session = this.start();
    const id = ++this.nextId;
    return new Promise<ExtractionResult>((resolve, reject) => {
      session.pending.set(id, { resolve, reject });
      session.worker.ref();
      session.worker.postMessage({ id, input });
    });
  }

  private start(): Session {
    if (this.session !== undefined) return this.session;
    const worker = new Worker(new URL('./thread-boot.mjs', import.meta.url));
    const session: Session = { worker, pending: new Map(), closing: false, failure: undefined };
    worker.on('message', (msg: { id: number; result?: ExtractionResult; error?: string }) => {
      const waiter = session.pending.get(msg.id);
      if (waiter === undefined) return;
      session.pending.delete(msg.id);
      if (session.pending.size === 0) worker.unref();
      // Deterministic for this input: a retry would fail the same way.
      if (msg.error !== undefined)
        waiter.reject(new MemloomError('EXTRACTOR_FAILED', `heuristic extraction failed: ${msg.error}`, { kind: 'internal', retryable: false }));
      else waiter.resolve(msg.result as ExtractionResult);
    });
    worker.on('error', (err) => {
      session.failure ??= err;
    });
    worker.on('exit', (exitCode) => {
      if (this.session === session) this.session = undefined;
      const err = session.closing
        ? new MemloomError('EXTRACTOR_CLOSED', 'the heuristic extractor was closed', { kind: 'unavailable', retryable: true })
        : new MemloomError('EXTRACTOR_CRASHED', 'the heuristic extraction thread exited unexpectedly', {
            kind: 'internal',
            retryable: true,
            details: { exitCode, pending: session.pending.size, reason: session.failure?.message ?? null },
            cause: session.failure,
          });
      for (const w of session.pending.values()) w.reject(err);
      session.pending.clear();
    });
    worker.unref();
    this.session = session;
    return session;
  }
}
