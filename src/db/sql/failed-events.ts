/**
 * Events of a dead-lettered job: `failed` with the job's reason, so `pending_events` counts only
 * work that can still finish, and back to the status their stage takes when the job is retried
 * (POST /v1/jobs/retry). Run inside withTenant (RLS scopes the rows to the job's tenant).
 * Idempotent: each statement only moves rows still in the status it starts from.
 */
import type { Queryable } from '../pool.js';

/** The status an event waits in for each event stage (what the stage's claim selects). */
const WAITING: Record<string, string> = { triage: 'received', chunk: 'triaged', embed: 'chunked', extract: 'embedded' };

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

/**
 * Marks `failed` (with `error` = the reason) the job's events that still wait for its stage;
 * events it had already moved on are left to the stage they are in. Returns the rows marked.
 * Jobs of other queues (dream, briefing, maintenance) carry no events: 0.
 */
export async function failJobEvents(tx: Queryable, queue: string, data: unknown, reason: string): Promise<number> {
  const waiting = WAITING[queue];
  const t = target(data);
  if (!waiting || !t) return 0;
  const error = reason.slice(0, 2000);
  const { rowCount } =
    'extractKey' in t
      ? await tx.query(
          `UPDATE events SET status = 'failed', error = $2, processed_at = now()
       WHERE extract_key = $1 AND extract_pending AND status IN ('embedded', 'extracting')`,
          [t.extractKey, error],
        )
      : await tx.query(`UPDATE events SET status = 'failed', error = $3, processed_at = now() WHERE id = ANY($1::uuid[]) AND status = $2`, [
          t.eventIds,
          waiting,
          error,
        ]);
  return rowCount ?? 0;
}

/** The job's `failed` events back to the status its stage takes, their error cleared. Returns the rows moved. */
export async function restoreJobEvents(tx: Queryable, queue: string, data: unknown): Promise<number> {
  const waiting = WAITING[queue];
  const t = target(data);
  if (!waiting || !t) return 0;
  const { rowCount } =
    'extractKey' in t
      ? await tx.query(
          `UPDATE events SET status = 'embedded', error = NULL, processed_at = NULL WHERE extract_key = $1 AND extract_pending AND status = 'failed'`,
          [t.extractKey],
        )
      : await tx.query(`UPDATE events SET status = $2, error = NULL, processed_at = NULL WHERE id = ANY($1::uuid[]) AND status = 'failed'`, [
          t.eventIds,
          waiting,
        ]);
  return rowCount ?? 0;
}
