import { FINISHED_STATUSES, sqlStatuses, type UnfinishedStatus } from '../../queue/flow.js';
import type { Queryable } from '../pool.js';

export interface UnfinishedEvent {
  id: string;
  status: UnfinishedStatus;
  extract_key: string | null;
  received_at: Date;
}

/**
 * Stored events some stage has not finished, that were handed to the queue (no events_unqueued
 * row: the not-enqueued ones are findNotEnqueued's) and are older than `olderThanMs`, oldest first. An event
 * under a live extraction claim is left out: the pass holding it is running or its claim expires
 * (then it is listed). Takes no lock; uses events_pending_idx.
 */
export async function findUnfinished(tx: Queryable, olderThanMs: number, claimLeaseMs: number, limit: number): Promise<UnfinishedEvent[]> {
  const { rows } = await tx.query<UnfinishedEvent>(
    `SELECT id, status, extract_key, received_at FROM events
     WHERE status NOT IN (${sqlStatuses(FINISHED_STATUSES)}) AND NOT EXISTS (SELECT 1 FROM events_unqueued u WHERE u.event_id = events.id)
       AND received_at < now() - ($1::int * interval '1 millisecond')
       AND (status <> 'extracting' OR processed_at < now() - ($2::int * interval '1 millisecond'))
     ORDER BY seq LIMIT $3`,
    [olderThanMs, claimLeaseMs, limit],
  );
  return rows;
}

/**
 * Of `rows` (read earlier by findUnfinished), those still in the state they were read in. A job
 * can carry an event through every remaining stage while the caller reads the queues, and is then
 * in none of them: only an event that did not move while the queues were read and that no live
 * job holds is lost.
 */
export async function stillUnfinished(tx: Queryable, rows: UnfinishedEvent[]): Promise<UnfinishedEvent[]> {
  if (rows.length === 0) return [];
  const { rows: now } = await tx.query<{ id: string; status: string; extract_key: string | null }>(
    `SELECT id, status, extract_key FROM events WHERE id = ANY($1::uuid[])`,
    [rows.map((r) => r.id)],
  );
  const current = new Map(now.map((r) => [r.id, r]));
  return rows.filter((r) => {
    const c = current.get(r.id);
    return c !== undefined && c.status === r.status && c.extract_key === r.extract_key;
  });
}
