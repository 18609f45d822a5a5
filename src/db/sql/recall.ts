import type { Queryable } from '../pool.js';
import { Params, chunkConditions, memoryConditions, tsqueryOf, where, type RecallScope } from './recall-filters.js';
import { vectorParam, type VectorSpace } from './vector.js';

export interface Hit {
  id: string;
  score: number;
}

type Table = 'memories' | 'chunks';

function conditions(table: Table, f: RecallScope, p: Params): string[] {
  return table === 'memories' ? memoryConditions(f, p) : chunkConditions(f, p);
}
const alias = (t: Table) => (t === 'memories' ? 'm' : 'c');

/**
 * A user's scope with at most this many rows is searched exactly, by scoring its rows, instead of
 * through HNSW: a filtered HNSW scan walks the graph until `k` rows of the user turn up (for a
 * user holding 2% of 100k memories it passed ~1,500 rows), and its latency varies with how the
 * user's rows lie in the graph, while an exact scan of a few thousand rows costs about the same
 * every time and finds the true nearest neighbours.
 */
export const EXACT_SCAN_MAX = 5000;

/**
 * Nearest neighbours by cosine. A user scope small enough (EXACT_SCAN_MAX) is scanned exactly
 * through the scope index; otherwise the partial HNSW expression index is used with the filters
 * inside the scan: pgvector ≥ 0.8 iterative scans keep walking the graph until `k` rows pass them
 * (set by the caller with setVectorSearch), so a narrow scope does not starve results.
 * One statement: the scope's size is the user's document count in bm25_docs (kept exact by
 * triggers: every chunk, active memories; an upper bound of the filtered scope), and the unused
 * branch is skipped by its one-time filter. With `includeHistory` (memories beyond the active
 * ones) the scope is counted instead.
 * Only rows of the query's model are compared (`space`): rows of another model (before
 * `memloom reembed`) are left to the keyword retrievers. The model is one more filter inside the
 * partial HNSW index of the dimension (iterative scans skip the other model's rows).
 */
export async function vectorSearch(tx: Queryable, table: Table, f: RecallScope, vector: number[], space: VectorSpace, k: number): Promise<Hit[]> {
  const p = new Params();
  const q = p.add(vectorParam(vector));
  const a = alias(table);
  const dims = space.dims;
  const c = where([`${a}.embedding_dims = ${dims}`, `${a}.embedding_model = ${p.add(space.model)}`, ...conditions(table, f, p)]);
  const exactDistance = `${a}.embedding <=> ${q}::vector`;
  // The HNSW index is on the expression embedding::vector(dims); ordering by the uncast column
  // does not match it, so the planner scores the scope's rows (through the scope index) instead.
  const indexDistance = `${a}.embedding::vector(${dims}) <=> ${q}::vector(${dims})`;
  const limit = p.add(k);
  const search = (distance: string, gate: string) =>
    `(SELECT ${a}.id, 1 - (${distance}) AS score FROM ${table} ${a} WHERE ${c} ${gate} ORDER BY ${distance} LIMIT ${limit})`;
  if (f.userId === undefined) return (await tx.query<Hit>(search(indexDistance, ''), p.values)).rows;
  const small = f.includeHistory
    ? `(SELECT count(*) <= ${EXACT_SCAN_MAX} FROM (SELECT 1 FROM ${table} ${a} WHERE ${c} LIMIT ${EXACT_SCAN_MAX + 1}) s)`
    : `(SELECT coalesce(sum(docs), 0) <= ${EXACT_SCAN_MAX} FROM bm25_docs WHERE corpus = '${table}' AND user_key = ${p.add(f.userId)}${f.dataset !== undefined ? ` AND dataset = ${p.add(f.dataset)}` : ''})`;
  const { rows } = await tx.query<Hit>(
    `WITH small AS MATERIALIZED (SELECT ${small} AS yes)
     ${search(exactDistance, 'AND (SELECT yes FROM small)')}
     UNION ALL ${search(indexDistance, 'AND NOT (SELECT yes FROM small)')}`,
    p.values,
  );
  return rows;
}

/**
 * Entities the query names, in the recall's graph scope (its user and dataset, when given):
 * full-text prefilter on the entity index, then the normalised name must occur in the query.
 */
export async function entitiesInQuery(
  tx: Queryable,
  normalizedQuery: string,
  terms: string[],
  limit: number,
  scope: { userId?: string | undefined; dataset?: string | undefined } = {},
): Promise<string[]> {
  if (terms.length === 0) return [];
  const p = new Params();
  const tsq = tsqueryOf(p, terms);
  const scoped = [
    ...(scope.userId !== undefined ? [`AND coalesce(e.user_id, '') = ${p.add(scope.userId)}`] : []),
    ...(scope.dataset !== undefined ? [`AND e.dataset = ${p.add(scope.dataset)}`] : []),
  ].join(' ');
  const { rows } = await tx.query<{ id: string }>(
    `SELECT e.id FROM entities e WHERE e.fts @@ ${tsq} AND length(e.normalized_name) >= 2 ${scoped}
       AND position(e.normalized_name IN ${p.add(normalizedQuery)}) > 0
     ORDER BY length(e.normalized_name) DESC LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows.map((r) => r.id);
}

/** Entities one or two hops from `seeds` over current edges, with their hop distance. */
export async function neighbourEntities(tx: Queryable, seeds: string[], maxHops: 1 | 2, fanout: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let frontier = seeds;
  const seen = new Set(seeds);
  for (let hop = 1; hop <= maxHops && frontier.length > 0; hop++) {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT DISTINCT n.id FROM (
         SELECT target_entity_id AS id FROM edges WHERE source_entity_id = ANY($1::uuid[]) AND invalid_at IS NULL
         UNION ALL SELECT source_entity_id FROM edges WHERE target_entity_id = ANY($1::uuid[]) AND invalid_at IS NULL) n LIMIT $2`,
      [frontier, fanout],
    );
    frontier = rows.map((r) => r.id).filter((id) => !seen.has(id));
    for (const id of frontier) {
      seen.add(id);
      out.set(id, hop);
    }
  }
  return out;
}

/**
 * Memories linked to the given entities (within the scope). A user-scoped recall reads only that
 * user's links (memory_entities carries its memory's user), not every user's links of the entities.
 */
export async function memoriesOfEntities(tx: Queryable, f: RecallScope, entityIds: string[], k: number): Promise<Array<{ id: string; entity_id: string }>> {
  if (entityIds.length === 0) return [];
  const p = new Params();
  const c = [`me.entity_id = ANY(${p.add(entityIds)}::uuid[])`, ...memoryConditions(f, p)];
  if (f.userId !== undefined) c.push(`me.user_id = ${p.add(f.userId)}`);
  const { rows } = await tx.query<{ id: string; entity_id: string }>(
    `SELECT m.id, me.entity_id FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE ${where(c)}
     ORDER BY m.importance DESC, m.occurred_at DESC LIMIT ${p.add(k)}`,
    p.values,
  );
  return rows;
}

export interface MemoryRow {
  id: string;
  kind: string;
  content: string;
  status: string;
  importance: number;
  is_crystal: boolean;
  version: number;
  rank_weight: number;
  occurred_at: Date;
  event_time: Date | null;
  time_precision: string | null;
  created_at: Date;
  session_id: string | null;
  dataset: string;
  event_ids: string[];
  valid_from: Date;
  superseded_at: Date | null;
  superseded_by: string | null;
  slot: import('../../domain/slots.js').Slot | null;
}

export async function loadMemories(tx: Queryable, ids: string[]): Promise<MemoryRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<MemoryRow>(
    `SELECT m.id, m.kind, m.content, m.status, m.importance, m.is_crystal, m.version, m.rank_weight, m.occurred_at, m.event_time, m.time_precision,
            m.created_at, m.session_id, m.dataset, m.valid_from, m.superseded_at, m.superseded_by, m.slot,
            coalesce((SELECT array_agg(p.event_id ORDER BY p.created_at) FROM provenance p WHERE p.object_type = 'memory' AND p.object_id = m.id), '{}') AS event_ids
     FROM memories m WHERE m.id = ANY($1::uuid[])`,
    [ids],
  );
  return rows;
}

export interface ChunkRow {
  id: string;
  content: string;
  event_id: string;
  occurred_at: Date;
  created_at: Date;
  session_id: string | null;
  dataset: string;
  importance: number | null;
  /** Who said it: the event's metadata.speaker, else its role. */
  speaker: string | null;
  /** The event's role (user, assistant, tool, system), null when it has none. */
  role: string | null;
  /** Tokens of its own text. */
  tokens: number;
  /** The next chunk of its session when its text asks a question (QUESTION_SQL), else null. */
  next_id: string | null;
}

/** A question mark ending a word, sentence or text (not one inside a URL's query string). */
export const QUESTION_SQL = String.raw`\?(\s|$)`;

export async function loadChunks(tx: Queryable, ids: string[]): Promise<ChunkRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<ChunkRow>(
    `SELECT c.id, c.content, c.event_id, c.occurred_at, c.created_at, c.session_id, c.dataset, e.importance,
            coalesce(e.metadata->>'speaker', e.metadata->>'name', e.role) AS speaker, e.role, c.tokens,
            CASE WHEN c.session_id IS NOT NULL AND c.content ~ $2 THEN
              (SELECT n.id FROM chunks n
               WHERE n.tenant_id = c.tenant_id AND n.session_id = c.session_id AND (n.occurred_at, n.event_seq, n.idx) > (c.occurred_at, c.event_seq, c.idx)
                 AND n.dataset = c.dataset AND coalesce(n.user_id, '') = coalesce(c.user_id, '')
               ORDER BY n.tenant_id, n.session_id, n.occurred_at, n.event_seq, n.idx LIMIT 1) END AS next_id
     FROM chunks c JOIN events e ON e.id = c.event_id WHERE c.id = ANY($1::uuid[])`,
    [ids, QUESTION_SQL],
  );
  return rows;
}

/** pgvector ≥ 0.8 filters inside the HNSW scan (iterative); older versions get a wider ef_search. */
export async function setVectorSearch(tx: Queryable, iterative: boolean, efSearch: number): Promise<void> {
  if (iterative) await tx.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
  else await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
}
