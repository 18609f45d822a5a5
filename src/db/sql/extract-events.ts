import type { Queryable } from '../pool.js';

export interface EventToExtract {
  id: string;
  type: string;
  role: string | null;
  content: string;
  occurred_at: Date;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  importance: number | null;
  metadata: Record<string, unknown>;
  /** When a failed pass gave the event back (releaseExtraction), as PostgreSQL's text (microseconds kept); null when no pass has had it. */
  released_at?: string | null;
}

/**
 * Claims the oldest events of one extraction key for one pass and returns them in `seq` order:
 * those `embedded`, and those still `extracting` under a claim older than `leaseMs` (their job died
 * mid-pass). A claim is status `extracting` with processed_at = the claim time; it keeps concurrent
 * jobs of the same key (a debounced follow-up, a replay, another process) from sending the same
 * messages to a paid model twice. Events being extracted still count as pending (`pending_events`, docs/api.md).
 */
export async function claimForExtraction(tx: Queryable, extractKey: string, limit: number, leaseMs: number): Promise<EventToExtract[]> {
  const { rows } = await tx.query<EventToExtract & { seq: number }>(
    `UPDATE events e SET status = 'extracting', processed_at = now()
     FROM (SELECT id, CASE WHEN status = 'embedded' THEN processed_at::text END AS released_at FROM events WHERE extract_key = $1 AND extract_pending
             AND (status = 'embedded' OR (status = 'extracting' AND processed_at < now() - $3::int * interval '1 millisecond'))
           ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED) c
     WHERE e.id = c.id
     RETURNING c.released_at, e.id, e.seq, e.type, e.role, e.content, e.occurred_at, e.dataset, e.user_id, e.agent_id, e.session_id, e.importance, e.metadata`,
    [extractKey, limit, leaseMs],
  );
  return rows.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...event }) => event);
}

/**
 * Claims, for a pass of another key, the waiting events of a user's small keys (sessions or loose
 * events with at most `maxPerKey` events waiting, none of them still in triage, chunk or embed,
 * under a claim or given back by another failed pass; documents never), oldest first, up to `limit`: one-event sessions then share one
 * model call instead of one each. Same claim as claimForExtraction (status `extracting`); the
 * rows come back in `seq` order. Scope: one dataset and user (null: the user-less events).
 */
export async function claimSmallKeys(
  tx: Queryable,
  scope: { dataset: string; userId: string | null },
  exceptKey: string,
  limit: number,
  maxPerKey: number,
  /** The pass's own events were given back at this time: events given back with them may join it again (the same call, cached). */
  releasedAt: string | null = null,
): Promise<EventToExtract[]> {
  if (limit <= 0) return [];
  const { rows } = await tx.query<EventToExtract & { seq: number }>(
    `UPDATE events e SET status = 'extracting', processed_at = now()
     FROM (SELECT id FROM events
           WHERE extract_pending AND status = 'embedded' AND dataset = $1 AND user_id IS NOT DISTINCT FROM $2
             AND extract_key IN (SELECT extract_key FROM events
                                 WHERE extract_pending AND dataset = $1 AND user_id IS NOT DISTINCT FROM $2
                                   AND extract_key <> $3 AND extract_key NOT LIKE 'doc:%'
                                   AND status IN ('triaged', 'chunked', 'embedded', 'extracting')
                                 GROUP BY extract_key HAVING count(*) <= $5 AND bool_and(status = 'embedded' AND (processed_at IS NULL OR processed_at = $6::timestamptz)))
           ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED) c
     WHERE e.id = c.id
     RETURNING e.id, e.seq, e.type, e.role, e.content, e.occurred_at, e.dataset, e.user_id, e.agent_id, e.session_id, e.importance, e.metadata`,
    [scope.dataset, scope.userId, exceptKey, limit, maxPerKey, releasedAt],
  );
  return rows.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...event }) => event);
}

/**
 * Gives claimed events back (the pass failed before writing), so the retry or another job takes
 * them now. processed_at keeps when: their key's model answer may be cached, so they are never
 * batched into another key's call (claimSmallKeys), which would send them to the model again.
 */
export async function releaseExtraction(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query(`UPDATE events SET status = 'embedded', processed_at = now() WHERE id = ANY($1::uuid[]) AND status = 'extracting'`, [ids]);
}

/**
 * Renews a pass's claim on its events (processed_at = now), so a pass written in many pieces keeps
 * them for as long as it makes progress, however long the whole takes.
 */
export async function renewClaim(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query(`UPDATE events SET processed_at = now() WHERE id = ANY($1::uuid[]) AND status = 'extracting'`, [ids]);
}

/** Extraction done: the events are recallable as memory. Idempotent. */
export async function markExtracted(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query(
    `UPDATE events SET status = 'done', extract_pending = false, processed_at = now() WHERE id = ANY($1::uuid[]) AND status IN ('embedded', 'extracting')`,
    [ids],
  );
}

export interface PendingState {
  /** Events waiting for a pass. */
  pending: number;
  oldest: Date | null;
  /** Events under another pass's claim, and the milliseconds until the last claim expires. */
  claimed: number;
  claimLeftMs: number;
}

export async function hasPendingExtraction(tx: Queryable, extractKey: string, leaseMs: number): Promise<PendingState> {
  const { rows } = await tx.query<PendingState>(
    `SELECT count(*) FILTER (WHERE status = 'embedded')::int AS pending,
            min(received_at) FILTER (WHERE status = 'embedded') AS oldest,
            count(*) FILTER (WHERE status = 'extracting')::int AS claimed,
            coalesce(ceil(extract(epoch FROM max(processed_at) FILTER (WHERE status = 'extracting')
              + $2::int * interval '1 millisecond' - now()) * 1000), 0)::int AS "claimLeftMs"
     FROM events WHERE extract_key = $1 AND extract_pending AND status IN ('embedded', 'extracting')`,
    [extractKey, leaseMs],
  );
  return rows[0] as PendingState;
}

export interface QuietState {
  /** Events of the key waiting for a pass, and when the oldest of them arrived. */
  waiting: number;
  oldest: Date | null;
  /** Events of the key (or of its session, not yet triaged) still in triage, chunk or embed. */
  upstream: number;
  /** Milliseconds since the newest of all these events arrived. */
  sinceLastMs: number | null;
}

/**
 * What the debounce needs to know about one extraction key: a pass should wait while events of
 * the key are still upstream (the pipeline lags behind a session) or arrived within the quiet
 * period. Received events carry no key yet, so for a `session:` key they are found by session.
 */
export async function quietState(tx: Queryable, extractKey: string): Promise<QuietState> {
  const session = extractKey.startsWith('session:') ? extractKey.slice('session:'.length) : null;
  const { rows } = await tx.query<QuietState>(
    `SELECT count(*) FILTER (WHERE status = 'embedded')::int AS waiting,
            min(received_at) FILTER (WHERE status = 'embedded') AS oldest,
            count(*) FILTER (WHERE status IN ('received', 'triaged', 'chunked'))::int AS upstream,
            floor(extract(epoch FROM now() - max(received_at)) * 1000)::int AS "sinceLastMs"
     FROM events
     WHERE (extract_key = $1 AND extract_pending AND status IN ('triaged', 'chunked', 'embedded'))
        OR ($2::text IS NOT NULL AND session_id = $2 AND status = 'received')`,
    [extractKey, session],
  );
  return rows[0] as QuietState;
}
