import type { Queryable } from '../pool.js';

/**
 * Pages of one tenant's objects for GET /v1/export, in a scope (a user, a dataset, or everything).
 * Call inside withTenant (RLS scopes every read). Each function reads one page in key order after
 * `after` (the previous page's last key): pages are short transactions, so an export never holds
 * PGlite's one session for long. Timestamps come back as text with microseconds, vectors as text
 * (pgvector's `[x,y,…]`, which is JSON), intervals in ISO-8601 (the caller sets intervalstyle).
 *
 * What belongs to a scope: its events and their chunks; its memories; the entities that its events
 * support (provenance), that its memories name or are about, and the endpoints of its edges; the
 * edges its events support; relations and memory–entity links between exported objects; the
 * provenance rows between an exported object and an exported event.
 */

export interface ExportScope {
  userId: string | undefined;
  dataset: string | undefined;
}

const iso = (col: string, as: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${as}`;
/** $1 user, $2 dataset (NULL: any). */
const inScope = (alias: string) => `($1::text IS NULL OR ${alias}.user_id = $1) AND ($2::text IS NULL OR ${alias}.dataset = $2)`;
/** Every parameter must appear in the text for PostgreSQL to type it; true when there is no scope. */
const UNSCOPED = 'AND $1::text IS NULL AND $2::text IS NULL';
const scoped = (s: ExportScope) => s.userId !== undefined || s.dataset !== undefined;
const params = (s: ExportScope, after: string, limit: number, more: unknown[] = []) => [s.userId ?? null, s.dataset ?? null, after, limit, ...more];

/** ISO-8601 intervals (P30D) instead of PostgreSQL's own output ("30 days"), for this transaction. */
export async function useIsoIntervals(tx: Queryable): Promise<void> {
  await tx.query(`SET LOCAL intervalstyle = 'iso_8601'`);
}

export async function exportEvents(tx: Queryable, s: ExportScope, after: string, limit: number): Promise<Array<Record<string, unknown> & { id: string }>> {
  const { rows } = await tx.query(
    `SELECT e.id, e.idem_key, e.dataset, e.user_id, e.agent_id, e.session_id, e.type, e.role, e.content,
            ${iso('e.occurred_at', 'occurred_at')}, ${iso('e.received_at', 'received_at')}, e.importance, e.ttl::text AS ttl, e.metadata,
            e.source, e.source_ref, e.status, e.skip_reason, ${iso('e.processed_at', 'processed_at')}
     FROM events e WHERE ${inScope('e')} AND e.id > $3::uuid ORDER BY e.id LIMIT $4`,
    params(s, after, limit),
  );
  return rows;
}

export async function exportChunks(
  tx: Queryable,
  s: ExportScope,
  after: string,
  limit: number,
  vectors: boolean,
): Promise<Array<Record<string, unknown> & { id: string }>> {
  const { rows } = await tx.query(
    `SELECT c.id, c.event_id, c.idx, c.content, c.start_offset, c.end_offset, c.tokens, ${iso('c.created_at', 'created_at')},
            c.embedding_model, CASE WHEN $5 THEN coalesce(c.own_embedding, c.embedding)::text END AS embedding
     FROM chunks c JOIN events e ON e.id = c.event_id
     WHERE ${inScope('e')} AND c.id > $3::uuid ORDER BY c.id LIMIT $4`,
    params(s, after, limit, [vectors]),
  );
  return rows;
}

export async function exportEntities(
  tx: Queryable,
  s: ExportScope,
  after: string,
  limit: number,
  vectors: boolean,
): Promise<Array<Record<string, unknown> & { id: string }>> {
  const filter = scoped(s)
    ? `AND (EXISTS (SELECT 1 FROM provenance p JOIN events e ON e.id = p.event_id WHERE p.object_type = 'entity' AND p.object_id = n.id AND ${inScope('e')})
         OR EXISTS (SELECT 1 FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE me.entity_id = n.id AND ${inScope('m')})
         OR EXISTS (SELECT 1 FROM memories m WHERE m.subject_entity_id = n.id AND ${inScope('m')})
         OR EXISTS (SELECT 1 FROM edges g JOIN provenance p ON p.object_type = 'edge' AND p.object_id = g.id JOIN events e ON e.id = p.event_id
                    WHERE (g.source_entity_id = n.id OR g.target_entity_id = n.id) AND ${inScope('e')}))`
    : UNSCOPED;
  const { rows } = await tx.query(
    `SELECT n.id, n.dataset, n.user_id, n.name, n.normalized_name, n.type, n.description, ${iso('n.created_at', 'created_at')}, ${iso('n.updated_at', 'updated_at')},
            n.embedding_model, CASE WHEN $5 THEN n.embedding::text END AS embedding
     FROM entities n WHERE n.id > $3::uuid ${filter} ORDER BY n.id LIMIT $4`,
    params(s, after, limit, [vectors]),
  );
  return rows;
}

export async function exportMemories(
  tx: Queryable,
  s: ExportScope,
  after: string,
  limit: number,
  vectors: boolean,
): Promise<Array<Record<string, unknown> & { id: string }>> {
  const { rows } = await tx.query(
    `SELECT m.id, m.dataset, m.user_id, m.agent_id, m.session_id, m.kind, m.content, m.content_hash, m.subject_entity_id, m.importance,
            m.confidence, m.rank_weight, ${iso('m.event_time', 'event_time')}, m.time_precision, ${iso('m.occurred_at', 'occurred_at')},
            ${iso('m.valid_from', 'valid_from')}, m.superseded_by, ${iso('m.superseded_at', 'superseded_at')}, m.status,
            ${iso('m.expires_at', 'expires_at')}, m.is_crystal, m.version, ${iso('m.created_at', 'created_at')}, ${iso('m.updated_at', 'updated_at')},
            CASE WHEN sg.memory_id IS NULL THEN NULL
                 ELSE json_build_object('decay', sg.decay, 'access_count', sg.access_count,
                        'last_accessed_at', to_char(sg.last_accessed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) END AS signals,
            m.embedding_model, CASE WHEN $5 THEN m.embedding::text END AS embedding, m.fts::text AS key, m.slot
     FROM memories m LEFT JOIN memory_signals sg ON sg.memory_id = m.id
     WHERE ${inScope('m')} AND m.id > $3::uuid ORDER BY m.id LIMIT $4`,
    params(s, after, limit, [vectors]),
  );
  return rows;
}

export async function exportEdges(tx: Queryable, s: ExportScope, after: string, limit: number): Promise<Array<Record<string, unknown> & { id: string }>> {
  const filter = scoped(s)
    ? `AND EXISTS (SELECT 1 FROM provenance p JOIN events e ON e.id = p.event_id WHERE p.object_type = 'edge' AND p.object_id = g.id AND ${inScope('e')})`
    : UNSCOPED;
  const { rows } = await tx.query(
    `SELECT g.id, g.source_entity_id, g.target_entity_id, g.relation, g.description, ${iso('g.valid_at', 'valid_at')}, ${iso('g.invalid_at', 'invalid_at')},
            ${iso('g.created_at', 'created_at')}, ${iso('g.updated_at', 'updated_at')}
     FROM edges g WHERE g.id > $3::uuid ${filter} ORDER BY g.id LIMIT $4`,
    params(s, after, limit),
  );
  return rows;
}

export async function exportRelations(tx: Queryable, s: ExportScope, after: string, limit: number): Promise<Array<Record<string, unknown> & { id: string }>> {
  const { rows } = await tx.query(
    `SELECT r.id, r.from_memory_id, r.to_memory_id, r.relation, r.is_progression, ${iso('r.created_at', 'created_at')}
     FROM memory_relations r JOIN memories a ON a.id = r.from_memory_id JOIN memories b ON b.id = r.to_memory_id
     WHERE ${inScope('a')} AND ${inScope('b')} AND r.id > $3::uuid ORDER BY r.id LIMIT $4`,
    params(s, after, limit),
  );
  return rows;
}

/** Keyset on (memory_id, entity_id): `after` is `<memory_id>/<entity_id>`. */
export async function exportMemoryEntities(
  tx: Queryable,
  s: ExportScope,
  after: string,
  limit: number,
): Promise<Array<{ memory_id: string; entity_id: string; key: string }>> {
  const [m = '', n = ''] = after.split('/');
  const { rows } = await tx.query<{ memory_id: string; entity_id: string; key: string }>(
    `SELECT me.memory_id, me.entity_id, me.memory_id || '/' || me.entity_id AS key
     FROM memory_entities me JOIN memories m ON m.id = me.memory_id
     WHERE ${inScope('m')} AND (me.memory_id, me.entity_id) > ($3::uuid, $5::uuid) ORDER BY me.memory_id, me.entity_id LIMIT $4`,
    params(s, m, limit, [n]),
  );
  return rows;
}

/** Keyset on the primary key (object_type, object_id, event_id): `after` is the three joined by '/'. */
export async function exportProvenance(tx: Queryable, s: ExportScope, after: string, limit: number): Promise<Array<Record<string, unknown> & { key: string }>> {
  const [t = '', o = '', e = ''] = after.split('/');
  const { rows } = await tx.query(
    `SELECT p.object_type, p.object_id, p.event_id, ${iso('p.created_at', 'created_at')},
            CASE WHEN r.id IS NULL THEN NULL ELSE json_build_object('stage', r.stage, 'provider', r.provider, 'model', r.model) END AS run,
            p.object_type || '/' || p.object_id || '/' || p.event_id AS key
     FROM provenance p JOIN events e ON e.id = p.event_id LEFT JOIN pipeline_runs r ON r.id = p.run_id
     WHERE ${inScope('e')} AND (p.object_type, p.object_id, p.event_id) > ($5::text, $3::uuid, $6::uuid)
       AND (p.object_type IN ('entity', 'edge')
            OR (p.object_type = 'memory' AND EXISTS (SELECT 1 FROM memories m WHERE m.id = p.object_id AND ${inScope('m')}))
            OR (p.object_type = 'relation' AND EXISTS (SELECT 1 FROM memory_relations x JOIN memories a ON a.id = x.from_memory_id
                  JOIN memories b ON b.id = x.to_memory_id WHERE x.id = p.object_id AND ${inScope('a')} AND ${inScope('b')})))
     ORDER BY p.object_type, p.object_id, p.event_id LIMIT $4`,
    params(s, o, limit, [t, e]),
  );
  return rows as Array<Record<string, unknown> & { key: string }>;
}

/** Stored working-memory digests: the user's in a user scope, none in a dataset scope (they are per user), all otherwise. */
export async function exportWorkingMemory(tx: Queryable, s: ExportScope): Promise<Array<{ user_id: string; markdown: string; refreshed_at: string }>> {
  if (s.dataset !== undefined && s.userId === undefined) return [];
  const { rows } = await tx.query<{ user_id: string; markdown: string; refreshed_at: string }>(
    `SELECT user_id, briefing_md AS markdown, ${iso('coalesce(last_briefing_at, updated_at)', 'refreshed_at')}
     FROM user_state WHERE briefing_md IS NOT NULL AND ($1::text IS NULL OR user_id = $1) ORDER BY user_id`,
    [s.userId ?? null],
  );
  return rows;
}
