import type { Queryable } from '../pool.js';
import { completeNameParts, joinNameParts } from './entity-persons.js';
import { MAX_VECTORS_PER_STATEMENT, vectorList } from './vector.js';

export interface EntityInput {
  name: string;
  normalized: string;
  type: string;
  description: string;
  ftsDoc: string;
  vector: number[];
}

/** A graph scope: entities and edges belong to one (dataset, user) of the tenant, like memories. */
export interface GraphScope {
  dataset: string;
  userId: string | null;
}

/** Recently touched entity names of one scope, offered to extractors so they reuse exact names. */
export async function knownEntities(tx: Queryable, scope: GraphScope, limit: number): Promise<Array<{ name: string; type: string }>> {
  const { rows } = await tx.query<{ name: string; type: string }>(
    `SELECT name, type FROM entities WHERE coalesce(user_id, '') = $1 AND dataset = $2 ORDER BY updated_at DESC LIMIT $3`,
    [scope.userId ?? '', scope.dataset, limit],
  );
  return rows;
}

/**
 * Resolves each input to an entity id of `scope` (never another user's or dataset's): (1) same
 * normalised name and type, (2) same normalised name of any type (types drift between
 * extractions), (3) a person's first name or surname and full name are one entity, whichever
 * comes first (src/db/sql/entity-persons.ts), (4) embedding similarity ≥
 * `threshold` within the same type, else (5) a new entity. Returns ids in input order; more inputs
 * than one statement takes (MAX_VECTORS_PER_STATEMENT) are resolved slice by slice. Idempotent:
 * the insert is ON CONFLICT on the scoped key (entities_scope_key) DO UPDATE, so replays and races converge.
 */
export async function resolveEntities(
  tx: Queryable,
  scope: GraphScope,
  inputs: EntityInput[],
  model: string,
  dims: number,
  threshold: number,
): Promise<string[]> {
  if (inputs.length === 0) return [];
  if (inputs.length > MAX_VECTORS_PER_STATEMENT) {
    const ids: string[] = [];
    for (let i = 0; i < inputs.length; i += MAX_VECTORS_PER_STATEMENT)
      ids.push(...(await resolveEntities(tx, scope, inputs.slice(i, i + MAX_VECTORS_PER_STATEMENT), model, dims, threshold)));
    return ids;
  }
  const user = scope.userId ?? '';
  const { rows: byName } = await tx.query<{ normalized_name: string; type: string; id: string }>(
    `SELECT DISTINCT ON (normalized_name, type) normalized_name, type, id FROM entities
     WHERE normalized_name = ANY($1::text[]) AND coalesce(user_id, '') = $2 AND dataset = $3 ORDER BY normalized_name, type, created_at`,
    [inputs.map((i) => i.normalized), user, scope.dataset],
  );
  const ids: Array<string | undefined> = inputs.map(
    (i) => byName.find((r) => r.normalized_name === i.normalized && r.type === i.type)?.id ?? byName.find((r) => r.normalized_name === i.normalized)?.id,
  );
  // A stored first name takes the full name first, so a surname of this pass can then join it.
  await completeNameParts(tx, scope, inputs, ids);
  await joinNameParts(tx, scope, inputs, ids);
  const unresolved = inputs.map((inp, i) => ({ inp, i })).filter(({ i }) => ids[i] === undefined);
  if (unresolved.length > 0) {
    const params: unknown[] = [unresolved.map(({ i }) => i), model, threshold, unresolved.map(({ inp }) => inp.type), user, scope.dataset];
    const vectors = vectorList(
      params,
      unresolved.map(({ inp }) => inp.vector),
    );
    const { rows: similar } = await tx.query<{ i: number; id: string; sim: number }>(
      // Query vectors cast once (MATERIALIZED), not per entity row compared.
      `WITH q AS MATERIALIZED (SELECT i, v::vector(${dims}) AS v, type FROM unnest($1::int[], $4::text[], ${vectors}) AS x(i, type, v))
       SELECT q.i, n.id, n.sim FROM q
       CROSS JOIN LATERAL (
         SELECT e.id, 1 - (e.embedding::vector(${dims}) <=> q.v) AS sim FROM entities e
         WHERE e.type = q.type AND e.embedding_dims = ${dims} AND e.embedding_model = $2 AND coalesce(e.user_id, '') = $5 AND e.dataset = $6
         ORDER BY e.embedding::vector(${dims}) <=> q.v LIMIT 1) n
       WHERE n.sim >= $3`,
      params,
    );
    for (const s of similar) ids[s.i] = s.id;
  }
  const toInsert = inputs.map((inp, i) => ({ inp, i })).filter(({ i }) => ids[i] === undefined);
  if (toInsert.length > 0) {
    const params: unknown[] = [
      JSON.stringify(
        toInsert.map(({ inp }, i) => ({ i, name: inp.name, normalized: inp.normalized, type: inp.type, description: inp.description, fts_doc: inp.ftsDoc })),
      ),
      model,
      dims,
      scope.dataset,
      scope.userId,
    ];
    const vectors = vectorList(
      params,
      toInsert.map(({ inp }) => inp.vector),
    );
    const { rows: inserted } = await tx.query<{ id: string; normalized_name: string; type: string }>(
      `INSERT INTO entities (name, normalized_name, type, description, fts, embedding, embedding_model, embedding_dims, dataset, user_id)
       SELECT name, normalized, type, description, to_tsvector('simple', fts_doc), vv.v, $2, $3, $4, $5::text
       FROM jsonb_to_recordset($1::jsonb) AS x(i int, name text, normalized text, type text, description text, fts_doc text)
       JOIN unnest(${vectors}) WITH ORDINALITY AS vv(v, n) ON vv.n = x.i + 1
       -- Unique-key order: two passes naming the same entities in other orders must not deadlock.
       ORDER BY normalized, type
       ON CONFLICT (tenant_id, dataset, (coalesce(user_id, '')), normalized_name, type) DO UPDATE SET updated_at = now()
       RETURNING id, normalized_name, type`,
      params,
    );
    for (const { inp, i } of toInsert) ids[i] = inserted.find((r) => r.normalized_name === inp.normalized && r.type === inp.type)?.id;
  }
  // Reused entities: fill an empty description, mark as recently seen. Rows another pass holds
  // are skipped (SKIP LOCKED): that pass marks them seen itself, and waiting here, after the insert
  // above took its locks in name order, could close a cycle with it (deadlock detected).
  const reused = inputs.map((inp, i) => ({ id: ids[i] as string, description: inp.description }));
  await tx.query(
    `UPDATE entities e SET updated_at = now(), description = CASE WHEN e.description = '' THEN x.description ELSE e.description END
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, description text)
     WHERE e.id = x.id AND e.id IN (SELECT id FROM entities WHERE id = ANY($2::uuid[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)`,
    [JSON.stringify(reused), [...new Set(reused.map((r) => r.id))]],
  );
  return ids as string[];
}

export interface EdgeInput {
  sourceId: string;
  targetId: string;
  relation: string;
  description: string;
  ftsDoc: string;
  validAt: string;
}

/**
 * Upserts triplets on (scope, source, target, relation); returns ids in input order. The scope is
 * the ends' (a trigger copies it from the source entity and refuses an edge between two scopes).
 */
export async function upsertEdges(tx: Queryable, edges: EdgeInput[]): Promise<string[]> {
  if (edges.length === 0) return [];
  const { rows } = await tx.query<{ id: string; source_entity_id: string; target_entity_id: string; relation: string }>(
    `INSERT INTO edges (source_entity_id, target_entity_id, relation, description, fts, valid_at)
     SELECT DISTINCT ON (s, t, r) s, t, r, d, to_tsvector('simple', f), va
     FROM jsonb_to_recordset($1::jsonb) AS x(s uuid, t uuid, r text, d text, f text, va timestamptz)
     ORDER BY s, t, r -- unique-key order (no deadlock between passes upserting the same edges)
     ON CONFLICT (tenant_id, dataset, (coalesce(user_id, '')), source_entity_id, target_entity_id, relation) DO UPDATE SET updated_at = now(),
       description = CASE WHEN edges.description = '' THEN EXCLUDED.description ELSE edges.description END
     RETURNING id, source_entity_id, target_entity_id, relation`,
    [JSON.stringify(edges.map((e) => ({ s: e.sourceId, t: e.targetId, r: e.relation, d: e.description, f: e.ftsDoc, va: e.validAt })))],
  );
  return edges.map((e) => rows.find((r) => r.source_entity_id === e.sourceId && r.target_entity_id === e.targetId && r.relation === e.relation)?.id as string);
}
