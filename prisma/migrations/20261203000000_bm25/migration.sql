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

-- Weights of the key parts, in one place (the scorer reads the same function).
CREATE FUNCTION memloom_key_weight(w text) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE w WHEN 'D' THEN 1.0 WHEN 'A' THEN 0.5 WHEN 'C' THEN 0.5 ELSE 0.3 END::real
$$;
CREATE FUNCTION memloom_key_length(k tsvector) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(memloom_key_weight(w)), 0)::real FROM unnest(k) u, unnest(u.weights) w
$$;
CREATE FUNCTION memloom_own_length(k tsvector) RETURNS real LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT count(*)::real FROM unnest(ts_filter(k, '{d}')) u, unnest(u.positions) p
$$;

ALTER TABLE chunks ADD COLUMN event_seq bigint, ADD COLUMN own_embedding vector;
UPDATE chunks c SET event_seq = e.seq, own_embedding = c.embedding FROM events e WHERE e.id = c.event_id;
ALTER TABLE chunks ALTER COLUMN event_seq SET NOT NULL;
ALTER TABLE chunks ADD COLUMN fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED;
ALTER TABLE memories ADD COLUMN fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED;
-- Turn order within a session: neighbour lookups walk this index one row each way.
CREATE INDEX chunks_session_order_idx ON chunks (tenant_id, dataset, (coalesce(user_id, '')), session_id, occurred_at, event_seq, idx)
  WHERE session_id IS NOT NULL;

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

-- The previous and next chunk of a position in a session (NULLs without a session).
CREATE FUNCTION memloom_chunk_neighbours(t text, ds text, uk text, sess text, at timestamptz, seq bigint, i int, OUT prev uuid, OUT next uuid)
LANGUAGE sql STABLE AS $$
  SELECT (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.dataset = ds AND coalesce(c.user_id, '') = uk AND c.session_id = sess
            AND (c.occurred_at, c.event_seq, c.idx) < (at, seq, i)
          ORDER BY c.occurred_at DESC, c.event_seq DESC, c.idx DESC LIMIT 1),
         (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.dataset = ds AND coalesce(c.user_id, '') = uk AND c.session_id = sess
            AND (c.occurred_at, c.event_seq, c.idx) > (at, seq, i)
          ORDER BY c.occurred_at, c.event_seq, c.idx LIMIT 1)
$$;

-- `v` scaled by `w` (pgvector multiplies element-wise), or NULL when `v` cannot join `own`.
CREATE FUNCTION memloom_scaled(v vector, own vector, w real) RETURNS vector LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL OR own IS NULL OR vector_dims(v) <> vector_dims(own) THEN NULL
              ELSE v * array_fill(w, ARRAY[vector_dims(v)])::vector END
$$;

-- Rebuilds the keys (fts and embedding) of the given chunks and of their neighbours from the
-- current rows. Deterministic, so a replay writes nothing; callers hold the session lock
-- (memloom_lock_sessions) so that two writers of one session see each other's chunks.
CREATE FUNCTION memloom_refresh_chunk_keys(ids uuid[]) RETURNS void LANGUAGE sql AS $$
  WITH seed AS (
    SELECT c.tenant_id, c.dataset, coalesce(c.user_id, '') AS uk, c.session_id, c.occurred_at, c.event_seq, c.idx, c.id
    FROM chunks c WHERE c.id = ANY(ids)
  ), touched AS (
    SELECT id FROM seed
    UNION SELECT n.prev FROM seed s, memloom_chunk_neighbours(s.tenant_id, s.dataset, s.uk, s.session_id, s.occurred_at, s.event_seq, s.idx) n
    UNION SELECT n.next FROM seed s, memloom_chunk_neighbours(s.tenant_id, s.dataset, s.uk, s.session_id, s.occurred_at, s.event_seq, s.idx) n
  ), keyed AS (
    SELECT c.id,
           ts_filter(c.fts, '{d}')
             || setweight(to_tsvector('simple', concat_ws(' ', to_char(c.occurred_at AT TIME ZONE 'UTC', 'FMmonth YYYY FMday'), e.metadata->>'speaker')), 'A')
             || setweight(ts_filter(coalesce(p.fts, ''::tsvector), '{d}'), 'C')
             || setweight(ts_filter(coalesce(x.fts, ''::tsvector), '{d}'), 'B') AS fts,
           c.own_embedding
             + coalesce(memloom_scaled(CASE WHEN p.embedding_model = c.embedding_model THEN p.own_embedding END, c.own_embedding, 0.5), memloom_scaled(c.own_embedding, c.own_embedding, 0))
             + coalesce(memloom_scaled(CASE WHEN x.embedding_model = c.embedding_model THEN x.own_embedding END, c.own_embedding, 0.3), memloom_scaled(c.own_embedding, c.own_embedding, 0)) AS embedding
    FROM touched t
    JOIN chunks c ON c.id = t.id
    JOIN events e ON e.id = c.event_id
    CROSS JOIN LATERAL memloom_chunk_neighbours(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) n
    LEFT JOIN chunks p ON p.id = n.prev
    LEFT JOIN chunks x ON x.id = n.next
  )
  UPDATE chunks c SET fts = k.fts, embedding = coalesce(k.embedding, c.embedding)
  FROM keyed k WHERE c.id = k.id AND (c.fts IS DISTINCT FROM k.fts OR c.embedding IS DISTINCT FROM coalesce(k.embedding, c.embedding))
$$;

-- One writer per session at a time (transaction-scoped), in a fixed order so two writers never
-- wait on each other crosswise.
CREATE FUNCTION memloom_lock_sessions(ids uuid[]) RETURNS void LANGUAGE sql AS $$
  SELECT count(pg_advisory_xact_lock(k)) FROM (
    SELECT DISTINCT hashtextextended(concat_ws(chr(31), c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id), 727002) AS k
    FROM chunks c WHERE c.id = ANY(ids) AND c.session_id IS NOT NULL ORDER BY 1) s
$$;

-- Adds `sign` times the rows' contributions to the statistics. Called by the triggers below with
-- the rows of their transition tables (as JSON-free SQL: the rows are passed as arrays).
CREATE FUNCTION memloom_bm25_apply(p_corpus text, p_sign int, p_tenants text[], p_users text[], p_datasets text[], p_sessions text[], p_keys tsvector[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE zero text[];
BEGIN
  IF p_keys IS NULL OR cardinality(p_keys) = 0 THEN RETURN; END IF;
  INSERT INTO bm25_docs AS d (tenant_id, corpus, user_key, dataset, docs, total_len)
  SELECT r.t, p_corpus, r.u, r.ds, p_sign * count(*), p_sign * sum(memloom_key_length(r.k))
  FROM unnest(p_tenants, p_users, p_datasets, p_keys) AS r(t, u, ds, k) GROUP BY 1, 3, 4 ORDER BY 1, 3, 4
  ON CONFLICT (tenant_id, corpus, user_key, dataset) DO UPDATE SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
  WITH up AS (
    INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
    SELECT r.t, p_corpus, term, r.u, r.ds, p_sign * count(*)
    FROM unnest(p_tenants, p_users, p_datasets, p_keys) AS r(t, u, ds, k), unnest(tsvector_to_array(r.k)) term
    GROUP BY 1, 3, 4, 5 ORDER BY 1, 3, 4, 5
    ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df
    RETURNING b.term, b.df)
  SELECT array_agg(term) INTO zero FROM up WHERE df = 0;
  IF zero IS NOT NULL THEN DELETE FROM bm25_terms b WHERE b.corpus = p_corpus AND b.term = ANY(zero) AND b.df = 0; END IF;
  DELETE FROM bm25_docs d WHERE d.corpus = p_corpus AND d.docs = 0;
  IF p_corpus = 'chunks' THEN
    INSERT INTO bm25_sessions AS s (tenant_id, user_key, dataset, session_id, chunks, len)
    SELECT r.t, r.u, r.ds, r.s, p_sign * count(*), p_sign * sum(memloom_own_length(r.k))
    FROM unnest(p_tenants, p_users, p_datasets, p_sessions, p_keys) AS r(t, u, ds, s, k) WHERE r.s IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4, 3
    ON CONFLICT (tenant_id, user_key, session_id, dataset) DO UPDATE SET chunks = s.chunks + excluded.chunks, len = s.len + excluded.len;
    DELETE FROM bm25_sessions s WHERE s.chunks = 0 AND s.session_id = ANY(p_sessions);
  END IF;
END $$;

CREATE FUNCTION memloom_bm25_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record; neighbours uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s, array_agg(fts) k INTO r FROM new_rows;
    PERFORM memloom_bm25_apply('chunks', 1, r.t, r.u, r.ds, r.s, r.k);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s, array_agg(fts) k INTO r FROM old_rows;
    PERFORM memloom_bm25_apply('chunks', -1, r.t, r.u, r.ds, r.s, r.k);
    -- The neighbours that remain no longer carry the deleted text.
    SELECT array_agg(DISTINCT id) INTO neighbours FROM (
      SELECT n.prev AS id FROM old_rows o, memloom_chunk_neighbours(o.tenant_id, o.dataset, coalesce(o.user_id, ''), o.session_id, o.occurred_at, o.event_seq, o.idx) n
      UNION SELECT n.next FROM old_rows o, memloom_chunk_neighbours(o.tenant_id, o.dataset, coalesce(o.user_id, ''), o.session_id, o.occurred_at, o.event_seq, o.idx) n) x
    WHERE id IS NOT NULL;
    IF neighbours IS NOT NULL THEN PERFORM memloom_refresh_chunk_keys(neighbours); END IF;
  ELSE
    SELECT array_agg(o.tenant_id) t, array_agg(coalesce(o.user_id, '')) u, array_agg(o.dataset) ds, array_agg(o.session_id) s, array_agg(o.fts) k,
           array_agg(n.tenant_id) nt, array_agg(coalesce(n.user_id, '')) nu, array_agg(n.dataset) nds, array_agg(n.session_id) ns, array_agg(n.fts) nk INTO r
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.fts IS DISTINCT FROM n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset IS DISTINCT FROM n.dataset OR o.session_id IS DISTINCT FROM n.session_id;
    IF r.k IS NOT NULL THEN
      PERFORM memloom_bm25_apply('chunks', -1, r.t, r.u, r.ds, r.s, r.k);
      PERFORM memloom_bm25_apply('chunks', 1, r.nt, r.nu, r.nds, r.ns, r.nk);
    END IF;
  END IF;
  RETURN NULL;
END $$;

-- Memories count while active: superseding or archiving one takes it out, restoring puts it back.
CREATE FUNCTION memloom_bm25_memories() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k INTO r FROM new_rows WHERE status = 'active';
    PERFORM memloom_bm25_apply('memories', 1, r.t, r.u, r.ds, NULL, coalesce(r.k, '{}'));
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k INTO r FROM old_rows WHERE status = 'active';
    PERFORM memloom_bm25_apply('memories', -1, r.t, r.u, r.ds, NULL, coalesce(r.k, '{}'));
  ELSE
    SELECT array_agg(o.tenant_id) t, array_agg(coalesce(o.user_id, '')) u, array_agg(o.dataset) ds, array_agg(o.fts) k INTO r
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.status = 'active' AND (n.status <> 'active' OR o.fts IS DISTINCT FROM n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset IS DISTINCT FROM n.dataset);
    PERFORM memloom_bm25_apply('memories', -1, r.t, r.u, r.ds, NULL, coalesce(r.k, '{}'));
    SELECT array_agg(n.tenant_id) t, array_agg(coalesce(n.user_id, '')) u, array_agg(n.dataset) ds, array_agg(n.fts) k INTO r
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE n.status = 'active' AND (o.status <> 'active' OR o.fts IS DISTINCT FROM n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset IS DISTINCT FROM n.dataset);
    PERFORM memloom_bm25_apply('memories', 1, r.t, r.u, r.ds, NULL, coalesce(r.k, '{}'));
  END IF;
  RETURN NULL;
END $$;

-- Existing rows: keys rebuilt (chunks), then statistics counted once, then the triggers.
SELECT memloom_refresh_chunk_keys(array_agg(id)) FROM chunks;
INSERT INTO bm25_docs (tenant_id, corpus, user_key, dataset, docs, total_len)
SELECT tenant_id, 'chunks', coalesce(user_id, ''), dataset, count(*), sum(fts_len) FROM chunks GROUP BY 1, 3, 4
UNION ALL SELECT tenant_id, 'memories', coalesce(user_id, ''), dataset, count(*), sum(fts_len) FROM memories WHERE status = 'active' GROUP BY 1, 3, 4;
INSERT INTO bm25_terms (tenant_id, corpus, term, user_key, dataset, df)
SELECT tenant_id, 'chunks', term, coalesce(user_id, ''), dataset, count(*) FROM chunks, unnest(tsvector_to_array(fts)) term GROUP BY 1, 3, 4, 5
UNION ALL SELECT tenant_id, 'memories', term, coalesce(user_id, ''), dataset, count(*) FROM memories, unnest(tsvector_to_array(fts)) term WHERE status = 'active' GROUP BY 1, 3, 4, 5;
INSERT INTO bm25_sessions (tenant_id, user_key, dataset, session_id, chunks, len)
SELECT tenant_id, coalesce(user_id, ''), dataset, session_id, count(*), sum(memloom_own_length(fts)) FROM chunks WHERE session_id IS NOT NULL GROUP BY 1, 2, 3, 4;

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
