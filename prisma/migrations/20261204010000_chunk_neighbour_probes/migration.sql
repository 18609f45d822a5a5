-- A chunk's neighbours are found by memloom_chunk_neighbours (index walks); their rows were then
-- joined with a plain LEFT JOIN on its output. The planner cannot estimate that output, and with
-- PGlite's statistics it chose a hash join over a sequential scan of every chunk of the tenant, a
-- cost that grew with the table (measured: 2 × 10 ms at 6,500 chunks in the pipeline's chunk insert,
-- which does the same; src/db/sql/chunk-keys.ts). The neighbours' rows are now read by primary key,
-- one probe each (LIMIT 1 keeps the subquery from being flattened back into a join).
CREATE OR REPLACE FUNCTION memloom_refresh_chunk_keys(ids uuid[], parts text DEFAULT 'all') RETURNS void LANGUAGE sql AS $$
  WITH seed AS (
    SELECT c.tenant_id, c.dataset, coalesce(c.user_id, '') AS uk, c.session_id, c.occurred_at, c.event_seq, c.idx, c.id
    FROM chunks c WHERE c.id = ANY(ids)
  ), touched AS (
    SELECT id FROM seed
    UNION SELECT unnest(ARRAY[n.prev, n.next]) FROM seed s, memloom_chunk_neighbours(s.tenant_id, s.dataset, s.uk, s.session_id, s.occurred_at, s.event_seq, s.idx) n
  ), rows AS (
    SELECT c.id, c.fts, c.own_embedding, c.embedding, c.embedding_model, c.occurred_at, e.metadata->>'speaker' AS speaker, p.fts AS pfts, x.fts AS xfts,
           CASE WHEN p.embedding_model = c.embedding_model AND vector_dims(p.own_embedding) = vector_dims(c.own_embedding) THEN p.own_embedding END AS pvec,
           CASE WHEN x.embedding_model = c.embedding_model AND vector_dims(x.own_embedding) = vector_dims(c.own_embedding) THEN x.own_embedding END AS xvec
    FROM touched t
    JOIN chunks c ON c.id = t.id
    LEFT JOIN events e ON parts <> 'vector' AND e.id = c.event_id
    CROSS JOIN LATERAL memloom_chunk_neighbours(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) n
    LEFT JOIN LATERAL (SELECT p.fts, p.own_embedding, p.embedding_model FROM chunks p WHERE p.id = n.prev LIMIT 1) p ON true
    LEFT JOIN LATERAL (SELECT x.fts, x.own_embedding, x.embedding_model FROM chunks x WHERE x.id = n.next LIMIT 1) x ON true
  ), scale AS (
    SELECT d, array_fill(0.5::real, ARRAY[d])::vector AS prev, array_fill(0.3::real, ARRAY[d])::vector AS next
    FROM (SELECT DISTINCT vector_dims(own_embedding) AS d FROM rows WHERE own_embedding IS NOT NULL) dims
  ), keyed AS (
    SELECT r.id,
           CASE WHEN parts = 'vector' THEN r.fts ELSE
           ts_filter(r.fts, '{d}')
             || setweight(to_tsvector('simple', concat_ws(' ', to_char(r.occurred_at AT TIME ZONE 'UTC', 'FMmonth YYYY FMday'), r.speaker)), 'A')
             || setweight(ts_filter(coalesce(r.pfts, ''::tsvector), '{d}'), 'C')
             || setweight(ts_filter(coalesce(r.xfts, ''::tsvector), '{d}'), 'B') END AS fts,
           CASE WHEN parts = 'fts' OR r.own_embedding IS NULL THEN r.embedding
                WHEN r.pvec IS NULL AND r.xvec IS NULL THEN r.own_embedding
                WHEN r.xvec IS NULL THEN r.own_embedding + r.pvec * s.prev
                WHEN r.pvec IS NULL THEN r.own_embedding + r.xvec * s.next
                ELSE r.own_embedding + r.pvec * s.prev + r.xvec * s.next END AS embedding
    FROM rows r LEFT JOIN scale s ON s.d = vector_dims(r.own_embedding)
  )
  UPDATE chunks c SET fts = k.fts, embedding = k.embedding
  FROM keyed k WHERE c.id = k.id AND (c.fts <> k.fts OR c.embedding IS DISTINCT FROM k.embedding)
$$;
