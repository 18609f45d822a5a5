import type { Queryable } from '../pool.js';
import { likeEscape } from './memories-read.js';
import { Params, tsqueryOf } from './recall-filters.js';

/**
 * Read side of the knowledge graph for /v1/graph/* and /v1/schema. Run inside withTenant (RLS),
 * no locks, no writes. "Current" edges are those with invalid_at IS NULL. Entities and edges
 * belong to one (dataset, user) scope; a filter left out spans the tenant, and an edge always
 * joins two entities of one scope (a trigger refuses others), so a walk never leaves its root's.
 */

/** Which part of the tenant's graph to read; an absent field does not filter. */
export interface GraphFilter {
  userId?: string | undefined;
  dataset?: string | undefined;
}

function scopeWhere(p: Params, alias: string, f: GraphFilter): string {
  const c: string[] = [];
  if (f.userId !== undefined) c.push(`coalesce(${alias}.user_id, '') = ${p.add(f.userId)}`);
  if (f.dataset !== undefined) c.push(`${alias}.dataset = ${p.add(f.dataset)}`);
  return c.length > 0 ? c.join(' AND ') : 'true';
}

export interface EntitySummary {
  id: string;
  name: string;
  type: string;
  description: string;
  dataset: string;
  user_id: string | null;
  /** Current edges touching the entity, either direction. */
  degree: number;
  /** Active memories linked to the entity. */
  memory_count: number;
  created_at: Date;
  updated_at: Date;
}

const SUMMARY_COLUMNS = `e.id, e.name, e.type, e.description, e.dataset, e.user_id, e.created_at, e.updated_at,
  (SELECT count(*) FROM edges ed WHERE (ed.source_entity_id = e.id OR ed.target_entity_id = e.id) AND ed.invalid_at IS NULL)::int AS degree,
  (SELECT count(*) FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE me.entity_id = e.id AND m.status = 'active')::int AS memory_count`;

/**
 * Entities by name, fuzzy: the normalised name contains `needle` (ILIKE), or the entity's
 * full-text document (name + description) has any of `terms`. Ranked exact > prefix > contains >
 * text-only, then by ts_rank and degree. Without a needle: the best connected entities.
 */
export async function searchEntities(
  tx: Queryable,
  needle: string | undefined,
  terms: string[],
  limit: number,
  filter: GraphFilter = {},
): Promise<Array<EntitySummary & { match: string }>> {
  const p = new Params();
  const scoped = scopeWhere(p, 'e', filter);
  if (!needle) {
    const { rows } = await tx.query<EntitySummary & { match: string }>(
      `SELECT * FROM (SELECT ${SUMMARY_COLUMNS}, 'all' AS match FROM entities e WHERE ${scoped}) x ORDER BY degree DESC, memory_count DESC, name, id LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows;
  }
  const exact = p.add(needle);
  const prefix = p.add(`${likeEscape(needle)}%`);
  const contains = p.add(`%${likeEscape(needle)}%`);
  const tsq = terms.length > 0 ? tsqueryOf(p, terms) : 'NULL::tsquery';
  const { rows } = await tx.query<EntitySummary & { match: string }>(
    `WITH q AS (SELECT ${tsq} AS q),
     hits AS (
       SELECT e.id,
              CASE WHEN e.normalized_name = ${exact} THEN 3 WHEN e.normalized_name ILIKE ${prefix} ESCAPE '\\' THEN 2
                   WHEN e.normalized_name ILIKE ${contains} ESCAPE '\\' THEN 1 ELSE 0 END AS tier,
              coalesce(ts_rank(e.fts, q.q), 0) AS text_rank
       FROM entities e, q
       WHERE ${scoped} AND (e.normalized_name ILIKE ${contains} ESCAPE '\\' OR (q.q IS NOT NULL AND e.fts @@ q.q))
     ), top AS (
       SELECT * FROM hits ORDER BY tier DESC, text_rank DESC LIMIT ${p.add(limit * 4)}
     )
     SELECT ${SUMMARY_COLUMNS}, (ARRAY['text', 'contains', 'prefix', 'exact'])[t.tier + 1] AS match
     FROM top t JOIN entities e ON e.id = t.id
     ORDER BY t.tier DESC, t.text_rank DESC, degree DESC, length(e.normalized_name), e.name, e.id
     LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows;
}

/** The entity, if it is in `filter`'s part of the graph (another user's entity is not found). */
export async function findEntity(tx: Queryable, id: string, filter: GraphFilter = {}): Promise<EntitySummary | undefined> {
  const p = new Params();
  const idParam = p.add(id);
  const { rows } = await tx.query<EntitySummary>(
    `SELECT ${SUMMARY_COLUMNS} FROM entities e WHERE e.id = ${idParam} AND ${scopeWhere(p, 'e', filter)}`,
    p.values,
  );
  return rows[0];
}

export interface GraphNode {
  id: string;
  name: string;
  type: string;
  depth: number;
}

export interface GraphEdge {
  id: string;
  source_id: string;
  target_id: string;
  relation: string;
  description: string;
}

export interface Neighbourhood {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/**
 * The entity's neighbourhood over current edges, either direction, up to `depth` hops: a recursive
 * CTE that follows at most `fanout` edges per node per hop (most recently updated first) and never
 * revisits a node on its own path; the `maxNodes` closest nodes are kept (the root is depth 0) and
 * the traversed edges between kept nodes are returned. Work is bounded by fanout^depth.
 */
export async function entityNeighbourhood(tx: Queryable, id: string, opts: { depth: number; fanout: number; maxNodes: number }): Promise<Neighbourhood> {
  const { rows } = await tx.query<Neighbourhood>(
    `WITH RECURSIVE walk(node, depth, edge_id, path) AS (
       SELECT $1::uuid, 0, NULL::uuid, ARRAY[$1::uuid]
       UNION ALL
       SELECT n.other, w.depth + 1, n.id, w.path || n.other
       FROM walk w CROSS JOIN LATERAL (
         SELECT ed.id, CASE WHEN ed.source_entity_id = w.node THEN ed.target_entity_id ELSE ed.source_entity_id END AS other
         FROM edges ed
         WHERE (ed.source_entity_id = w.node OR ed.target_entity_id = w.node) AND ed.invalid_at IS NULL
         ORDER BY ed.updated_at DESC, ed.id LIMIT $3
       ) n
       WHERE w.depth < $2 AND NOT n.other = ANY(w.path)
     ), kept AS (
       SELECT node, min(depth) AS depth FROM walk GROUP BY node ORDER BY min(depth), node LIMIT $4
     )
     SELECT
       (SELECT coalesce(json_agg(json_build_object('id', e.id, 'name', e.name, 'type', e.type, 'depth', k.depth) ORDER BY k.depth, e.name, e.id), '[]'::json)
        FROM kept k JOIN entities e ON e.id = k.node) AS nodes,
       (SELECT coalesce(json_agg(json_build_object('id', ed.id, 'source_id', ed.source_entity_id, 'target_id', ed.target_entity_id,
                                                   'relation', ed.relation, 'description', ed.description) ORDER BY ed.relation, ed.id), '[]'::json)
        FROM edges ed
        WHERE ed.id IN (SELECT edge_id FROM walk WHERE edge_id IS NOT NULL)
          AND ed.source_entity_id IN (SELECT node FROM kept) AND ed.target_entity_id IN (SELECT node FROM kept)) AS edges`,
    [id, opts.depth, opts.fanout, opts.maxNodes],
  );
  return rows[0] ?? { nodes: [], edges: [] };
}

export interface SchemaCounts {
  entity_types: Array<{ type: string; count: number }>;
  relation_types: Array<{ relation: string; count: number }>;
  memory_kinds: Array<{ kind: string; count: number }>;
}

/**
 * Entity types (all entities), relation types (current edges) and memory kinds (active memories),
 * most frequent first, counted in `filter`'s part of the tenant (all of it without a filter).
 */
export async function schemaCounts(tx: Queryable, filter: GraphFilter = {}): Promise<SchemaCounts> {
  const p = new Params();
  const [en, ed, m] = [scopeWhere(p, 'en', filter), scopeWhere(p, 'ed', filter), scopeWhere(p, 'm', filter)];
  const { rows } = await tx.query<SchemaCounts>(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object('type', type, 'count', n) ORDER BY n DESC, type), '[]'::json)
        FROM (SELECT type, count(*)::int AS n FROM entities en WHERE ${en} GROUP BY type) x) AS entity_types,
       (SELECT coalesce(json_agg(json_build_object('relation', relation, 'count', n) ORDER BY n DESC, relation), '[]'::json)
        FROM (SELECT relation, count(*)::int AS n FROM edges ed WHERE ed.invalid_at IS NULL AND ${ed} GROUP BY relation) x) AS relation_types,
       (SELECT coalesce(json_agg(json_build_object('kind', kind, 'count', n) ORDER BY n DESC, kind), '[]'::json)
        FROM (SELECT kind, count(*)::int AS n FROM memories m WHERE m.status = 'active' AND ${m} GROUP BY kind) x) AS memory_kinds`,
    p.values,
  );
  return rows[0] as SchemaCounts;
}
