/**
 * Forgetting over time (stage 6, docs/architecture.md "The pipeline"): per-kind default TTLs, the expiry sweep's selection,
 * decay refresh and archiving, restore. Every function runs in the caller's withTenant
 * transaction and is idempotent (a second run finds nothing left to change).
 */
import type { Queryable } from '../pool.js';

/**
 * Per-kind default TTL (TTL_DEFAULTS): memories of those kinds without an expiry get
 * occurred_at + the default. insertMemory(ies) already set it at insert when given the defaults;
 * this catches rows inserted before that (or before a kind got a default). An event's own ttl
 * (set at insert) always wins, since only NULL expiries are filled. At most `limit` memories per
 * call (the caller loops, a short transaction each). Returns the number that got an expiry.
 */
export async function applyTtlDefaults(tx: Queryable, defaults: ReadonlyMap<string, string>, limit: number): Promise<number> {
  if (defaults.size === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE memories m SET expires_at = m.occurred_at + d.ttl::interval, updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS d(kind text, ttl text)
     WHERE m.id IN (SELECT id FROM memories WHERE expires_at IS NULL AND kind = ANY($2::text[]) LIMIT $3 FOR UPDATE SKIP LOCKED)
       AND m.kind = d.kind AND m.expires_at IS NULL`,
    [JSON.stringify([...defaults].map(([kind, ttl]) => ({ kind, ttl }))), [...defaults.keys()], limit],
  );
  return rowCount ?? 0;
}

/** Memories (any status) whose expiry has passed, oldest expiry first. */
export async function expiredMemoryIds(tx: Queryable, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM memories WHERE expires_at <= now() ORDER BY expires_at, id LIMIT $1 FOR UPDATE SKIP LOCKED', [
    limit,
  ]);
  return rows.map((r) => r.id);
}

export interface DecayRow {
  id: string;
  kind: string;
  importance: number;
  status: string;
  decay: number;
  access_count: number;
  occurred_at: Date;
  last_accessed_at: Date | null;
  created_at: Date;
}

/** One keyset page of active memories for the decay refresh. */
export async function activeMemoriesPage(tx: Queryable, afterId: string | null, limit: number): Promise<DecayRow[]> {
  const { rows } = await tx.query<DecayRow>(
    `SELECT m.id, m.kind, m.importance, m.status, coalesce(s.decay, 1) AS decay, coalesce(s.access_count, 0) AS access_count,
            m.occurred_at, s.last_accessed_at, m.created_at
     FROM memories m LEFT JOIN memory_signals s ON s.memory_id = m.id
     WHERE m.status = 'active' AND ($1::uuid IS NULL OR m.id > $1::uuid) ORDER BY m.id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * Writes new decay values into memory_signals (only decay: content, confidence and importance
 * never change here, and the memory rows themselves are not rewritten).
 */
export async function writeDecay(tx: Queryable, values: Array<{ id: string; decay: number }>): Promise<number> {
  if (values.length === 0) return 0;
  const { rowCount } = await tx.query(
    `INSERT INTO memory_signals (memory_id, decay)
     SELECT m.id, x.decay FROM unnest($1::uuid[], $2::real[]) AS x(id, decay) JOIN memories m ON m.id = x.id
     ON CONFLICT (memory_id) DO UPDATE SET decay = excluded.decay WHERE memory_signals.decay <> excluded.decay`,
    [values.map((v) => v.id), values.map((v) => v.decay)],
  );
  return rowCount ?? 0;
}

/** Those of `ids` that some feedback was given on (they were among a rated recall's results). */
export async function withFeedback(tx: Queryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `SELECT DISTINCT x.id FROM feedback f JOIN recall_log r ON r.id = f.recall_id CROSS JOIN LATERAL unnest(r.result_ids) AS x(id)
     WHERE x.id = ANY($1::uuid[])`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Archives memories that are still active and still untouched: the conditions are re-checked
 * in SQL so an access recorded since they were read keeps a memory active.
 */
export async function archiveMemories(tx: Queryable, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE memories m SET status = 'archived', updated_at = now() WHERE m.id = ANY($1::uuid[]) AND m.status = 'active'
       AND NOT EXISTS (SELECT 1 FROM memory_signals s WHERE s.memory_id = m.id AND s.access_count > 0)`,
    [ids],
  );
  return rowCount ?? 0;
}

export type RestoreOutcome =
  | { outcome: 'restored'; id: string; userKey: string }
  | { outcome: 'already_active'; id: string }
  | { outcome: 'not_found' }
  | { outcome: 'not_archived'; status: string }
  | { outcome: 'conflict'; existingId: string };

/**
 * Brings an archived memory back into the active set. Restoring counts as an interaction
 * (access_count + 1, last access now, decay 1), so the next decay refresh does not archive it
 * again at once. Refused when another active memory of the scope says the same.
 */
export async function restoreMemory(tx: Queryable, id: string): Promise<RestoreOutcome> {
  const { rows } = await tx.query<{ status: string; user_id: string | null; content_hash: string }>(
    'SELECT status, user_id, content_hash FROM memories WHERE id = $1 FOR UPDATE',
    [id],
  );
  const m = rows[0];
  if (!m) return { outcome: 'not_found' };
  if (m.status === 'active') return { outcome: 'already_active', id };
  if (m.status !== 'archived') return { outcome: 'not_archived', status: m.status };
  const { rows: same } = await tx.query<{ id: string }>(
    `SELECT id FROM memories WHERE status = 'active' AND coalesce(user_id, '') = coalesce($1, '') AND content_hash = $2`,
    [m.user_id, m.content_hash],
  );
  if (same[0]) return { outcome: 'conflict', existingId: same[0].id };
  await tx.query(`UPDATE memories SET status = 'active', updated_at = now() WHERE id = $1`, [id]);
  await tx.query(
    `INSERT INTO memory_signals (memory_id, decay, access_count, last_accessed_at) VALUES ($1, 1, 1, now())
     ON CONFLICT (memory_id) DO UPDATE SET decay = 1, access_count = memory_signals.access_count + 1, last_accessed_at = now()`,
    [id],
  );
  return { outcome: 'restored', id, userKey: m.user_id ?? '' };
}
