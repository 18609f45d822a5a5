import type { Queryable } from '../pool.js';
import { KEY_VECTOR_WEIGHT } from '../../domain/scoring.js';
import { vectorList } from './vector.js';

/*
 * The pipeline's chunk writes with their index keys finished in the same statement
 * (docs/recall.md "Index keys"). memloom_refresh_chunk_keys (the BM25 migration) stays the
 * definition of a key and the path of rare writers (import, deletes); these statements build the
 * same keys for a batch in one pass, so a chunk is written once instead of inserted and then
 * rewritten, and the statistics triggers run once per statement over the batch.
 * test/bm25.test.ts checks that a full rebuild afterwards changes no key.
 */

/**
 * Takes the transaction-scoped lock of each session the rows go to (the key memloom_lock_sessions
 * uses), in its own statement before the write, so the write's snapshot holds the chunks of any
 * writer of the same session that committed meanwhile.
 */
export async function lockSessionsOfRows(tx: Queryable, rows: Array<{ dataset: string; user_id: string | null; session_id: string | null }>): Promise<void> {
  const sessions = rows.filter((r) => r.session_id !== null).map((r) => ({ dataset: r.dataset, user_id: r.user_id, session_id: r.session_id }));
  if (sessions.length === 0) return;
  await tx.query(
    `SELECT count(pg_advisory_xact_lock(k)) FROM (
       SELECT DISTINCT hashtextextended(concat_ws(chr(31), current_setting('app.tenant_id'), x.dataset, coalesce(x.user_id, ''), x.session_id), 727002) AS k
       FROM jsonb_to_recordset($1::jsonb) AS x(dataset text, user_id text, session_id text) ORDER BY 1) s`,
    [JSON.stringify(sessions)],
  );
}

/**
 * Inserts chunks (the rows of `json`: NewChunk with `fts_doc`) with finished keys, and rewrites
 * the keys of the existing chunks whose context they enter, in one statement. A new chunk's
 * context is found by a window over the new chunks plus, per new chunk, the two existing chunks
 * before and the two after its position (index walks): the two true predecessors and the true
 * successor of a new chunk are always in that set, adjacent in the window. An existing chunk
 * whose previous, second previous or next chunk is new takes that part from the same window and
 * the others from its own context (index walks). Its second previous part comes from the window
 * when its previous or second previous chunk is new: then the window holds both of its true
 * predecessors in order (the new one's are all there, and so is the first existing chunk after a
 * new one); otherwise both are existing, and the walk finds them. Keys of existing chunks lose no vector part here:
 * new chunks have no vector yet (the embed stage rebuilds key vectors). Rows whose (event_id, idx)
 * exists already are left out (a replay writes nothing). Caller: lockSessionsOfRows first.
 * Returns the number of chunks inserted.
 * A chunk's occurred_at is its event's, read here rather than sent: a time JavaScript writes in a
 * form PostgreSQL does not read (year 0 as 0000) never makes the round trip.
 * A neighbour's row is read by primary key in a subquery, never joined on the neighbour function's
 * output: the planner cannot estimate that output and hash-joined a sequential scan of every chunk
 * instead (a statement whose cost grew with the table; migration 20261204010000).
 */
export async function insertChunksWithKeys(tx: Queryable, json: string, runId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH x AS MATERIALIZED (
       SELECT x.*, current_setting('app.tenant_id') AS tenant_id, coalesce(x.user_id, '') AS uk, e.seq AS event_seq, e.occurred_at,
              to_tsvector('simple', x.fts_doc) AS own, memloom_meta_key(to_tsvector('simple', x.meta_doc)) AS meta
       FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, idx int, content text, start_offset int, end_offset int, tokens int,
            content_hash text, fts_doc text, meta_doc text, dataset text, user_id text, agent_id text, session_id text)
       JOIN events e ON e.id = x.event_id
       WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.event_id = x.event_id AND c.idx = x.idx)),
     near AS MATERIALIZED (
       SELECT DISTINCT n.id FROM x,
         LATERAL memloom_chunk_context(x.tenant_id, x.dataset, x.uk, x.session_id, x.occurred_at, x.event_seq, x.idx) w,
         LATERAL unnest(ARRAY[w.prev2, w.prev, w.next, w.next2]) AS n(id)
       WHERE x.session_id IS NOT NULL AND n.id IS NOT NULL),
     pool AS (
       SELECT NULL::uuid AS id, event_id, idx, tenant_id, dataset, uk, session_id, occurred_at, event_seq, own FROM x WHERE session_id IS NOT NULL
       UNION ALL
       SELECT c.id, c.event_id, c.idx, c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, ts_filter(c.fts, '{d}')
       FROM near JOIN chunks c USING (id)),
     win AS MATERIALIZED (
       SELECT p.id, p.event_id, p.idx, lag(p.own) OVER w AS prev_own, lead(p.own) OVER w AS next_own, lag(p.own, 2) OVER w AS prev2_own,
              coalesce(lag(p.id IS NULL) OVER w, false) AS prev_new, coalesce(lead(p.id IS NULL) OVER w, false) AS next_new,
              coalesce(lag(p.id IS NULL, 2) OVER w, false) AS prev2_new
       FROM pool p WINDOW w AS (PARTITION BY p.tenant_id, p.dataset, p.uk, p.session_id ORDER BY p.occurred_at, p.event_seq, p.idx)),
     ins AS (
       INSERT INTO chunks (event_id, event_seq, idx, content, start_offset, end_offset, tokens, content_hash, dataset, user_id, agent_id, session_id, occurred_at, fts, run_id)
       SELECT x.event_id, x.event_seq, x.idx, x.content, x.start_offset, x.end_offset, x.tokens, x.content_hash, x.dataset, x.user_id, x.agent_id, x.session_id, x.occurred_at,
              x.own || x.meta
                || setweight(coalesce(w.prev_own, ''::tsvector), 'C') || setweight(coalesce(w.next_own, ''::tsvector), 'B')
                || setweight(coalesce(w.prev2_own, ''::tsvector), 'B'),
              $2
       FROM x LEFT JOIN win w ON w.id IS NULL AND w.event_id = x.event_id AND w.idx = x.idx
       ON CONFLICT (event_id, idx) DO NOTHING
       RETURNING 1),
     nb AS (
       SELECT c.id, ts_filter(c.fts, '{d}') || memloom_meta_key(ts_filter(c.fts, '{a}'))
                || setweight(CASE WHEN w.prev_new THEN w.prev_own
                                  ELSE coalesce((SELECT ts_filter(p.fts, '{d}') FROM chunks p WHERE p.id = n.prev), ''::tsvector) END, 'C')
                || setweight(CASE WHEN w.next_new THEN w.next_own
                                  ELSE coalesce((SELECT ts_filter(nx.fts, '{d}') FROM chunks nx WHERE nx.id = n.next), ''::tsvector) END, 'B')
                || setweight(CASE WHEN w.prev_new OR w.prev2_new THEN coalesce(w.prev2_own, ''::tsvector)
                                  ELSE coalesce((SELECT ts_filter(p2.fts, '{d}') FROM chunks p2 WHERE p2.id = n.prev2), ''::tsvector) END, 'B') AS fts
       FROM win w JOIN chunks c ON c.id = w.id
       CROSS JOIN LATERAL memloom_chunk_context(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) n
       WHERE w.prev_new OR w.next_new OR w.prev2_new),
     upd AS (
       UPDATE chunks c SET fts = o.fts FROM nb o WHERE c.id = o.id AND c.fts <> o.fts RETURNING 1)
     SELECT (SELECT count(*) FROM ins)::int AS n, (SELECT count(*) FROM upd)::int AS updated`,
    [json, runId],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Writes own vectors (only where still missing: a concurrent replay cannot overwrite or double)
 * and, in the same statement, the key vectors of these chunks and of their neighbours: own vector
 * + 0.5 previous + 0.3 next own vector (KEY_VECTOR_WEIGHT; same model and dimensions), as memloom_refresh_chunk_keys.
 * A neighbour's own vector is the one written here when it is among the rows. Caller: the
 * sessions' locks first (memloom_lock_sessions). At most MAX_VECTORS_PER_STATEMENT rows.
 * Neighbours' rows by primary key (LIMIT 1 keeps the lateral subquery from becoming a join), as in
 * insertChunksWithKeys.
 */
export async function writeVectorsWithKeys(tx: Queryable, rows: Array<{ id: string; vector: number[] }>, model: string, dims: number): Promise<void> {
  const params: unknown[] = [rows.map((r) => r.id), model, dims];
  const vectors = vectorList(
    params,
    rows.map((r) => r.vector),
  );
  await tx.query(
    `WITH t AS MATERIALIZED (
       SELECT c.id, v.embedding AS own FROM unnest($1::uuid[], ${vectors}) AS v(id, embedding) JOIN chunks c ON c.id = v.id WHERE c.embedding IS NULL),
     touched AS MATERIALIZED (
       SELECT id FROM t
       UNION SELECT n.id FROM t JOIN chunks c USING (id),
         LATERAL memloom_chunk_neighbours(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) w,
         LATERAL unnest(ARRAY[w.prev, w.next]) AS n(id)
       WHERE c.session_id IS NOT NULL AND n.id IS NOT NULL),
     r AS MATERIALIZED (
       SELECT c.id, t.id IS NOT NULL AS mine, c.embedding,
              coalesce(t.own, c.own_embedding) AS own, CASE WHEN t.id IS NOT NULL THEN $2 ELSE c.embedding_model END AS model,
              coalesce(tp.own, p.own_embedding) AS pown, CASE WHEN tp.id IS NOT NULL THEN $2 ELSE p.embedding_model END AS pmodel,
              coalesce(tx.own, x.own_embedding) AS xown, CASE WHEN tx.id IS NOT NULL THEN $2 ELSE x.embedding_model END AS xmodel
       FROM touched JOIN chunks c USING (id)
       LEFT JOIN t ON t.id = c.id
       CROSS JOIN LATERAL memloom_chunk_neighbours(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) n
       LEFT JOIN LATERAL (SELECT p.own_embedding, p.embedding_model FROM chunks p WHERE p.id = n.prev LIMIT 1) p ON true LEFT JOIN t tp ON tp.id = n.prev
       LEFT JOIN LATERAL (SELECT x.own_embedding, x.embedding_model FROM chunks x WHERE x.id = n.next LIMIT 1) x ON true LEFT JOIN t tx ON tx.id = n.next),
     v AS (
       SELECT r.id, r.mine, r.own, r.embedding AS old,
              CASE WHEN r.pmodel = r.model AND vector_dims(r.pown) = vector_dims(r.own) THEN r.pown END AS pvec,
              CASE WHEN r.xmodel = r.model AND vector_dims(r.xown) = vector_dims(r.own) THEN r.xown END AS xvec
       FROM r),
     scale AS (
       SELECT d, array_fill(${KEY_VECTOR_WEIGHT.previous}::real, ARRAY[d])::vector AS prev, array_fill(${KEY_VECTOR_WEIGHT.next}::real, ARRAY[d])::vector AS next
       FROM (SELECT DISTINCT vector_dims(own) AS d FROM v WHERE own IS NOT NULL) dims),
     keyed AS (
       SELECT v.id, v.mine, v.own,
              CASE WHEN v.own IS NULL THEN v.old
                   WHEN v.pvec IS NULL AND v.xvec IS NULL THEN v.own
                   WHEN v.xvec IS NULL THEN v.own + v.pvec * s.prev
                   WHEN v.pvec IS NULL THEN v.own + v.xvec * s.next
                   ELSE v.own + v.pvec * s.prev + v.xvec * s.next END AS embedding
       FROM v LEFT JOIN scale s ON s.d = vector_dims(v.own))
     UPDATE chunks c SET own_embedding = CASE WHEN k.mine THEN k.own ELSE c.own_embedding END, embedding = k.embedding,
            embedding_model = CASE WHEN k.mine THEN $2 ELSE c.embedding_model END, embedding_dims = CASE WHEN k.mine THEN $3 ELSE c.embedding_dims END
     FROM keyed k WHERE c.id = k.id AND (k.mine OR c.embedding IS DISTINCT FROM k.embedding)`,
    params,
  );
}
