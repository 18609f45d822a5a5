import { getHeapStatistics } from 'node:v8';
import type { MessagePort } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { SessionQueue, type ProtocolExecutor } from './pglite-session-queue.js';
import type { DbPriority } from './priority.js';

/** A request from the main thread (pglite-thread.ts). */
export type ThreadRequest =
  | { op: 'open'; id: number; setup?: string }
  | { op: 'enqueue'; id: number; handler: number; message: Uint8Array; priority: DbPriority }
  | { op: 'disconnect'; id: number; handler: number }
  | { op: 'stats'; id: number; reset: boolean }
  | { op: 'queueLength'; id: number }
  | { op: 'memory'; id: number }
  | { op: 'exec'; id: number; sql: string }
  | { op: 'query'; id: number; sql: string; params?: unknown[] }
  | { op: 'dump'; id: number }
  | { op: 'close'; id: number };

/**
 * To the main thread: the answer to request `id` (with the pieces of a statement's answer, in
 * order), or pieces for a connection outside its own requests (`handler`: a notification it
 * LISTENs for, or the first megabytes of a long answer).
 */
export type ThreadReply =
  | { id: number; data?: Uint8Array[]; result?: unknown; error?: { message: string; code?: string; stack?: string } }
  | { handler: number; data: Uint8Array[] };

/** PGlite's WebAssembly memory (it grows to its peak use and never shrinks) and the thread's V8 heap. */
export interface ThreadMemory {
  wasmBytes: number;
  heapBytes: number;
}

/** Pieces of a long answer go to the main thread once they pass this size (an export streams). */
const FLUSH_BYTES = 1 << 20;

/**
 * The database thread's side: the session queue runs here, next to PGlite, so when a turn ends
 * the next waiting connection's statement starts at once, without a trip to the main thread.
 */
export function serveDatabaseThread(port: MessagePort, opening: Promise<PGlite>): void {
  let db: PGlite | undefined;
  let queue: SessionQueue | undefined;
  const reply = (message: ThreadReply) => port.postMessage(message);
  const failure = (err: unknown) => {
    const e = err as { message?: string; code?: string; stack?: string };
    return { message: e?.message ?? String(err), code: e?.code, stack: e?.stack };
  };

  async function handle(req: ThreadRequest): Promise<void> {
    if (req.op === 'enqueue') return enqueue(req);
    try {
      reply({ id: req.id, result: await run(req) });
    } catch (err) {
      reply({ id: req.id, error: failure(err) });
    }
  }

  async function run(req: Exclude<ThreadRequest, { op: 'enqueue' }>): Promise<unknown> {
    if (req.op === 'open') {
      db = await opening;
      if (req.setup) await db.exec(req.setup);
      queue = new SessionQueue(executor(db));
      return undefined;
    }
    if (!db || !queue) throw new Error('the embedded database is not open');
    switch (req.op) {
      case 'disconnect':
        return queue.disconnect(req.handler);
      case 'stats':
        return queue.holdStats({ reset: req.reset });
      case 'queueLength':
        return queue.getQueueLength();
      case 'memory': {
        const heap = getHeapStatistics();
        return { wasmBytes: db.Module.HEAPU8.byteLength, heapBytes: heap.total_heap_size } satisfies ThreadMemory;
      }
      case 'exec':
        return void (await db.exec(req.sql));
      case 'query':
        return (await db.query(req.sql, req.params)).rows;
      case 'dump':
        return new Uint8Array(await (await db.dumpDataDir('gzip')).arrayBuffer());
      case 'close':
        await db.close();
        db = undefined;
        queue = undefined;
        return undefined;
    }
  }

  /** One batch of a connection's protocol messages: its answer goes back with the reply. */
  function enqueue(req: Extract<ThreadRequest, { op: 'enqueue' }>): void {
    if (!queue) {
      reply({ id: req.id, error: { message: 'the embedded database is not open' } });
      return;
    }
    let pieces: Uint8Array[] | null = [];
    let size = 0;
    // Pieces are copies: PGlite hands out views of its WebAssembly memory, which it reuses for its
    // next answer (and a view would carry all of that memory to the other thread). While the
    // request is open they travel with its reply; after it (a notification this connection listens
    // for) on their own. Uint8Array's slice, not Buffer's, which makes another view.
    const onData = (view: Uint8Array) => {
      const data = Uint8Array.prototype.slice.call(view);
      if (pieces === null) {
        reply({ handler: req.handler, data: [data] });
        return;
      }
      pieces.push(data);
      size += data.length;
      if (size >= FLUSH_BYTES) {
        reply({ handler: req.handler, data: pieces });
        pieces = [];
        size = 0;
      }
    };
    queue.enqueue(req.handler, req.message, onData, req.priority).then(
      (bytes) => {
        const data = pieces ?? [];
        pieces = null;
        port.postMessage(
          { id: req.id, data, result: bytes } satisfies ThreadReply,
          data.map((p) => p.buffer as ArrayBuffer),
        );
      },
      (err) => {
        const data = pieces ?? [];
        pieces = null;
        reply({ id: req.id, data, error: failure(err) });
      },
    );
  }

  port.on('message', (req: ThreadRequest) => void handle(req));
}

/** PGlite as the session queue runs it: one batch at a time, exclusive of its own query API. */
function executor(db: PGlite): ProtocolExecutor {
  return {
    protocol: (message, onData) => db.runExclusive(() => db.execProtocolRawStream(message, { onRawData: onData })),
    isInTransaction: () => db.isInTransaction(),
    exec: (sql) => db.exec(sql),
  };
}
