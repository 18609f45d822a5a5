import { listTenants, withTenant } from '../../src/db/pool.js';
import { findNotEnqueued, markEnqueued } from '../../src/db/sql/insert-events.js';
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
    // Each pass removes the rows it scanned (enqueued and marked, or dropped as stale), so this ends.
    for (;;) {
      const { events, scanned } = await withTenant(deps.db, tenantId, (tx) => findNotEnqueued(tx, graceMs, BATCH));
      const ids = events.map((e) => e.id);
      if (ids.length > 0) {
        await enqueueTriage(deps.queues, tenantId, ids);
        await withTenant(deps.db, tenantId, (tx) => markEnqueued(tx, ids));
        requeued += ids.length;
      }
      if (scanned < BATCH) break;
    }
  }
  // Then events that reached the queue once but whose job the queue no longer has: Redis can lose
  // its jobs (restart without persistence, flush, failover); BullMQ's PostgreSQL backend keeps them
  // in the database itself, where a scan racing its own transactions would only double work.
  const lost = deps.queues.backend.kind === 'redis' ? await requeueLostWork(deps, graceMs) : { requeued: 0 };
  return { requeued, lost: lost.requeued };
}
