import { withTenant, type Db } from '../db/pool.js';
import { markEnqueued } from '../db/sql/insert-events.js';
import type { Logger } from '../logger.js';
import { jobOptions } from '../queue/enqueue.js';
import type { Queues } from '../queue/queues.js';

const MAX_JOBS_PER_ADD = 500;
/**
 * ioredis queues commands while Redis is down (BullMQ needs that for its workers), so an add can
 * wait for as long as the outage lasts; past this the events are left to the reconciler, and a
 * late add is harmless (the job id is the event id).
 */
const ENQUEUE_TIMEOUT_MS = 5_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the queue did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The triage job id of an event is the event id itself, so an event can never be queued twice. */
export function triageJobId(eventId: string): string {
  return eventId;
}

/**
 * Hands committed events to the triage queue off the request path: ids from many requests are
 * coalesced into addBulk calls, then marked enqueued. If the queue is down the ids stay unmarked
 * and the reconciler (maintenance task `reconcile`) enqueues them later — nothing is lost, and the
 * job id (= event id) keeps a double enqueue from creating a second job.
 */
export class Dispatcher {
  readonly #db: Db;
  readonly #queues: Queues;
  readonly #log: Logger;
  #pending = new Map<string, string[]>();
  #size = 0;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: { db: Db; queues: Queues; log: Logger }) {
    this.#db = deps.db;
    this.#queues = deps.queues;
    this.#log = deps.log.child({ component: 'dispatcher' });
  }

  submit(tenantId: string, eventIds: string[]): void {
    if (eventIds.length === 0) return;
    const list = this.#pending.get(tenantId) ?? [];
    list.push(...eventIds);
    this.#pending.set(tenantId, list);
    this.#size += eventIds.length;
    this.#timer ??= setTimeout(() => void this.flush(), 2);
  }

  /** Resolves when everything submitted before the call has been handed to the queue (or left to the reconciler). */
  async flush(): Promise<void> {
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
    this.#size = 0;
    let left = [...batches].reduce((n, [, ids]) => n + ids.length, 0);
    for (const [tenantId, ids] of batches) {
      for (let i = 0; i < ids.length; i += MAX_JOBS_PER_ADD) {
        const slice = ids.slice(i, i + MAX_JOBS_PER_ADD);
        try {
          await withTimeout(enqueueTriage(this.#queues, tenantId, slice), ENQUEUE_TIMEOUT_MS);
          await withTenant(this.#db, tenantId, (tx) => markEnqueued(tx, slice));
          left -= slice.length;
        } catch (err) {
          // The queue (or database) is down: one warning, and the rest of this round is left to
          // the reconciler rather than waiting out a timeout per slice.
          this.#log.warn({ err, events: left }, 'enqueue failed; the reconciler will enqueue these events');
          return;
        }
      }
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

export async function enqueueTriage(queues: Queues, tenantId: string, eventIds: string[]): Promise<void> {
  await queues.get('triage').addBulk(eventIds.map((eventId) => ({ name: 'triage', data: { tenantId, eventId }, opts: jobOptions(triageJobId(eventId)) })));
}
