-- Okapi BM25 for recall (docs/recall.md). Three parts:
-- 1. Index keys. A chunk's `fts` is its key: its own text (weight D, as every existing tsvector),
--    the event time as words and the speaker (A), and for a chunk in a session the own text of the
--    previous (C) and next (B) chunk of the same tenant, dataset, user and session. `embedding` is
--    the key vector: own vector + 0.5 previous + 0.3 next (`own_embedding` keeps the chunk's own).
--    memloom_refresh_chunk_keys rebuilds the keys of given chunks and their neighbours; it runs when
--    chunks are written, embedded, imported, and (trigger) deleted, so a key never keeps the text
--    of a forgotten turn.
-- 2. Statistics per (tenant, corpus, user, dataset): documents, total key length, and document
--    frequency per term; per session: chunk count and own length. Statement-level triggers with
--    transition tables keep them exact, set-based, in the writing transaction, whatever path
--    inserts, deletes (forget, TTL, cascades) or updates (keys, corrections: only active memories
--    count) rows.
-- 3. Key length (weighted positions) as a stored generated column, read by the scorer.

-- Weights of the key parts, in one place: the weighted frequency of a lexeme from the weights of
-- its positions (four array scans in C, no unnest), and a key's length as the sum over lexemes.
CREATE FUNCTION memloom_term_weight(w text[]) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (coalesce(cardinality(array_positions(w, 'D')), 0) + 0.5 * coalesce(cardinality(array_positions(w, 'A')), 0)
          + 0.5 * coalesce(cardinality(array_positions(w, 'C')), 0) + 0.3 * coalesce(cardinality(array_positions(w, 'B')), 0))::real
$$;
CREATE FUNCTION memloom_key_length(k tsvector) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(memloom_term_weight(u.weights)), 0)::real FROM unnest(k) u
$$;
CREATE FUNCTION memloom_own_length(k tsvector) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT count(*)::real FROM unnest(ts_filter(k, '{d}')) u, unnest(u.positions) p
$$;

ALTER TABLE chunks ADD COLUMN event_seq bigint, ADD COLUMN own_embedding vector;
UPDATE chunks c SET event_seq = e.seq, own_embedding = c.embedding FROM events e WHERE e.id = c.event_id;
ALTER TABLE chunks ALTER COLUMN event_seq SET NOT NULL;
ALTER TABLE chunks ADD COLUMN fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED;
ALTER TABLE memories ADD COLUMN fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED;
-- Turn order within a session: a neighbour lookup walks this index from the chunk's position,
-- checking dataset and user on the way (a session rarely mixes them, so it stops at the first row).
CREATE INDEX chunks_session_order_idx ON chunks (tenant_id, session_id, occurred_at, event_seq, idx) WHERE session_id IS NOT NULL;

CREATE TABLE bm25_docs (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  corpus     text NOT NULL CHECK (corpus IN ('chunks', 'memories')),
  user_key   text NOT NULL,          -- coalesce(user_id, '')
  dataset    text NOT NULL,
  docs       bigint NOT NULL,
  total_len  double precision NOT NULL,
  PRIMARY KEY (tenant_id, corpus, user_key, dataset)
);
CREATE TABLE bm25_terms (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  corpus     text NOT NULL CHECK (corpus IN ('chunks', 'memories')),
  term       text NOT NULL,
  user_key   text NOT NULL,
  dataset    text NOT NULL,
  df         bigint NOT NULL,
  PRIMARY KEY (tenant_id, corpus, term, user_key, dataset)
);
CREATE TABLE bm25_sessions (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  user_key   text NOT NULL,
  dataset    text NOT NULL,
  session_id text NOT NULL,
  chunks     bigint NOT NULL,
  len        double precision NOT NULL,
  PRIMARY KEY (tenant_id, user_key, session_id, dataset)
);
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['bm25_docs', 'bm25_terms', 'bm25_sessions'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO memloom_app', t);
  END LOOP;
END $$;

-- The previous and next chunk of a position in a session of a user (NULLs without a session).
-- A one-row set-returning SQL function, so the planner inlines it (two index walks per call).
CREATE FUNCTION memloom_chunk_neighbours(t text, ds text, uk text, sess text, at timestamptz, seq bigint, i int)
RETURNS TABLE (prev uuid, next uuid) LANGUAGE sql STABLE AS $$
  SELECT (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) < (at, seq, i)
            AND c.dataset = ds AND coalesce(c.user_id, '') = uk
          ORDER BY c.tenant_id DESC, c.session_id DESC, c.occurred_at DESC, c.event_seq DESC, c.idx DESC LIMIT 1),
         (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) > (at, seq, i)
            AND c.dataset = ds AND coalesce(c.user_id, '') = uk
          ORDER BY c.tenant_id, c.session_id, c.occurred_at, c.event_seq, c.idx LIMIT 1)
$$;

-- Rebuilds the keys (fts and embedding) of the given chunks and of their neighbours from the
-- current rows. Deterministic, so a replay writes nothing; callers hold the session lock
-- (memloom_lock_sessions) so that two writers of one session see each other's chunks. The key
-- vector adds the neighbours' own vectors (same model and dimensions only) scaled by 0.5 and 0.3
-- (pgvector multiplies element-wise: the scale vectors are built once per dimension). `parts`:
-- 'fts' when only texts changed (new chunks have no vector yet), 'vector' when only own vectors
-- did (the embed stage), 'all' otherwise; the other part is kept as it is.
CREATE FUNCTION memloom_refresh_chunk_keys(ids uuid[], parts text DEFAULT 'all') RETURNS void LANGUAGE sql AS $$
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
    LEFT JOIN chunks p ON p.id = n.prev
    LEFT JOIN chunks x ON x.id = n.next
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

-- One writer per session at a time (transaction-scoped), in a fixed order so two writers never
-- wait on each other crosswise.
CREATE FUNCTION memloom_lock_sessions(ids uuid[]) RETURNS void LANGUAGE sql AS $$
  SELECT count(pg_advisory_xact_lock(k)) FROM (
    SELECT DISTINCT hashtextextended(concat_ws(chr(31), c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id), 727002) AS k
    FROM chunks c WHERE c.id = ANY(ids) AND c.session_id IS NOT NULL ORDER BY 1) s
$$;

-- Adds each row's contribution times its sign (+1 inserted, -1 deleted) to the statistics, netted
-- per key first: an updated row passes its old version (-1) and its new one (+1), so only the
-- terms that changed are written. A session NULL leaves bm25_sessions alone (the triggers pass
-- it when a row's own text and session did not change). Rows are locked in key order.
CREATE FUNCTION memloom_bm25_apply(p_corpus text, p_signs int[], p_tenants text[], p_users text[], p_datasets text[], p_sessions text[], p_keys tsvector[], p_lens real[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE zero text[];
BEGIN
  IF p_keys IS NULL OR cardinality(p_keys) = 0 THEN RETURN; END IF;
  INSERT INTO bm25_docs AS d (tenant_id, corpus, user_key, dataset, docs, total_len)
  SELECT r.t, p_corpus, r.u, r.ds, sum(r.sg), sum(r.sg * r.len)
  FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_lens) AS r(sg, t, u, ds, len) GROUP BY 1, 3, 4
  HAVING sum(r.sg) <> 0 OR sum(r.sg * r.len) <> 0 ORDER BY 1, 3, 4
  ON CONFLICT (tenant_id, corpus, user_key, dataset) DO UPDATE SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
  WITH up AS (
    INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
    SELECT r.t, p_corpus, term, r.u, r.ds, sum(r.sg)
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_keys) AS r(sg, t, u, ds, k), unnest(tsvector_to_array(r.k)) term
    GROUP BY 1, 3, 4, 5 HAVING sum(r.sg) <> 0 ORDER BY 1, 3, 4, 5
    ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df
    RETURNING b.term, b.df)
  SELECT array_agg(term) INTO zero FROM up WHERE df = 0;
  IF zero IS NOT NULL THEN DELETE FROM bm25_terms b WHERE b.corpus = p_corpus AND b.term = ANY(zero) AND b.df = 0; END IF;
  IF -1 = ANY(p_signs) THEN DELETE FROM bm25_docs d WHERE d.corpus = p_corpus AND d.docs = 0; END IF;
  IF p_corpus = 'chunks' AND EXISTS (SELECT 1 FROM unnest(p_sessions) s WHERE s IS NOT NULL) THEN
    INSERT INTO bm25_sessions AS s (tenant_id, user_key, dataset, session_id, chunks, len)
    SELECT r.t, r.u, r.ds, r.s, sum(r.sg), sum(r.sg * memloom_own_length(r.k))
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_sessions, p_keys) AS r(sg, t, u, ds, s, k) WHERE r.s IS NOT NULL
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4, 3
    ON CONFLICT (tenant_id, user_key, session_id, dataset) DO UPDATE SET chunks = s.chunks + excluded.chunks, len = s.len + excluded.len;
    IF -1 = ANY(p_signs) THEN DELETE FROM bm25_sessions s WHERE s.chunks = 0 AND s.session_id = ANY(p_sessions); END IF;
  END IF;
END $$;

CREATE FUNCTION memloom_bm25_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record; neighbours uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l INTO r FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l INTO r FROM old_rows;
  ELSE
    -- Old and new versions of the rows whose key or scope changed; the session part only where
    -- the own text or the session changed (a neighbour arriving changes neither).
    WITH changed AS (
      SELECT o.tenant_id AS ot, coalesce(o.user_id, '') AS ou, o.dataset AS ods, o.session_id AS os, o.fts AS ok, o.fts_len AS ol,
             n.tenant_id AS nt, coalesce(n.user_id, '') AS nu, n.dataset AS nds, n.session_id AS ns, n.fts AS nk, n.fts_len AS nl,
             (ts_filter(o.fts, '{d}') <> ts_filter(n.fts, '{d}') OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset
              OR o.session_id IS DISTINCT FROM n.session_id) AS own_changed
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset OR o.session_id IS DISTINCT FROM n.session_id),
    signed AS (
      SELECT -1 AS sg, ot AS t, ou AS u, ods AS ds, CASE WHEN own_changed THEN os END AS s, ok AS k, ol AS l FROM changed
      UNION ALL SELECT 1, nt, nu, nds, CASE WHEN own_changed THEN ns END, nk, nl FROM changed)
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(s) s, array_agg(k) k, array_agg(l) l INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('chunks', r.sg, r.t, r.u, r.ds, r.s, r.k, r.l);
  IF TG_OP = 'DELETE' THEN
    -- The neighbours that remain no longer carry the deleted text.
    SELECT array_agg(DISTINCT id) INTO neighbours FROM (
      SELECT unnest(ARRAY[n.prev, n.next]) AS id
      FROM old_rows o, memloom_chunk_neighbours(o.tenant_id, o.dataset, coalesce(o.user_id, ''), o.session_id, o.occurred_at, o.event_seq, o.idx) n) x
    WHERE id IS NOT NULL;
    IF neighbours IS NOT NULL THEN PERFORM memloom_refresh_chunk_keys(neighbours); END IF;
  END IF;
  RETURN NULL;
END $$;

-- Memories count while active: superseding or archiving one takes it out, restoring puts it back.
CREATE FUNCTION memloom_bm25_memories() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l INTO r
    FROM new_rows WHERE status = 'active';
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l INTO r
    FROM old_rows WHERE status = 'active';
  ELSE
    WITH changed AS (
      SELECT o.*, n.tenant_id AS nt, n.user_id AS nu, n.dataset AS nds, n.fts AS nk, n.fts_len AS nl, n.status AS nstatus
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.status IS DISTINCT FROM n.status OR o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset),
    signed AS (
      SELECT -1 AS sg, tenant_id AS t, coalesce(user_id, '') AS u, dataset AS ds, fts AS k, fts_len AS l FROM changed WHERE status = 'active'
      UNION ALL SELECT 1, nt, coalesce(nu, ''), nds, nk, nl FROM changed WHERE nstatus = 'active')
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(k) k, array_agg(l) l INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('memories', r.sg, r.t, r.u, r.ds, NULL, r.k, r.l);
  RETURN NULL;
END $$;

-- Turn order and the own vector of a chunk written without them (the application's writers set
-- both; hand-written rows and older code paths get them here).
CREATE FUNCTION memloom_chunk_defaults() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.event_seq IS NULL THEN NEW.event_seq := (SELECT e.seq FROM events e WHERE e.id = NEW.event_id); END IF;
  IF NEW.own_embedding IS NULL THEN NEW.own_embedding := NEW.embedding; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER chunks_defaults BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION memloom_chunk_defaults();
CREATE TRIGGER chunks_bm25_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER chunks_bm25_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER chunks_bm25_update AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER memories_bm25_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();
CREATE TRIGGER memories_bm25_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();
CREATE TRIGGER memories_bm25_update AFTER UPDATE ON memories REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();
