/**
 * Events of a dead-lettered job: `failed` with the job's reason, so `pending_events` counts only
 * work that can still finish, and back to the status their stage takes when the job is retried
 * (POST /v1/jobs/retry). Run inside withTenant (RLS scopes the rows to the job's tenant).
 * Idempotent: each statement only moves rows still in the status it starts from.
 */
import { flowOf, statusesBefore } from '../../queue/flow.js';
import { isQueueName } from '../../queue/names.js';
import type { Queryable } from '../pool.js';

/** What a job payload says about its events: the event ids it carries, or the extraction key. */
function target(data: unknown): { eventIds: string[] } | { extractKey: string } | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as { eventIds?: unknown; extractKey?: unknown };
  if (Array.isArray(d.eventIds)) {
    const ids = d.eventIds.filter((id): id is string => typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id));
    return ids.length > 0 ? { eventIds: ids } : undefined;
  }
  return typeof d.extractKey === 'string' ? { extractKey: d.extractKey } : undefined;
}

/** The rows of the job's events: `$1` is its event ids or its extraction key. */
const rowsOf = (t: { eventIds: string[] } | { extractKey: string }) =>
  'extractKey' in t ? { where: 'extract_key = $1 AND extract_pending', key: t.extractKey } : { where: 'id = ANY($1::uuid[])', key: t.eventIds };

/**
 * Marks `failed` (with `error` = the reason) the job's events that still wait for its stage (or
 * are held by it: an extraction claim); events it had already moved on are left to the stage they
 * are in. Returns the rows marked. Jobs of other queues (dream, briefing, maintenance) carry no
 * events: 0.
 */
export async function failJobEvents(tx: Queryable, queue: string, data: unknown, reason: string): Promise<number> {
  const before = statusesBefore(queue);
  const t = target(data);
  if (before.length === 0 || !t) return 0;
  const { where, key } = rowsOf(t);
  const { rowCount } = await tx.query(`UPDATE events SET status = 'failed', error = $3, processed_at = now() WHERE ${where} AND status = ANY($2::text[])`, [
    key,
    before,
    reason.slice(0, 2000),
  ]);
  return rowCount ?? 0;
}

/** The job's `failed` events back to the status its stage waits for, their error cleared. Returns the rows moved. */
export async function restoreJobEvents(tx: Queryable, queue: string, data: unknown): Promise<number> {
  const waiting = isQueueName(queue) ? flowOf(queue).waits : null;
  const t = target(data);
  if (!waiting || !t) return 0;
  const { where, key } = rowsOf(t);
  const { rowCount } = await tx.query(`UPDATE events SET status = $2, error = NULL, processed_at = NULL WHERE ${where} AND status = 'failed'`, [key, waiting]);
  return rowCount ?? 0;
}
