import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { ConnectionQueue, SessionHoldStats } from './pglite-session-queue.js';
import type { ThreadMemory, ThreadReply, ThreadRequest } from './pglite-thread-serve.js';
import { currentPriority } from './priority.js';

/** A request as the caller writes it: the id is added here. */
type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Call {
  onData?: (data: Uint8Array) => void;
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
}

const THREAD_SCRIPT = new URL('./pglite-thread.mjs', import.meta.url);

/**
 * The thread's JavaScript is small and short-lived (a reply per statement; PGlite's memory is
 * WebAssembly's, outside V8's heap): V8's default young generation made its heap 47–49 MB for
 * 12–13 MB in use, 8 MB makes it 23–24 MB and the process's RSS ~30 MB smaller.
 */
const YOUNG_GENERATION_MB = 8;

/**
 * PGlite in a thread of its own (pglite-thread.mjs, pglite-thread-serve.ts), with the session
 * queue next to it. PGlite runs each statement synchronously on the thread that owns it: on the
 * main thread every statement (a checkpoint: 150–300 ms) also stopped the HTTP server, timers and the
 * pipeline's JavaScript, and the process's SQL and JavaScript shared one core. Here the main
 * thread posts each batch of protocol messages, with the priority of the code that sent it
 * (priority.ts), and gets the answer back in one message; a trip costs ~60 µs each way on 2 cores.
 */
export class PGliteThread {
  readonly #worker: Worker;
  readonly #calls = new Map<number, Call>();
  /** Where pieces for a connection go outside its own requests (the writer of its latest batch). */
  readonly #handlers = new Map<number, (data: Uint8Array) => void>();
  #nextId = 1;
  #exited: Error | undefined;

  /** The session queue, as connections use it (session-connection.ts). */
  readonly queue: ConnectionQueue = {
    enqueue: (handler, message, onData) => {
      this.#handlers.set(handler, onData);
      return this.#call({ op: 'enqueue', handler, message, priority: currentPriority() }, onData) as Promise<number>;
    },
    disconnect: async (handler) => {
      this.#handlers.delete(handler);
      if (!this.#exited) await this.#call({ op: 'disconnect', handler });
    },
  };

  private constructor(worker: Worker, onExit: (err: Error) => void) {
    this.#worker = worker;
    worker.on('message', (reply: ThreadReply) => this.#receive(reply));
    worker.on('error', (err) => this.#fail(err, onExit));
    worker.on('exit', (code) => this.#fail(new Error(`the embedded database's thread exited (code ${code})`), onExit));
  }

  /**
   * Starts the thread and opens the database in it; `setup` runs once it is open. `onExit`: the
   * thread died (not after close()); every statement in flight and after fails.
   */
  static async open(opts: { dataDir: string; postgresqlconf: string[]; setup?: string; onExit?: (err: Error) => void }): Promise<PGliteThread> {
    const { dataDir, postgresqlconf } = opts;
    const worker = new Worker(THREAD_SCRIPT, { workerData: { dataDir, postgresqlconf }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const thread = new PGliteThread(worker, opts.onExit ?? (() => undefined));
    try {
      await thread.#call({ op: 'open', setup: opts.setup });
    } catch (err) {
      await thread.close();
      throw err;
    }
    return thread;
  }

  async exec(sql: string): Promise<void> {
    await this.#call({ op: 'exec', sql });
  }

  /** A statement on the session outside the session queue (tools that load data as the owner). */
  async query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
    return { rows: (await this.#call({ op: 'query', sql, params })) as T[] };
  }

  /** How long connections held the session, and waited for it (pglite-session-queue.ts). */
  stats(opts: { reset?: boolean } = {}): Promise<SessionHoldStats> {
    return this.#call({ op: 'stats', reset: opts.reset ?? false }) as Promise<SessionHoldStats>;
  }

  /** How busy the thread has been (PGlite's statements run synchronously, so they count as busy): as `performance.eventLoopUtilization`. */
  utilization(since?: EventLoopUtilization): EventLoopUtilization {
    return this.#worker.performance.eventLoopUtilization(since);
  }

  /** What the thread holds: PGlite's WebAssembly memory and the thread's V8 heap (benchmarks). */
  memory(): Promise<ThreadMemory> {
    return this.#call({ op: 'memory' }) as Promise<ThreadMemory>;
  }

  /** The data directory as a gzip'd tarball (PGlite's dumpDataDir), for a template. */
  dumpDataDir(): Promise<Uint8Array> {
    return this.#call({ op: 'dump' }) as Promise<Uint8Array>;
  }

  /** Batches waiting for the session (tests). */
  queueLength(): Promise<number> {
    return this.#call({ op: 'queueLength' }) as Promise<number>;
  }

  async close(): Promise<void> {
    if (!this.#exited) {
      await this.#call({ op: 'close' }).catch(() => undefined);
      this.#exited = new Error('the embedded database is closed');
    }
    await this.#worker.terminate();
  }

  #call(request: Request, onData?: (data: Uint8Array) => void): Promise<unknown> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { onData, resolve, reject });
      this.#worker.postMessage({ id, ...request });
    });
  }

  #receive(reply: ThreadReply): void {
    if ('handler' in reply) {
      const write = this.#handlers.get(reply.handler);
      if (write) for (const piece of reply.data) write(piece);
      return;
    }
    const call = this.#calls.get(reply.id);
    if (!call) return;
    this.#calls.delete(reply.id);
    for (const piece of reply.data ?? []) call.onData?.(piece);
    if (reply.error) call.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code, threadStack: reply.error.stack }));
    else call.resolve(reply.result);
  }

  #fail(err: Error, onExit: (err: Error) => void): void {
    if (this.#exited) return;
    this.#exited = err;
    for (const call of this.#calls.values()) call.reject(err);
    this.#calls.clear();
    onExit(err);
  }
}
