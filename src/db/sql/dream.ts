/**
 * Reads and bookkeeping for auto-dream (stage 5, workers/README.md): a scope's new memories after
 * its cursor, the rows a plan compares (with vectors and independent sources), the pairs already
 * linked, the trigger counts per scope, and the cursors. A scope is a user id, '' standing for
 * memories without a user. Every read is bounded by its ids or a LIMIT.
 */
import type { Queryable } from '../pool.js';
import { fromVectorSql } from './vector.js';

export interface DreamRow {
  id: string;
  kind: string;
  content: string;
  content_hash: string;
  subject_entity_id: string | null;
  confidence: number;
  importance: number;
  is_crystal: boolean;
  valid_from: Date;
  vector: number[] | null;
  sources: string[];
  evidence: number;
}

/**
 * A keyset position in (created_at, id) or (updated_at, id) order. `at` is PostgreSQL's text of
 * the timestamp: a JS Date keeps milliseconds only, and a cursor rounded down would read the rows
 * of its last millisecond again forever.
 */
export interface Cursor {
  at: string;
  id: string;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The scope's cursors (null: never dreamed, start from its first memory). */
export async function dreamCursors(tx: Queryable, userKey: string): Promise<{ dream: Cursor | null; crystal: Cursor | null }> {
  const { rows } = await tx.query<{ d_at: string | null; d_id: string | null; c_at: string | null; c_id: string | null }>(
    `SELECT dream_cursor_at::text AS d_at, dream_cursor_id AS d_id, crystal_cursor_at::text AS c_at, crystal_cursor_id AS c_id FROM user_state WHERE user_id = $1`,
    [userKey],
  );
  const r = rows[0];
  return {
    dream: r?.d_at ? { at: r.d_at, id: r.d_id ?? NIL_UUID } : null,
    crystal: r?.c_at ? { at: r.c_at, id: r.c_id ?? NIL_UUID } : null,
  };
}

/** Active memories of the scope created after `after`, oldest first, at most `limit` (memories_scope_created_idx). */
export async function newMemoriesAfter(tx: Queryable, userKey: string, after: Cursor | null, limit: number): Promise<Array<{ id: string; cursor: Cursor }>> {
  const { rows } = await tx.query<{ id: string; at: string }>(
    `SELECT id, created_at::text AS at FROM memories
     WHERE coalesce(user_id, '') = $1 AND status = 'active' AND (expires_at IS NULL OR expires_at > now())
       AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
     ORDER BY created_at, id LIMIT $4`,
    [userKey, after?.at ?? null, after?.id ?? NIL_UUID, limit],
  );
  return rows.map((r) => ({ id: r.id, cursor: { at: r.at, id: r.id } }));
}

/**
 * The active memories among `ids` as a plan reads them. `vector` is null for a memory embedded by
 * another model (not comparable). `sources` are the distinct sessions of the supporting events, or
 * the events themselves when they have no session.
 */
export async function dreamRows(tx: Queryable, ids: string[], embedder: { model: string; dims: number }): Promise<DreamRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<Omit<DreamRow, 'vector'> & { embedding: string | null }>(
    `SELECT m.id, m.kind, m.content, m.content_hash, m.subject_entity_id, m.confidence, m.importance, m.is_crystal, m.valid_from,
            CASE WHEN m.embedding_model = $2 AND m.embedding_dims = $3 THEN m.embedding::text END AS embedding,
            coalesce(s.sources, '{}') AS sources, coalesce(s.evidence, 0) AS evidence
     FROM memories m
     LEFT JOIN LATERAL (
       SELECT array_agg(DISTINCT coalesce('session:' || e.session_id, 'event:' || e.id::text)) AS sources, count(*)::int AS evidence
       FROM provenance p JOIN events e ON e.id = p.event_id WHERE p.object_type = 'memory' AND p.object_id = m.id) s ON true
     WHERE m.id = ANY($1::uuid[]) AND m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > now())
     ORDER BY m.created_at, m.id`,
    [ids, embedder.model, embedder.dims],
  );
  return rows.map(({ embedding, ...r }) => ({ ...r, vector: embedding ? fromVectorSql(embedding) : null }));
}

/** Pairs among `ids` that already have a relation (either direction, any type). */
export async function linkedPairs(tx: Queryable, ids: string[]): Promise<Array<{ a: string; b: string }>> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ a: string; b: string }>(
    `SELECT from_memory_id AS a, to_memory_id AS b FROM memory_relations WHERE from_memory_id = ANY($1::uuid[]) AND to_memory_id = ANY($1::uuid[])`,
    [ids],
  );
  return rows;
}

/**
 * Stores where a pass stopped. With `settleMs` > 0 (a server, where transactions run side by
 * side) the stored position is never later than now() − settleMs: a transaction that began
 * earlier and commits later stamps its rows with its start time, behind a cursor already past it;
 * the next run reads that window again (dream and the crystal pass are fixed points, so a second
 * look changes nothing). PGlite runs one transaction at a time: 0 there.
 */
export async function saveCursor(tx: Queryable, userKey: string, which: 'dream' | 'crystal', c: Cursor, settleMs: number): Promise<void> {
  const [at, id] = which === 'dream' ? ['dream_cursor_at', 'dream_cursor_id'] : ['crystal_cursor_at', 'crystal_cursor_id'];
  await tx.query(
    `WITH b AS (SELECT now() - $4::int * interval '1 millisecond' AS bound),
     c AS (SELECT CASE WHEN $2::timestamptz < b.bound THEN $2::timestamptz ELSE b.bound END AS at,
                  CASE WHEN $2::timestamptz < b.bound THEN $3::uuid ELSE '${NIL_UUID}'::uuid END AS id FROM b)
     INSERT INTO user_state (user_id, ${at}, ${id}) SELECT $1, c.at, c.id FROM c
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET ${at} = EXCLUDED.${at}, ${id} = EXCLUDED.${id}, updated_at = now()`,
    [userKey, c.at, c.id, settleMs],
  );
}

/**
 * One batch of the crystal pass: the scope's active memories changed after `after` (oldest change
 * first, at most `limit`) get `is_crystal` = evidence from at least `minSources` independent
 * sources and at least `minChars` characters, in one statement. Returns how many flags changed,
 * how many rows were looked at, and the position of the last.
 */
export async function refreshCrystals(
  tx: Queryable,
  userKey: string,
  after: Cursor | null,
  limit: number,
  rule: { minSources: number; minChars: number },
): Promise<{ looked: number; changed: number; last: Cursor | null }> {
  const { rows } = await tx.query<{ looked: number; changed: number; last_at: string | null; last_id: string | null }>(
    `WITH batch AS MATERIALIZED (
       SELECT id, content, is_crystal, updated_at FROM memories
       WHERE coalesce(user_id, '') = $1 AND status = 'active' AND ($2::timestamptz IS NULL OR (updated_at, id) > ($2::timestamptz, $3::uuid))
       ORDER BY updated_at, id LIMIT $4),
     flags AS (
       SELECT b.id, coalesce(s.evidence, 0) > 0 AND coalesce(s.sources, 0) >= $5 AND char_length(btrim(b.content)) >= $6 AS crystal
       FROM batch b LEFT JOIN LATERAL (
         SELECT count(DISTINCT coalesce('session:' || e.session_id, 'event:' || e.id::text))::int AS sources, count(*)::int AS evidence
         FROM provenance p JOIN events e ON e.id = p.event_id WHERE p.object_type = 'memory' AND p.object_id = b.id) s ON true
       WHERE b.is_crystal <> (coalesce(s.evidence, 0) > 0 AND coalesce(s.sources, 0) >= $5 AND char_length(btrim(b.content)) >= $6)),
     upd AS (UPDATE memories m SET is_crystal = f.crystal, updated_at = now() FROM flags f WHERE m.id = f.id RETURNING m.id),
     last AS (SELECT updated_at::text AS at, id FROM batch ORDER BY updated_at DESC, id DESC LIMIT 1)
     SELECT (SELECT count(*) FROM batch)::int AS looked, (SELECT count(*) FROM upd)::int AS changed, (SELECT at FROM last) AS last_at, (SELECT id FROM last) AS last_id`,
    [userKey, after?.at ?? null, after?.id ?? NIL_UUID, limit, rule.minSources, rule.minChars],
  );
  const r = rows[0] as { looked: number; changed: number; last_at: string | null; last_id: string | null };
  return { looked: r.looked, changed: r.changed, last: r.last_at && r.last_id ? { at: r.last_at, id: r.last_id } : null };
}

export interface DreamScopeStats {
  user_id: string;
  first_at: Date;
  last_dream_at: Date | null;
  new_memories: number;
  new_sessions: number;
  /** The last run stopped at a cap with new memories left. */
  backlog: boolean;
}

/**
 * Every scope with memories recorded since its last dream (or ever, before the first), with how
 * many and the sessions with events received since then, plus the scopes whose last run left a
 * backlog.
 */
export async function dreamScopeStats(tx: Queryable): Promise<DreamScopeStats[]> {
  const { rows } = await tx.query<DreamScopeStats>(
    `WITH st AS (SELECT user_id, last_dream_at, dream_backlog FROM user_state),
     mem AS (
       SELECT coalesce(m.user_id, '') AS u, min(m.created_at) AS first_at, count(*)::int AS new_memories
       FROM memories m LEFT JOIN st ON st.user_id = coalesce(m.user_id, '')
       WHERE m.status = 'active' AND m.created_at > coalesce(st.last_dream_at, '-infinity') GROUP BY 1),
     ses AS (
       SELECT coalesce(e.user_id, '') AS u, count(DISTINCT e.session_id)::int AS new_sessions
       FROM events e LEFT JOIN st ON st.user_id = coalesce(e.user_id, '')
       WHERE e.session_id IS NOT NULL AND e.received_at > coalesce(st.last_dream_at, '-infinity') GROUP BY 1),
     scopes AS (SELECT u FROM mem UNION SELECT user_id FROM st WHERE dream_backlog)
     SELECT s.u AS user_id, coalesce(mem.first_at, st.last_dream_at) AS first_at, st.last_dream_at, coalesce(mem.new_memories, 0) AS new_memories,
            coalesce(ses.new_sessions, 0) AS new_sessions, coalesce(st.dream_backlog, false) AS backlog
     FROM scopes s LEFT JOIN mem ON mem.u = s.u LEFT JOIN st ON st.user_id = s.u LEFT JOIN ses ON ses.u = s.u
     ORDER BY s.u`,
  );
  return rows;
}

/** Records a finished dream of the scope (the baseline of its next triggers) and whether it left a backlog. */
export async function markDreamed(tx: Queryable, userKey: string, stats: Record<string, number | string>, backlog: boolean): Promise<void> {
  await tx.query(
    `INSERT INTO user_state (user_id, last_dream_at, last_dream_stats, dream_backlog) VALUES ($1, now(), $2, $3)
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET last_dream_at = now(), last_dream_stats = EXCLUDED.last_dream_stats,
       dream_backlog = EXCLUDED.dream_backlog, updated_at = now()`,
    [userKey, JSON.stringify(stats), backlog],
  );
}
