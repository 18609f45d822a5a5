import type { Queryable } from '../pool.js';

export interface ReceivedEvent {
  id: string;
  type: string;
  role: string | null;
  content: string;
  session_id: string | null;
  user_id: string | null;
  importance: number | null;
}

/**
 * Claims up to `limit` events still `received` for triage: the job's own event first, then the
 * oldest others of the tenant, so one job triages a burst and the others' jobs find nothing left.
 * Locks the rows (FOR UPDATE SKIP LOCKED) so two workers never triage the same event.
 * Call inside withTenant; a replay finds its event no longer `received` and claims nothing new.
 */
export async function claimReceived(tx: Queryable, eventId: string, limit: number): Promise<ReceivedEvent[]> {
  const { rows } = await tx.query<ReceivedEvent>(
    `SELECT id, type, role, content, session_id, user_id, importance FROM events
     WHERE status = 'received' AND (id = $1 OR id IN (SELECT id FROM events WHERE status = 'received' ORDER BY seq LIMIT $2))
     ORDER BY (id = $1) DESC, seq
     FOR UPDATE SKIP LOCKED`,
    [eventId, limit],
  );
  return rows.slice(0, limit);
}

/** The stored status of one event (undefined when it does not exist, e.g. forgotten). */
export async function statusOf(tx: Queryable, eventId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ status: string }>('SELECT status FROM events WHERE id = $1', [eventId]);
  return rows[0]?.status;
}

/** Ids among `ids` whose content already appeared earlier in the same session (and was not skipped). */
export async function findSessionDuplicates(tx: Queryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `SELECT e.id FROM events e
     WHERE e.id = ANY($1::uuid[]) AND e.session_id IS NOT NULL AND EXISTS (
       SELECT 1 FROM events p WHERE p.session_id = e.session_id AND p.content_hash = e.content_hash
         AND p.seq < e.seq AND p.status <> 'skipped')`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

export interface TriageOutcome {
  id: string;
  keep: boolean;
  reason: string | null;
  priority: number;
  extract: boolean;
  extract_key: string | null;
}

/** Writes verdicts in one statement: kept events become `triaged`, the rest `skipped` with the reason. */
export async function saveTriage(tx: Queryable, outcomes: TriageOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await tx.query(
    `UPDATE events e SET
       status = CASE WHEN o.keep THEN 'triaged' ELSE 'skipped' END,
       skip_reason = o.reason, priority = o.priority,
       extract_pending = o.keep AND o.extract, extract_key = o.extract_key,
       enqueued_at = coalesce(e.enqueued_at, now()),
       processed_at = CASE WHEN o.keep THEN NULL ELSE now() END
     FROM jsonb_to_recordset($1::jsonb) AS o(id uuid, keep boolean, reason text, priority smallint, extract boolean, extract_key text)
     WHERE e.id = o.id`,
    [JSON.stringify(outcomes)],
  );
}

/** Ids among `ids` whose stored status is `status` (next stages are computed from stored state). */
export async function idsWithStatus(tx: Queryable, ids: string[], status: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[]) AND status = $2 ORDER BY seq', [ids, status]);
  return rows.map((r) => r.id);
}
