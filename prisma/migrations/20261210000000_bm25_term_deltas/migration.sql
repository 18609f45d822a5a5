-- Document frequencies kept through a log of term deltas, folded in batches (issue 37;
-- docs/recall.md "How the statistics stay exact").
-- Until now every statement that wrote chunks or memories upserted one bm25_terms row per distinct
-- term of every new, deleted or rewritten key, in the writing transaction. The pipeline writes a
-- user's turns a few at a time, and each turn's words enter four keys (its own, the next turn's as
-- previous, the turn after that's as second previous, the previous turn's as next), so the same
-- (term, user) rows were updated again and again, statement after statement.
-- Now the writing statement appends one row per changed key to bm25_term_deltas: the key's terms
-- with a sign, and for a rewritten key only the terms it gained (+1) or lost (-1).
-- memloom_bm25_fold moves a tenant's deltas into bm25_terms in one set-based statement (summed
-- per term and user, so a term that four keys gained is one upsert), in the caller's transaction;
-- the pipeline calls it when enough deltas wait (src/db/sql/bm25-fold.ts).
-- Readers see exact frequencies at every moment: a term's df is its bm25_terms row plus its
-- pending deltas, read in the same statement (termWeights, src/db/sql/recall-bm25.ts), and a
-- fold deletes the deltas and adds them to bm25_terms in one transaction, so a statement's
-- snapshot sees each delta exactly once. bm25_docs and bm25_sessions (one row per user or session
-- per statement) stay in the writing statement.

CREATE TABLE bm25_term_deltas (
  tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  corpus     text NOT NULL CHECK (corpus IN ('chunks', 'memories')),
  user_key   text NOT NULL,          -- coalesce(user_id, '')
  dataset    text NOT NULL,
  sign       smallint NOT NULL CHECK (sign IN (-1, 1)),
  terms      text[] NOT NULL         -- distinct lexemes (tsvector_to_array)
);
CREATE INDEX bm25_term_deltas_scope_idx ON bm25_term_deltas (tenant_id, corpus, user_key, dataset);
ALTER TABLE bm25_term_deltas ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_term_deltas FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON bm25_term_deltas USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON bm25_term_deltas TO memloom_app;

-- memloom_bm25_apply takes, per signed key, the key it is netted against (`p_against`, NULL for
-- none): the terms logged are the key's terms missing from that key. The update triggers pass the
-- new key against the old one and back when the scope (tenant, user, dataset) is unchanged, so a
-- neighbour's key that gained a turn logs only that turn's new words.
DROP FUNCTION memloom_bm25_apply(text, int[], text[], text[], text[], text[], tsvector[], real[]);
CREATE FUNCTION memloom_bm25_apply(p_corpus text, p_signs int[], p_tenants text[], p_users text[], p_datasets text[], p_sessions text[], p_keys tsvector[], p_lens real[],
                                   p_against tsvector[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE removes boolean;
BEGIN
  IF p_keys IS NULL OR cardinality(p_keys) = 0 THEN RETURN; END IF;
  removes := -1 = ANY(p_signs);
  INSERT INTO bm25_docs AS d (tenant_id, corpus, user_key, dataset, docs, total_len)
  SELECT r.t, p_corpus, r.u, r.ds, sum(r.sg), sum(r.sg * r.len)
  FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_lens) AS r(sg, t, u, ds, len) GROUP BY 1, 3, 4
  HAVING sum(r.sg) <> 0 OR sum(r.sg * r.len) <> 0 ORDER BY 1, 3, 4
  ON CONFLICT (tenant_id, corpus, user_key, dataset) DO UPDATE SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
  IF removes THEN DELETE FROM bm25_docs d WHERE d.corpus = p_corpus AND d.docs = 0; END IF;
  INSERT INTO bm25_term_deltas (tenant_id, corpus, user_key, dataset, sign, terms)
  SELECT r.t, p_corpus, r.u, r.ds, r.sg, r.terms FROM (
    SELECT r.t, r.u, r.ds, r.sg, tsvector_to_array(CASE WHEN r.a IS NULL THEN r.k ELSE ts_delete(r.k, tsvector_to_array(r.a)) END) AS terms
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_keys, coalesce(p_against, array_fill(NULL::tsvector, ARRAY[cardinality(p_keys)])))
      AS r(sg, t, u, ds, k, a)) r
  WHERE cardinality(r.terms) > 0;
  IF p_corpus = 'chunks' AND EXISTS (SELECT 1 FROM unnest(p_sessions) s WHERE s IS NOT NULL) THEN
    INSERT INTO bm25_sessions AS s (tenant_id, user_key, dataset, session_id, chunks, len)
    SELECT r.t, r.u, r.ds, r.s, sum(r.sg), sum(r.sg * memloom_own_length(r.k))
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_sessions, p_keys) AS r(sg, t, u, ds, s, k) WHERE r.s IS NOT NULL
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4, 3
    ON CONFLICT (tenant_id, user_key, session_id, dataset) DO UPDATE SET chunks = s.chunks + excluded.chunks, len = s.len + excluded.len;
    IF removes THEN DELETE FROM bm25_sessions s WHERE s.chunks = 0 AND s.session_id = ANY(p_sessions); END IF;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION memloom_bm25_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record; neighbours uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l, NULL::tsvector[] a INTO r FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l, NULL::tsvector[] a INTO r FROM old_rows;
  ELSE
    -- Old and new versions of the rows whose key or scope changed; the session part only where
    -- the own text or the session changed (a neighbour arriving changes neither); the terms netted
    -- old against new where the scope (tenant, user, dataset) stayed.
    WITH changed AS (
      SELECT o.tenant_id AS ot, coalesce(o.user_id, '') AS ou, o.dataset AS ods, o.session_id AS os, o.fts AS ok, o.fts_len AS ol,
             n.tenant_id AS nt, coalesce(n.user_id, '') AS nu, n.dataset AS nds, n.session_id AS ns, n.fts AS nk, n.fts_len AS nl,
             (ts_filter(o.fts, '{d}') <> ts_filter(n.fts, '{d}') OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset
              OR o.session_id IS DISTINCT FROM n.session_id) AS own_changed,
             (o.tenant_id = n.tenant_id AND o.user_id IS NOT DISTINCT FROM n.user_id AND o.dataset = n.dataset) AS same_scope
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset OR o.session_id IS DISTINCT FROM n.session_id),
    signed AS (
      SELECT -1 AS sg, ot AS t, ou AS u, ods AS ds, CASE WHEN own_changed THEN os END AS s, ok AS k, ol AS l, CASE WHEN same_scope THEN nk END AS a FROM changed
      UNION ALL SELECT 1, nt, nu, nds, CASE WHEN own_changed THEN ns END, nk, nl, CASE WHEN same_scope THEN ok END FROM changed)
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(s) s, array_agg(k) k, array_agg(l) l, array_agg(a) a INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('chunks', r.sg, r.t, r.u, r.ds, r.s, r.k, r.l, r.a);
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

CREATE OR REPLACE FUNCTION memloom_bm25_memories() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l,
           NULL::tsvector[] a INTO r
    FROM new_rows WHERE status = 'active';
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l,
           NULL::tsvector[] a INTO r
    FROM old_rows WHERE status = 'active';
  ELSE
    -- A memory active before and after in the same scope logs only the terms its key gained or lost.
    WITH changed AS (
      SELECT o.*, n.tenant_id AS nt, n.user_id AS nu, n.dataset AS nds, n.fts AS nk, n.fts_len AS nl, n.status AS nstatus,
             (o.status = 'active' AND n.status = 'active' AND o.tenant_id = n.tenant_id AND o.user_id IS NOT DISTINCT FROM n.user_id
              AND o.dataset = n.dataset) AS same_scope
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.status IS DISTINCT FROM n.status OR o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset),
    signed AS (
      SELECT -1 AS sg, tenant_id AS t, coalesce(user_id, '') AS u, dataset AS ds, fts AS k, fts_len AS l, CASE WHEN same_scope THEN nk END AS a
      FROM changed WHERE status = 'active'
      UNION ALL SELECT 1, nt, coalesce(nu, ''), nds, nk, nl, CASE WHEN same_scope THEN fts END FROM changed WHERE nstatus = 'active')
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(k) k, array_agg(l) l, array_agg(a) a INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('memories', r.sg, r.t, r.u, r.ds, NULL, r.k, r.l, r.a);
  RETURN NULL;
END $$;

-- Moves the current tenant's term deltas into bm25_terms: deleted and summed per (corpus, term,
-- user, dataset) in one statement, rows whose df reaches zero deleted. Does nothing while fewer
-- than `p_min` deltas wait, or while another transaction folds the tenant's deltas (that one moves
-- them; readers add whatever is still pending). Returns the number of deltas folded.
-- Replay-safe: a delta is deleted in the transaction that adds it to bm25_terms, so it is counted
-- once whether the caller commits or rolls back.
CREATE FUNCTION memloom_bm25_fold(p_min int DEFAULT 1) RETURNS int LANGUAGE plpgsql AS $$
DECLARE n int; zero text[];
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM bm25_term_deltas LIMIT greatest(p_min, 1)) x) < greatest(p_min, 1) THEN RETURN 0; END IF;
  IF NOT pg_try_advisory_xact_lock(hashtextextended(current_setting('app.tenant_id'), 727003)) THEN RETURN 0; END IF;
  WITH d AS (DELETE FROM bm25_term_deltas RETURNING tenant_id, corpus, user_key, dataset, sign, terms),
  net AS (
    SELECT d.tenant_id, d.corpus, u.term, d.user_key, d.dataset, sum(d.sign) AS df FROM d, unnest(d.terms) AS u(term)
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.sign) <> 0),
  up AS (
    INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
    SELECT * FROM net ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df
    RETURNING b.term, b.df)
  SELECT (SELECT count(*) FROM d), (SELECT array_agg(term) FROM up WHERE df = 0) INTO n, zero;
  IF zero IS NOT NULL THEN DELETE FROM bm25_terms b WHERE b.term = ANY(zero) AND b.df = 0; END IF;
  RETURN n;
END $$;
