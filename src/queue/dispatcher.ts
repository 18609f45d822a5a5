import { withTenant, type Db } from '../db/pool.js';
import { searchProgress } from '../db/sql/event-progress.js';
import { markEnqueuedStatement, runInOneTransaction, setTenantStatement } from '../db/sql/insert-events.js';
import type { Logger } from '../logger.js';
import { addJobs, jobOptions } from './enqueue.js';
import type { Queues } from './queues.js';
import { TRIAGE_BATCH, triageJobs } from './triage-jobs.js';

const MAX_JOBS_PER_ADD = TRIAGE_BATCH;
/**
 * ioredis queues commands while Redis is down (BullMQ needs that for its workers), so an add can
 * wait for as long as the outage lasts; past this the events are left to the requeue task, and a
 * late add is harmless (triage claims only events still `received`).
 */
const ENQUEUE_TIMEOUT_MS = 5_000;
/**
 * Marking events enqueued is bookkeeping for the requeue task only, so it is batched: at most this
 * late (well inside the requeue task's grace period) or once this many are waiting. Under load that
 * keeps it from costing a write per request on the single PGlite thread.
 */
const MARK_DELAY_MS = 250;
const MARK_BATCH = 5_000;
/**
 * How long submitted ids wait to be coalesced into one addBulk. On BullMQ's PostgreSQL backend an
 * add runs on the same single PGlite thread that stores events and costs tens of milliseconds
 * whatever its size (measured: 272 adds for 1,000 single-event requests took 58% of PGlite's
 * time), so a wider window there, invisible next to the pipeline's debounces, buys ingest.
 */
const COALESCE_MS = { redis: 2, postgres: 100 } as const;
/**
 * While the batch handed on last is not yet searchable, new ids wait for it (checked every
 * HOLD_POLL_MS), at most MAX_HOLD_MS and at most one job's worth: one batch in flight, as Nagle's
 * algorithm keeps one segment. An idle pipeline sees no difference; a busy one gets fewer, larger
 * jobs, and every job costs the same queue round trips, transactions and statements whatever its
 * size (bench:cost, 1,000 events from one client on PGlite: 1.9 events per triage job without
 * it). MAX_HOLD_MS plus MARK_DELAY_MS stays well inside the requeue task's grace period (5 s).
 */
const HOLD_POLL_MS = 100;
const MAX_HOLD_MS = 2_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the queue did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

type ByTenant = Map<string, string[]>;

function add(map: ByTenant, tenantId: string, ids: string[]): void {
  const list = map.get(tenantId);
  if (list) list.push(...ids);
  else map.set(tenantId, [...ids]);
}

/**
 * Hands committed events to the triage queue off the request path: ids from many requests are
 * coalesced into one triage job per tenant and flush (src/queue/triage-jobs.ts), then marked
 * enqueued (their events_unqueued rows, added when they were stored, are deleted). If the queue is
 * down the ids stay unmarked and the requeue task (maintenance task
 * `requeue`) enqueues them later — nothing is lost. An event in two jobs (the requeue task
 * re-adding what the dispatcher added but never marked) is triaged once, by whichever job claims
 * it first.
 */
export class Dispatcher {
  readonly #db: Db;
  readonly #queues: Queues;
  readonly #log: Logger;
  #pending: ByTenant = new Map();
  #size = 0;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The ids handed on last, per tenant: later ids are held while some of these are not yet searchable. */
  #inFlight: ByTenant = new Map();
  /** performance.now() of the oldest id waiting in #pending. */
  #oldest = 0;
  #unmarked: ByTenant = new Map();
  #unmarkedSize = 0;
  #marking: Promise<void> | undefined;
  #markTimer: NodeJS.Timeout | undefined;
  readonly #coalesceMs: number;

  constructor(deps: { db: Db; queues: Queues; log: Logger }) {
    this.#db = deps.db;
    this.#queues = deps.queues;
    this.#coalesceMs = COALESCE_MS[deps.queues.backend.kind];
    this.#log = deps.log.child({ component: 'dispatcher' });
  }

  submit(tenantId: string, eventIds: string[]): void {
    if (eventIds.length === 0) return;
    if (this.#size === 0) this.#oldest = performance.now();
    add(this.#pending, tenantId, eventIds);
    this.#size += eventIds.length;
    this.#timer ??= setTimeout(() => void this.#tick(), this.#coalesceMs);
  }

  /** The coalescing window ended: hand the ids on, unless the last batch is still on its way (then look again). */
  async #tick(): Promise<void> {
    this.#timer = undefined;
    if (this.#size === 0) return;
    const full = this.#size >= MAX_JOBS_PER_ADD || performance.now() - this.#oldest >= MAX_HOLD_MS;
    if (!full && (await this.#lastBatchWaiting())) {
      if (this.#size === 0) return; // flushed meanwhile (flush(), close())
      this.#timer ??= setTimeout(() => void this.#tick(), HOLD_POLL_MS);
      return;
    }
    await this.flushQueue();
  }

  /** Whether some events of the batch handed on last are not yet searchable (a read per tenant; an error counts as no). */
  async #lastBatchWaiting(): Promise<boolean> {
    for (const [tenantId, ids] of this.#inFlight) {
      const waiting = await withTenant(this.#db, tenantId, (tx) => searchProgress(tx, ids))
        .then((p) => p.waiting)
        .catch(() => 0);
      if (waiting > 0) return true;
      this.#inFlight.delete(tenantId);
    }
    return false;
  }

  /** Resolves when everything submitted before the call is queued and marked (or left to the requeue task). */
  async flush(): Promise<void> {
    await this.flushQueue();
    await this.#mark();
  }

  /** Resolves when everything submitted before the call has been handed to the queue (marking may lag). */
  async flushQueue(): Promise<void> {
    while (this.#running || this.#size > 0) {
      if (this.#running) {
        await this.#running;
        continue;
      }
      this.#running = this.#drain().finally(() => (this.#running = undefined));
    }
  }

  async #drain(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batches = this.#pending;
    this.#pending = new Map();
    let left = this.#size;
    this.#size = 0;
    this.#inFlight = new Map();
    for (const [tenantId, ids] of batches) {
      for (let i = 0; i < ids.length; i += MAX_JOBS_PER_ADD) {
        const slice = ids.slice(i, i + MAX_JOBS_PER_ADD);
        try {
          await withTimeout(enqueueTriage(this.#queues, tenantId, slice), ENQUEUE_TIMEOUT_MS);
        } catch (err) {
          // The queue is down: one warning, and the rest of this round is left to the requeue task
          // rather than waiting out a timeout per slice.
          this.#log.warn({ err, events: left }, 'enqueue failed; the requeue task will enqueue these events');
          return;
        }
        left -= slice.length;
        add(this.#inFlight, tenantId, slice);
        add(this.#unmarked, tenantId, slice);
        this.#unmarkedSize += slice.length;
      }
    }
    if (this.#unmarkedSize >= MARK_BATCH) await this.#mark();
    else this.#markTimer ??= setTimeout(() => void this.#mark(), MARK_DELAY_MS);
  }

  /** Marks every event queued so far, all tenants in one transaction. */
  async #mark(): Promise<void> {
    while (this.#marking) await this.#marking;
    if (this.#markTimer) clearTimeout(this.#markTimer);
    this.#markTimer = undefined;
    if (this.#unmarkedSize === 0) return;
    const batches = this.#unmarked;
    this.#unmarked = new Map();
    this.#unmarkedSize = 0;
    const statements = [...batches].flatMap(([tenantId, ids]) => [setTenantStatement(tenantId), markEnqueuedStatement(ids)]);
    this.#marking = runInOneTransaction(this.#db, statements)
      .then(() => undefined)
      .catch((err: unknown) => this.#log.warn({ err }, 'marking events enqueued failed; the requeue task will re-add them (same job ids)'))
      .finally(() => (this.#marking = undefined));
    await this.#marking;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

/** One triage job per TRIAGE_BATCH events (job cost on the PostgreSQL backend is per job, not per event). */
export async function enqueueTriage(queues: Queues, tenantId: string, eventIds: string[]): Promise<void> {
  await addJobs(
    queues,
    'triage',
    triageJobs(tenantId, eventIds).map((j) => ({ data: { ...j.data }, opts: jobOptions(j.jobId) })),
  );
}
