/**
 * Reads for auto-dream (DESIGN §3 stage 5): a user scope's active memories with their vectors and
 * independent sources, the pairs already linked, the trigger counts per scope, and the scope's
 * dream bookkeeping. A scope is a user id, '' standing for memories without a user.
 */
import type { Queryable } from '../pool.js';
import { fromVectorSql } from './vector.js';

export interface DreamRow {
  id: string;
  kind: string;
  content: string;
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
 * Active, unexpired memories of one scope, newest first, at most `limit`. `vector` is null for a
 * memory embedded by another model (not comparable). `sources` are the distinct sessions of the
 * supporting events, or the events themselves when they have no session.
 */
export async function dreamScope(tx: Queryable, userKey: string, embedder: { model: string; dims: number }, limit: number): Promise<DreamRow[]> {
  const { rows } = await tx.query<Omit<DreamRow, 'vector'> & { embedding: string | null }>(
    `SELECT m.id, m.kind, m.content, m.subject_entity_id, m.confidence, m.importance, m.is_crystal, m.valid_from,
            CASE WHEN m.embedding_model = $2 AND m.embedding_dims = $3 THEN m.embedding::text END AS embedding,
            coalesce(s.sources, '{}') AS sources, coalesce(s.evidence, 0) AS evidence
     FROM memories m
     LEFT JOIN LATERAL (
       SELECT array_agg(DISTINCT coalesce('session:' || e.session_id, 'event:' || e.id::text)) AS sources, count(*)::int AS evidence
       FROM provenance p JOIN events e ON e.id = p.event_id WHERE p.object_type = 'memory' AND p.object_id = m.id) s ON true
     WHERE m.status = 'active' AND coalesce(m.user_id, '') = $1 AND (m.expires_at IS NULL OR m.expires_at > now())
     ORDER BY m.created_at DESC, m.id LIMIT $4`,
    [userKey, embedder.model, embedder.dims, limit],
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

export interface DreamScopeStats {
  user_id: string;
  first_at: Date;
  last_dream_at: Date | null;
  new_memories: number;
  new_sessions: number;
}

/**
 * Every scope with active memories, with what happened since its last dream (or ever, before the
 * first): memories recorded and sessions with events received. One pass over each table.
 */
export async function dreamScopeStats(tx: Queryable): Promise<DreamScopeStats[]> {
  const { rows } = await tx.query<DreamScopeStats>(
    `WITH st AS (SELECT user_id, last_dream_at FROM user_state),
     mem AS (
       SELECT coalesce(m.user_id, '') AS u, min(m.created_at) FILTER (WHERE m.status = 'active') AS first_at,
              count(*) FILTER (WHERE m.created_at > coalesce(st.last_dream_at, '-infinity'))::int AS new_memories
       FROM memories m LEFT JOIN st ON st.user_id = coalesce(m.user_id, '') GROUP BY 1),
     ses AS (
       SELECT coalesce(e.user_id, '') AS u, count(DISTINCT e.session_id)::int AS new_sessions
       FROM events e LEFT JOIN st ON st.user_id = coalesce(e.user_id, '')
       WHERE e.session_id IS NOT NULL AND e.received_at > coalesce(st.last_dream_at, '-infinity') GROUP BY 1)
     SELECT mem.u AS user_id, mem.first_at, st.last_dream_at, mem.new_memories, coalesce(ses.new_sessions, 0) AS new_sessions
     FROM mem LEFT JOIN st ON st.user_id = mem.u LEFT JOIN ses ON ses.u = mem.u
     WHERE mem.first_at IS NOT NULL ORDER BY mem.u`,
  );
  return rows;
}

/** Records a finished dream of the scope (the baseline of its next triggers). */
export async function markDreamed(tx: Queryable, userKey: string, stats: Record<string, number | string>): Promise<void> {
  await tx.query(
    `INSERT INTO user_state (user_id, last_dream_at, last_dream_stats) VALUES ($1, now(), $2)
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET last_dream_at = now(), last_dream_stats = EXCLUDED.last_dream_stats, updated_at = now()`,
    [userKey, JSON.stringify(stats)],
  );
}
