/**
 * memloom's TypeScript client: `event()` returns at once and never throws into the agent; events
 * are buffered, batched, sent to POST /v1/events with retries, spilled to the events directory when
 * the API cannot take them, and flushed when the process exits. The rest of the API (recall,
 * memories, forget, feedback, working memory, stats, graph, export/import) is awaited and typed
 * (apps/client/api.ts); those calls throw a MemloomError with the API's code.
 *
 *   const memloom = createMemloom({ defaults: { user_id: 'u-42', agent_id: 'claude-code' } });
 *   memloom.event({ content: 'We chose PostgreSQL for the store.', type: 'decision' });
 *   const { results } = await memloom.recall({ query: 'which database?' });   // u-42's memory
 *   await memloom.close();
 */
import path from 'node:path';
import { MemloomError } from '../../src/errors.js';
import { MAX_BATCH } from '../../src/events/constants.js';
import { createApi, type MemloomApi } from './api.js';
import { Sender, type ClientStats } from './buffer.js';
import { registerForExit } from './exit-hooks.js';
import { SpillFile } from './spill.js';
import { toWireEvent, type EventDefaults, type MemloomEvent } from './wire.js';

export { MemloomError } from '../../src/errors.js';
export type { ClientStats } from './buffer.js';
export type { EventDefaults, MemloomEvent } from './wire.js';
export type { MemloomApi } from './api.js';
export type * from './types.js';

export interface MemloomClientOptions {
  /** API base URL. Default `http://127.0.0.1:8787`. */
  url?: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /**
   * The client's scope. Events get each of these fields they do not set (event(), sendEvents());
   * recall, memories.list, workingMemory and exportStream get `user_id` and `dataset` when they
   * name none, and forget({session_id}) is `user_id`'s session.
   */
  defaults?: EventDefaults;
  /** Events per request (1–1000). Default 100. */
  batchSize?: number;
  /** Bytes of JSON per request before a batch is cut early. Default 4 MiB (the API's body limit is 32 MiB). */
  maxBatchBytes?: number;
  /** Longest wait before a partial batch is sent. Default 200 ms. */
  flushIntervalMs?: number;
  /** Events held in memory while the API is slow or down; beyond this the oldest are spilled. Default 10,000. */
  maxBufferEvents?: number;
  /** Retries per batch (network errors, 429, 5xx) before it is spilled. Default 5. */
  maxRetries?: number;
  /** Full-jitter exponential backoff. Default base 200 ms, cap 10 s. */
  backoff?: { baseMs?: number; capMs?: number };
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** The events directory the watcher reads. Default `EVENTS_DIR` from the environment, else `./events`. */
  eventsDir?: string;
  /**
   * The tenant your API key belongs to. The watcher files events under `<eventsDir>/<tenant>/…` to
   * that tenant and everything else to `default`, so with API keys set this to keep spilled events
   * in the right tenant. Default: none (tenant `default`).
   */
  tenant?: string;
  /** Where undeliverable events go. Default `<eventsDir>[/<tenant>]/_spill`; keep it inside the events directory. */
  spillDir?: string;
  fetch?: typeof fetch;
  /** Every dropped, rejected or spilled event is reported here. Default: process.emitWarning. Never awaited; a throw is ignored. */
  onError?: (err: MemloomError) => void;
  /** Flush on `beforeExit`, spill synchronously on `exit` and on SIGINT/SIGTERM. Default true. */
  flushOnExit?: boolean;
}

export interface MemloomClient extends MemloomApi {
  /** Buffers one event and returns its idempotency id at once (the caller's `id`, or a new UUID). Never throws. */
  event(e: MemloomEvent): string;
  /** Resolves when every event given so far is acknowledged by the API, rejected (reported) or spilled to disk. */
  flush(): Promise<void>;
  /** flush(), then stop: later events are reported through onError and dropped. */
  close(): Promise<void>;
  /** The client's own counters (buffered, accepted, spilled…); the server's are `serverStats()`. */
  stats(): ClientStats;
}

export function createMemloom(opts: MemloomClientOptions = {}): MemloomClient {
  const report = safeReporter(opts.onError);
  const eventsDir = opts.eventsDir ?? process.env.EVENTS_DIR ?? './events';
  const spill = new SpillFile(opts.spillDir ?? path.join(eventsDir, ...(opts.tenant ? [opts.tenant] : []), '_spill'));
  const defaults = { ...opts.defaults };
  const url = (opts.url ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const sender = new Sender({
    batchSize: clamp(opts.batchSize ?? 100, 1, MAX_BATCH),
    maxBatchBytes: Math.max(1024, opts.maxBatchBytes ?? 4 * 1024 * 1024),
    flushIntervalMs: Math.max(0, opts.flushIntervalMs ?? 200),
    // Never below one batch: the buffer must be able to hold the batch it is filling.
    maxBufferEvents: Math.max(clamp(opts.batchSize ?? 100, 1, MAX_BATCH), opts.maxBufferEvents ?? 10_000),
    spill,
    report,
    transport: {
      url,
      apiKey: opts.apiKey,
      fetch: fetchFn,
      timeoutMs,
      maxRetries: Math.max(0, opts.maxRetries ?? 5),
      backoffBaseMs: Math.max(0, opts.backoff?.baseMs ?? 200),
      backoffCapMs: Math.max(0, opts.backoff?.capMs ?? 10_000),
      maxRetryAfterMs: 60_000,
    },
  });
  let closed = false;
  const unregister = opts.flushOnExit === false ? () => undefined : registerForExit(sender);

  return {
    ...createApi({ url, apiKey: opts.apiKey, fetch: fetchFn, timeoutMs, defaults }),
    event(e) {
      const wire = toWireEvent(e, defaults); // never throws
      const id = wire.ok ? wire.event.id : wire.id;
      try {
        if (!wire.ok) {
          sender.countInvalid();
          report(wire.error);
        } else if (closed) {
          sender.countDropped(1);
          report(new MemloomError('CLIENT_CLOSED', 'event() after close(): the event was dropped.', { kind: 'input', details: { eventId: id } }));
        } else sender.push(wire.event);
      } catch (err) {
        // Not expected (push only touches memory and timers), but the agent must never see a throw.
        report(new MemloomError('CLIENT_BUG', 'event() failed unexpectedly.', { kind: 'internal', cause: err, details: { eventId: id } }));
      }
      return id;
    },
    flush: () => sender.flush(),
    async close() {
      closed = true;
      try {
        await sender.flush();
      } finally {
        unregister();
      }
    },
    stats: () => sender.stats(),
  };
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(n)));
}

/** onError runs inside the client's own machinery: a throwing handler must not break delivery nor reach the agent. */
function safeReporter(onError: ((err: MemloomError) => void) | undefined): (err: MemloomError) => void {
  return (err) => {
    try {
      if (onError) onError(err);
      else process.emitWarning(err.message, { type: 'MemloomWarning', code: err.code });
    } catch (handlerErr) {
      process.emitWarning(`memloom onError handler threw: ${handlerErr instanceof Error ? handlerErr.message : String(handlerErr)}`, {
        type: 'MemloomWarning',
      });
    }
  };
}
