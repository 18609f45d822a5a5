import type { Slot } from '../../domain/slots.js';
import type { Queryable } from '../pool.js';
import { EXACT_SCAN_MAX, setVectorSearch } from './recall.js';
import { MAX_VECTORS_PER_STATEMENT, vectorList, vectorParam, type VectorSpace } from './vector.js';

export interface MemoryNeighbour {
  id: string;
  kind: string;
  content: string;
  content_hash: string;
  subject_entity_id: string | null;
  version: number;
  /** When the memory's evidence happened (shown to a reconcile model as a date). */
  occurred_at: Date;
  /** Start of its validity: its event time (a correction's: when it was made). */
  valid_from: Date;
  /** What it states a value of (src/domain/slots.ts), when its kind states one. */
  slot: Slot | null;
  similarity: number;
}

/**
 * For each query vector, the `limit` active memories of one user scope nearest to it, plus the
 * memories with its exact content hash, in one statement (one round trip per pass instead of one
 * per unit); returns the neighbours of each query in input order.
 *
 * As in recall (src/db/sql/recall.ts), a scope of up to EXACT_SCAN_MAX rows is scored exactly
 * through the scope index (the true nearest neighbours, for the cost of scoring the user's rows);
 * a larger scope walks the HNSW graph, which holds every user's memories, with iterative scans on
 * so that filtering to one user does not starve it. The exact path reads the user's rows once for
 * all units and computes each distance once (20 units over 442 memories: 33 → 21 ms).
 * Only memories of the queries' model (`space`) are compared; the exact content-hash match holds
 * whatever model a row's vector has.
 */
export async function nearestMemoriesBatch(
  tx: Queryable,
  scope: { userId: string | null },
  queries: Array<{ vector: number[]; hash: string }>,
  space: VectorSpace,
  limit: number,
  exactMax = EXACT_SCAN_MAX,
): Promise<MemoryNeighbour[][]> {
  if (queries.length === 0) return [];
  if (queries.length > MAX_VECTORS_PER_STATEMENT) {
    const out: MemoryNeighbour[][] = [];
    for (let i = 0; i < queries.length; i += MAX_VECTORS_PER_STATEMENT)
      out.push(...(await nearestMemoriesBatch(tx, scope, queries.slice(i, i + MAX_VECTORS_PER_STATEMENT), space, limit, exactMax)));
    return out;
  }
  // `user_id = $1` (or IS NULL), not IS NOT DISTINCT FROM: only these reach the scope index, the
  // other scans every active memory of the tenant.
  const user = scope.userId === null ? 'user_id IS NULL AND $1::text IS NULL' : 'user_id = $1';
  const dims = space.dims;
  const params: unknown[] = [scope.userId, queries.map((q) => q.hash), limit, space.model];
  const vectors = vectorList(
    params,
    queries.map((q) => q.vector),
  );
  const names = ['id', 'kind', 'content', 'content_hash', 'subject_entity_id', 'version', 'occurred_at', 'valid_from', 'slot'];
  const columns = names.join(', ');
  const of = (table: string) => names.map((c) => `${table}.${c}`).join(', ');
  const queryVectors = `q AS MATERIALIZED (SELECT (n - 1)::int AS i, v::vector(${dims}) AS v, h FROM unnest($2::text[], ${vectors}) WITH ORDINALITY AS x(h, v, n))`;
  // The exact path first, without asking the scope's size: it reads at most exactMax + 1 rows of
  // the scope once for all units and computes each distance once (OFFSET 0 keeps the planner from
  // folding the subquery and computing it again for `similarity`); a scope past exactMax answers
  // nothing (the `small` test is a one-time filter, so its distances are never computed).
  const { rows } = await tx.query<MemoryNeighbour & { i: number }>(
    `WITH ${queryVectors},
       pool AS MATERIALIZED (SELECT ${columns}, embedding FROM memories WHERE status = 'active' AND embedding_dims = ${dims} AND embedding_model = $4 AND ${user} LIMIT ${exactMax + 1}),
       small AS MATERIALIZED (SELECT count(*) <= ${exactMax} AS ok FROM pool)
     SELECT q.i, n.* FROM q CROSS JOIN LATERAL (
       SELECT ${columns}, 1 - d AS similarity FROM (SELECT ${columns}, p.embedding <=> q.v AS d FROM pool p WHERE (SELECT ok FROM small) OFFSET 0) s ORDER BY d LIMIT $3) n
     UNION
     SELECT q.i, ${of('p')}, 1.0 FROM q JOIN pool p ON p.content_hash = q.h WHERE (SELECT ok FROM small)`,
    params,
  );
  // No row: the scope is empty, or past exactMax, where the HNSW graph (it holds every user's
  // memories) is walked with iterative scans on, so that filtering to one user does not starve it.
  if (rows.length === 0) {
    const { rows: size } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM memories WHERE status = 'active' AND embedding_dims = ${dims} AND embedding_model = $3 AND ${user} LIMIT $2) s`,
      [scope.userId, exactMax + 1, space.model],
    );
    if ((size[0]?.n ?? 0) <= exactMax) return queries.map(() => []);
    await setVectorSearch(tx, true, Math.max(200, 8 * limit));
    // The HNSW index is on embedding::vector(dims); the uncast column does not match it.
    rows.push(
      ...(
        await tx.query<MemoryNeighbour & { i: number }>(
          `WITH ${queryVectors}
           SELECT q.i, n.* FROM q CROSS JOIN LATERAL (
             SELECT ${columns}, 1 - (embedding::vector(${dims}) <=> q.v) AS similarity
             FROM memories WHERE status = 'active' AND embedding_dims = ${dims} AND embedding_model = $4 AND ${user}
             ORDER BY embedding::vector(${dims}) <=> q.v LIMIT $3) n
           UNION
           SELECT q.i, ${of('m')}, 1.0
           FROM q JOIN memories m ON m.content_hash = q.h AND m.status = 'active' AND coalesce(m.user_id, '') = coalesce($1, '')`,
          params,
        )
      ).rows,
    );
  }
  const out: MemoryNeighbour[][] = queries.map(() => []);
  for (const { i, ...n } of rows) out[i]?.push(n);
  return out;
}

/** Active memories of a slot looked at per unit: the most recent ones holding any of its keys. */
export const SLOT_CANDIDATES = 20;

/**
 * For each unit's slot keys (src/domain/slots.ts slotKeys), the active memories of one user scope
 * that hold any of them (the GIN index on slot_keys), most recent first, at most `limit` per unit,
 * in one statement; similarity is not computed here (0). Returns them per unit in input order.
 */
export async function slotCandidatesBatch(
  tx: Queryable,
  scope: { userId: string | null },
  keys: string[][],
  limit = SLOT_CANDIDATES,
): Promise<MemoryNeighbour[][]> {
  if (keys.every((k) => k.length === 0)) return keys.map(() => []);
  const user = scope.userId === null ? 'm.user_id IS NULL AND $1::text IS NULL' : 'm.user_id = $1';
  const { rows } = await tx.query<MemoryNeighbour & { i: number }>(
    `SELECT q.i, n.* FROM (SELECT (ord - 1)::int AS i, k FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(k, ord)) q
     CROSS JOIN LATERAL (
       SELECT m.id, m.kind, m.content, m.content_hash, m.subject_entity_id, m.version, m.occurred_at, m.valid_from, m.slot, 0::float8 AS similarity
       FROM memories m
       WHERE m.status = 'active' AND m.slot_keys IS NOT NULL AND m.slot_keys && ARRAY(SELECT jsonb_array_elements_text(q.k)) AND ${user}
       ORDER BY m.valid_from DESC LIMIT $3) n`,
    [scope.userId, JSON.stringify(keys), limit],
  );
  const out: MemoryNeighbour[][] = keys.map(() => []);
  for (const { i, ...n } of rows) out[i]?.push(n);
  return out;
}

export interface MemoryInsert {
  kind: string;
  content: string;
  content_hash: string;
  fts_doc: string;
  vector: number[];
  importance: number;
  confidence: number;
  event_time: string | null;
  time_precision: string | null;
  occurred_at: string;
  subject_entity_id: string | null;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  source_event_ids: string[];
  version: number;
  /** The unit's slot and its index keys (src/domain/slots.ts), or null. */
  slot?: Slot | null;
  slot_keys?: string[] | null;
}

/** Per-kind default TTLs (config TTL_DEFAULTS: memory kind → ISO-8601 duration). */
export type TtlDefaults = ReadonlyMap<string, string>;
const NO_TTL_DEFAULTS: TtlDefaults = new Map();
/** TTL_DEFAULTS as a jsonb object (kind → duration) for `($n::jsonb ->> kind)::interval`. */
const ttlJson = (defaults: TtlDefaults): string => JSON.stringify(Object.fromEntries(defaults));

/**
 * Inserts one active memory; returns its id, or the id of the active memory with the same content
 * in the same user scope (the partial unique index makes replays and races converge).
 * expires_at comes from the shortest TTL among the supporting events; without one, from the
 * memory's kind in `ttlDefaults` (occurred_at + default), as the TTL sweep's applyTtlDefaults
 * computes it for rows inserted without it.
 */
export async function insertMemory(
  tx: Queryable,
  m: MemoryInsert,
  model: string,
  dims: number,
  runId: string,
  ttlDefaults: TtlDefaults = NO_TTL_DEFAULTS,
): Promise<{ id: string; inserted: boolean }> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO memories (kind, content, content_hash, fts, embedding, embedding_model, embedding_dims, importance, confidence,
       event_time, time_precision, occurred_at, valid_from, subject_entity_id, dataset, user_id, agent_id, session_id, version, run_id, expires_at)
     VALUES ($1, $2, $3, to_tsvector('simple', $4), $5::vector, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15, $16, $17, $18, $19,
       coalesce((SELECT min(e.occurred_at + e.ttl) FROM events e WHERE e.id = ANY($20::uuid[]) AND e.ttl IS NOT NULL),
                $12::timestamptz + ($21::jsonb ->> $1::text)::interval))
     ON CONFLICT (tenant_id, coalesce(user_id, ''), content_hash) WHERE status = 'active' DO NOTHING
     RETURNING id`,
    [
      m.kind,
      m.content,
      m.content_hash,
      m.fts_doc,
      vectorParam(m.vector),
      model,
      dims,
      m.importance,
      m.confidence,
      m.event_time,
      m.time_precision,
      m.occurred_at,
      m.subject_entity_id,
      m.dataset,
      m.user_id,
      m.agent_id,
      m.session_id,
      m.version,
      runId,
      m.source_event_ids,
      ttlJson(ttlDefaults),
    ],
  );
  if (rows[0]) return { id: rows[0].id, inserted: true };
  const { rows: existing } = await tx.query<{ id: string }>(
    `SELECT id FROM memories WHERE status = 'active' AND coalesce(user_id, '') = coalesce($1, '') AND content_hash = $2`,
    [m.user_id, m.content_hash],
  );
  return { id: (existing[0] as { id: string }).id, inserted: false };
}

/**
 * insertMemory for many rows of one user scope in one statement: returns, in input order, each
 * row's id, or the id of the active memory that already had its content (then inserted = false).
 * expires_at as in insertMemory: the supporting events' shortest TTL, else the kind's default.
 * The supporting events are found by `id = ANY(array)`, a primary-key lookup; `IN (SELECT ...)`
 * became a semi-join that read every event of the tenant for each row (0.75 ms per memory after
 * 1,576 events).
 */
export async function insertMemories(
  tx: Queryable,
  rows: MemoryInsert[],
  model: string,
  dims: number,
  runId: string,
  ttlDefaults: TtlDefaults = NO_TTL_DEFAULTS,
): Promise<Array<{ id: string; inserted: boolean }>> {
  if (rows.length === 0) return [];
  if (rows.length > MAX_VECTORS_PER_STATEMENT) {
    const out: Array<{ id: string; inserted: boolean }> = [];
    for (let i = 0; i < rows.length; i += MAX_VECTORS_PER_STATEMENT)
      out.push(...(await insertMemories(tx, rows.slice(i, i + MAX_VECTORS_PER_STATEMENT), model, dims, runId, ttlDefaults)));
    return out;
  }
  const params: unknown[] = [
    JSON.stringify(rows.map((m, i) => ({ ...m, i, vector: undefined, src: m.source_event_ids }))),
    model,
    dims,
    runId,
    ttlJson(ttlDefaults),
  ];
  const vectors = vectorList(
    params,
    rows.map((m) => m.vector),
  );
  const { rows: inserted } = await tx.query<{ id: string; content_hash: string; user_id: string | null }>(
    `INSERT INTO memories (kind, content, content_hash, fts, embedding, embedding_model, embedding_dims, importance, confidence,
       event_time, time_precision, occurred_at, valid_from, subject_entity_id, dataset, user_id, agent_id, session_id, version, run_id, slot, slot_keys, expires_at)
     SELECT kind, content, content_hash, to_tsvector('simple', fts_doc), vv.v, $2, $3, importance, confidence,
       event_time, time_precision, occurred_at, occurred_at, subject_entity_id, dataset, user_id, agent_id, session_id, version, $4,
       slot, CASE WHEN slot_keys IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(slot_keys)) END,
       coalesce((SELECT min(e.occurred_at + e.ttl) FROM events e WHERE e.id = ANY(ARRAY(SELECT jsonb_array_elements_text(x.src)::uuid)) AND e.ttl IS NOT NULL),
                occurred_at + ($5::jsonb ->> kind)::interval)
     FROM jsonb_to_recordset($1::jsonb) AS x(i int, kind text, content text, content_hash text, fts_doc text, importance smallint,
          confidence real, event_time timestamptz, time_precision text, occurred_at timestamptz, subject_entity_id uuid, dataset text,
          user_id text, agent_id text, session_id text, version int, src jsonb, slot jsonb, slot_keys jsonb)
     JOIN unnest(${vectors}) WITH ORDINALITY AS vv(v, n) ON vv.n = x.i + 1
     -- In unique-key order, not input order: two passes inserting the same units in different
     -- orders would each wait on the other's uncommitted row (deadlock detected).
     ORDER BY coalesce(user_id, ''), content_hash
     ON CONFLICT (tenant_id, coalesce(user_id, ''), content_hash) WHERE status = 'active' DO NOTHING
     RETURNING id, content_hash, user_id`,
    params,
  );
  const key = (userId: string | null, hash: string) => `${userId ?? ''}\u0000${hash}`;
  const ids = new Map(inserted.map((r) => [key(r.user_id, r.content_hash), r.id]));
  const missing = rows.filter((m) => !ids.has(key(m.user_id, m.content_hash)));
  const existing = new Map<string, string>();
  if (missing.length > 0) {
    const { rows: found } = await tx.query<{ id: string; content_hash: string; user_id: string | null }>(
      `SELECT m.id, m.content_hash, m.user_id FROM memories m JOIN jsonb_to_recordset($1::jsonb) AS x(u text, h text)
         ON coalesce(m.user_id, '') = coalesce(x.u, '') AND m.content_hash = x.h
       WHERE m.status = 'active'`,
      [JSON.stringify(missing.map((m) => ({ u: m.user_id, h: m.content_hash })))],
    );
    for (const r of found) existing.set(key(r.user_id, r.content_hash), r.id);
  }
  return rows.map((m) => {
    const k = key(m.user_id, m.content_hash);
    const id = ids.get(k);
    return id !== undefined ? { id, inserted: true } : { id: existing.get(k) as string, inserted: false };
  });
}

/**
 * Which of `ids` are still active memories of the user scope, with their versions. A reconcile
 * decision made outside the write transaction (by a model) re-checks its target here, inside it:
 * a target superseded or forgotten meanwhile sends the unit back to the rules. Takes no lock: the
 * supersede that follows is guarded by `status = 'active'` itself.
 */
export async function activeMemoryVersions(tx: Queryable, scope: { userId: string | null }, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; version: number }>(
    `SELECT id, version FROM memories WHERE id = ANY($1::uuid[]) AND status = 'active' AND user_id IS NOT DISTINCT FROM $2`,
    [ids, scope.userId],
  );
  return new Map(rows.map((r) => [r.id, r.version]));
}

/** CONFIRM: more evidence; confidence only grows. */
/**
 * Locks existing memories a pass is about to confirm or supersede, in id order, before it updates
 * them one by one in plan order: two passes of one user touching the same memories then never wait
 * on each other in opposite orders.
 */
/** Locks the memories a pass will confirm or supersede, in id order, and returns their confidence. */
export async function lockMemories(tx: Queryable, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; confidence: number }>(
    'SELECT id, confidence FROM memories WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE',
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, r.confidence]));
}

/**
 * Confidence after `confirmations` in order, each lifting it to at least its own confidence and then
 * by 0.05, up to 0.99 (evidence only ever raises it); computed in float4 steps as the `real` column
 * would store each one.
 */
export function confirmedConfidence(current: number, confirmations: number[]): number {
  const f = Math.fround;
  let c = f(current);
  for (const x of confirmations) c = Math.min(f(0.99), f(Math.max(c, f(x)) + f(0.05)));
  return c;
}

/** Sets the confidence of confirmed memories, all in one statement (confirmedConfidence). */
export async function setConfidences(tx: Queryable, values: Array<{ id: string; confidence: number }>): Promise<void> {
  if (values.length === 0) return;
  await tx.query(
    `UPDATE memories m SET confidence = x.confidence, updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, confidence real) WHERE m.id = x.id`,
    [JSON.stringify(values)],
  );
}

/** UPDATE: the old version leaves the active set and points at its successor (never overwritten). */
export async function supersedeMemory(tx: Queryable, oldId: string, newId: string): Promise<void> {
  await supersedeMemories(tx, [{ oldId, newId }]);
}

/** supersedeMemory for many pairs in one statement; an old memory named twice goes to its first successor. */
export async function supersedeMemories(tx: Queryable, pairs: Array<{ oldId: string; newId: string }>): Promise<void> {
  const first = new Map<string, string>();
  for (const { oldId, newId } of pairs) if (!first.has(oldId)) first.set(oldId, newId);
  if (first.size === 0) return;
  await tx.query(
    `UPDATE memories o SET status = 'superseded', superseded_by = n.id, superseded_at = n.valid_from, updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS x(old uuid, new uuid) JOIN memories n ON n.id = x.new
     WHERE o.id = x.old AND o.status = 'active'`,
    [JSON.stringify([...first].map(([old, neu]) => ({ old, new: neu })))],
  );
}

/**
 * A new version's full-text key takes in its predecessor's, minus the old value's tokens
 * (`drop`): "the deadline moved to October 14" is then found by "grant" like the "grant
 * application deadline is September 30" it replaced, so the current value answers the question
 * the old one did. A chain carries its words along, each version from the one before. One statement.
 */
export async function inheritKeys(tx: Queryable, pairs: Array<{ oldId: string; newId: string; drop: string[] }>): Promise<void> {
  if (pairs.length === 0) return;
  await tx.query(
    `UPDATE memories n SET fts = n.fts || ts_delete(o.fts, ARRAY(SELECT jsonb_array_elements_text(x.d)))
     FROM jsonb_to_recordset($1::jsonb) AS x(o uuid, n uuid, d jsonb) JOIN memories o ON o.id = x.o
     WHERE n.id = x.n`,
    [JSON.stringify(pairs.map((p) => ({ o: p.oldId, n: p.newId, d: p.drop })))],
  );
}

/**
 * Edges end when the statement they came from no longer holds: for each superseded memory, the
 * current edges supported only by its events (no other event backs them) that state its old value
 * (an end entity named by one of `values`, or the memory's own text as their description) get
 * invalid_at = its successor's valid_from. Graph recall then leaves them out, and as_of before
 * that time still finds them.
 */
export async function endEdgesOf(tx: Queryable, ended: Array<{ memoryId: string; values: string[] }>): Promise<void> {
  if (ended.length === 0) return;
  await tx.query(
    `UPDATE edges ed SET invalid_at = m.superseded_at
     FROM jsonb_to_recordset($1::jsonb) AS x(m uuid, v jsonb) JOIN memories m ON m.id = x.m
     WHERE ed.invalid_at IS NULL AND m.superseded_at IS NOT NULL
       AND EXISTS (SELECT 1 FROM provenance pe WHERE pe.object_type = 'edge' AND pe.object_id = ed.id)
       AND NOT EXISTS (
         SELECT 1 FROM provenance pe WHERE pe.object_type = 'edge' AND pe.object_id = ed.id
           AND NOT EXISTS (SELECT 1 FROM provenance pm WHERE pm.object_type = 'memory' AND pm.object_id = m.id AND pm.event_id = pe.event_id))
       AND (ed.description = m.content
            OR EXISTS (SELECT 1 FROM entities en WHERE en.id IN (ed.source_entity_id, ed.target_entity_id)
                       AND en.normalized_name IN (SELECT jsonb_array_elements_text(x.v))))`,
    [JSON.stringify(ended.map((e) => ({ m: e.memoryId, v: e.values })))],
  );
}

export type MemoryRelation = 'replaces' | 'enriches' | 'confirms' | 'challenges';

export async function relateMemories(
  tx: Queryable,
  fromId: string,
  toId: string,
  relation: MemoryRelation,
  isProgression: boolean,
): Promise<string | undefined> {
  return (await relateMemoriesBatch(tx, [{ fromId, toId, relation, isProgression }]))[0];
}

/**
 * Relations between memories in one statement; returns each one's id in input order. A relation
 * given twice keeps its last is_progression, as two single inserts would.
 */
export async function relateMemoriesBatch(
  tx: Queryable,
  relations: Array<{ fromId: string; toId: string; relation: MemoryRelation; isProgression: boolean }>,
): Promise<Array<string | undefined>> {
  if (relations.length === 0) return [];
  const key = (r: { fromId: string; toId: string; relation: string }) => `${r.fromId}/${r.toId}/${r.relation}`;
  const last = new Map(relations.map((r) => [key(r), r]));
  const { rows } = await tx.query<{ id: string; from_memory_id: string; to_memory_id: string; relation: string }>(
    `INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression)
     SELECT f, t, r, p FROM jsonb_to_recordset($1::jsonb) AS x(f uuid, t uuid, r text, p boolean) ORDER BY f, t, r
     ON CONFLICT (from_memory_id, to_memory_id, relation) DO UPDATE SET is_progression = EXCLUDED.is_progression
     RETURNING id, from_memory_id, to_memory_id, relation`,
    [JSON.stringify([...last.values()].map((r) => ({ f: r.fromId, t: r.toId, r: r.relation, p: r.isProgression })))],
  );
  const ids = new Map(rows.map((r) => [key({ fromId: r.from_memory_id, toId: r.to_memory_id, relation: r.relation }), r.id]));
  return relations.map((r) => ids.get(key(r)));
}

export async function linkMemoryEntities(tx: Queryable, links: Array<{ memoryId: string; entityId: string }>): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `INSERT INTO memory_entities (memory_id, entity_id) SELECT m, e FROM jsonb_to_recordset($1::jsonb) AS x(m uuid, e uuid) ORDER BY m, e ON CONFLICT DO NOTHING`,
    [JSON.stringify(links.map((l) => ({ m: l.memoryId, e: l.entityId })))],
  );
}
