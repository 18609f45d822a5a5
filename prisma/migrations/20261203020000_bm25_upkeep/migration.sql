-- Cheaper statistics upkeep (docs/recall.md "How the statistics stay exact", docs/performance.md
-- "Pipeline throughput"). A chunk batch now writes its rows with finished keys in one statement
-- (src/db/sql/chunk-keys.ts), so the statistics triggers run once per batch over final keys; what
-- remains is the upsert of one bm25_terms row per distinct term of the batch.
-- 1. Room on each page for the new version of an updated row: a df change is then a heap-only
--    update (no new index entry, pruned on the page without VACUUM) instead of a new tuple on
--    another page plus a primary-key insert. Applies to pages written from now on.
ALTER TABLE bm25_terms SET (fillfactor = 70);
ALTER TABLE bm25_docs SET (fillfactor = 70);
ALTER TABLE bm25_sessions SET (fillfactor = 70);

-- 2. memloom_bm25_apply as before, but a batch without deletions (every insert, most updates'
--    additions) skips collecting the terms whose df reached zero: none can.
CREATE OR REPLACE FUNCTION memloom_bm25_apply(p_corpus text, p_signs int[], p_tenants text[], p_users text[], p_datasets text[], p_sessions text[], p_keys tsvector[], p_lens real[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE zero text[]; removes boolean;
BEGIN
  IF p_keys IS NULL OR cardinality(p_keys) = 0 THEN RETURN; END IF;
  removes := -1 = ANY(p_signs);
  INSERT INTO bm25_docs AS d (tenant_id, corpus, user_key, dataset, docs, total_len)
  SELECT r.t, p_corpus, r.u, r.ds, sum(r.sg), sum(r.sg * r.len)
  FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_lens) AS r(sg, t, u, ds, len) GROUP BY 1, 3, 4
  HAVING sum(r.sg) <> 0 OR sum(r.sg * r.len) <> 0 ORDER BY 1, 3, 4
  ON CONFLICT (tenant_id, corpus, user_key, dataset) DO UPDATE SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
  IF removes THEN
    WITH up AS (
      INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
      SELECT r.t, p_corpus, term, r.u, r.ds, sum(r.sg)
      FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_keys) AS r(sg, t, u, ds, k), unnest(tsvector_to_array(r.k)) term
      GROUP BY 1, 3, 4, 5 HAVING sum(r.sg) <> 0 ORDER BY 1, 3, 4, 5
      ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df
      RETURNING b.term, b.df)
    SELECT array_agg(term) INTO zero FROM up WHERE df = 0;
    IF zero IS NOT NULL THEN DELETE FROM bm25_terms b WHERE b.corpus = p_corpus AND b.term = ANY(zero) AND b.df = 0; END IF;
    DELETE FROM bm25_docs d WHERE d.corpus = p_corpus AND d.docs = 0;
  ELSE
    INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
    SELECT r.t, p_corpus, term, r.u, r.ds, sum(r.sg)
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_keys) AS r(sg, t, u, ds, k), unnest(tsvector_to_array(r.k)) term
    GROUP BY 1, 3, 4, 5 ORDER BY 1, 3, 4, 5
    ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df;
  END IF;
  IF p_corpus = 'chunks' AND EXISTS (SELECT 1 FROM unnest(p_sessions) s WHERE s IS NOT NULL) THEN
    INSERT INTO bm25_sessions AS s (tenant_id, user_key, dataset, session_id, chunks, len)
    SELECT r.t, r.u, r.ds, r.s, sum(r.sg), sum(r.sg * memloom_own_length(r.k))
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_sessions, p_keys) AS r(sg, t, u, ds, s, k) WHERE r.s IS NOT NULL
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4, 3
    ON CONFLICT (tenant_id, user_key, session_id, dataset) DO UPDATE SET chunks = s.chunks + excluded.chunks, len = s.len + excluded.len;
    IF removes THEN DELETE FROM bm25_sessions s WHERE s.chunks = 0 AND s.session_id = ANY(p_sessions); END IF;
  END IF;
END $$;
