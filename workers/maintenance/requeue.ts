import { listTenants, withTenant } from '../../src/db/pool.js';
import { findNotEnqueued, markEnqueued, markProcessedEnqueued } from '../../src/db/sql/insert-events.js';
import type { Deps } from '../../src/deps.js';
import { enqueueTriage } from '../../src/queue/dispatcher.js';
import { requeueLostWork } from './lost-jobs.js';

/** Events younger than this may still be on their way through the dispatcher. */
const GRACE_MS = 5_000;
const BATCH = 1_000;

/**
 * Re-enqueues stored events that never reached the queue (queue down at ingest, crash between
 * commit and enqueue). A batch re-added while its job still exists gets the same job id and is not
 * queued twice; otherwise triage claims only `received` events, so an event whose job already ran
 * (the dispatcher's add succeeded, its mark did not) is triaged once all the same.
 */
export async function requeueStoredEvents(deps: Deps, graceMs = GRACE_MS): Promise<{ requeued: number; lost: number }> {
  let requeued = 0;
  for (const tenantId of await listTenants(deps.db)) {
    // an event the pipeline has moved past `received` was claimed by a job holding it: only the mark is missing
    await withTenant(deps.db, tenantId, (tx) => markProcessedEnqueued(tx));
    for (;;) {
      const todo = await withTenant(deps.db, tenantId, (tx) => findNotEnqueued(tx, graceMs, BATCH));
      if (todo.length === 0) break;
      const ids = todo.map((e) => e.id);
      await enqueueTriage(deps.queues, tenantId, ids);
      await withTenant(deps.db, tenantId, (tx) => markEnqueued(tx, ids));
      requeued += ids.length;
      if (todo.length < BATCH) break;
    }
  }
  // Then events that reached the queue once but whose job the queue no longer has: Redis can lose
  // its jobs (restart without persistence, flush, failover); BullMQ's PostgreSQL backend keeps them
  // in the database itself, where a scan racing its own transactions would only double work.
  const lost = deps.queues.backend.kind === 'redis' ? await requeueLostWork(deps, graceMs) : { requeued: 0 };
  return { requeued, lost: lost.requeued };
}
