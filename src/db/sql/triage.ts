import type { EventStatus } from '../../queue/flow.js';
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
 * Claims those of `ids` still `received` for triage, oldest first. Locks the rows (FOR UPDATE, in
 * seq order) so two jobs holding the same event (dispatcher and requeue task) never triage it
 * twice: the second waits, and PostgreSQL re-checks `status = 'received'` on the row it waited
 * for, so it claims nothing the first triaged. It waits rather than skips: on a server the
 * dispatcher's enqueued mark may hold the rows for a moment while a worker in another process
 * already runs the job, and a skipped event stayed `received` until the requeue task came by
 * (seen in the server pipeline benchmark). The mark skips rows it cannot lock, so neither waits on
 * the other. Call inside withTenant; a replay finds its events no longer `received`.
 */
export async function claimReceived(tx: Queryable, ids: string[]): Promise<ReceivedEvent[]> {
  const { rows } = await tx.query<ReceivedEvent>(
    `SELECT id, type, role, content, session_id, user_id, importance FROM events
     WHERE id = ANY($1::uuid[]) AND status = 'received'
     ORDER BY seq
     FOR UPDATE`,
    [ids],
  );
  return rows;
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
export async function idsWithStatus(tx: Queryable, ids: string[], status: EventStatus): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[]) AND status = $2 ORDER BY seq', [ids, status]);
  return rows.map((r) => r.id);
}
