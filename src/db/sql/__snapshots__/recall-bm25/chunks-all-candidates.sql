-- chunks-all-candidates: preselected
-- keywordSql('chunks', {"userId":"alice"}, terms, 10, 0.3, all)
-- terms:
--   billing: idf 0.64, in 9400 of 17820 documents
--   kubernet: idf 6.1, in 40 of 17820 documents
--   servic: idf 0.58, in 10000 of 17820 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $15::float8[]) AS x(term, w)),
     pre AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset FROM chunk_keys c WHERE c.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4) || plainto_tsquery('simple', $5)) AND c.user_id = $2 ORDER BY CASE WHEN c.fts @@ $8::tsquery THEN 0.64 WHEN c.fts @@ plainto_tsquery('simple', $7) THEN 0.32 ELSE 0 END + CASE WHEN c.fts @@ $10::tsquery THEN 6.1 WHEN c.fts @@ plainto_tsquery('simple', $9) THEN 3.05 ELSE 0 END + CASE WHEN c.fts @@ $12::tsquery THEN 0.58 WHEN c.fts @@ plainto_tsquery('simple', $11) THEN 0.29 ELSE 0 END DESC, c.fts_len DESC, c.id LIMIT $13),
     cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, $1::text[]))) AS hit FROM pre),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.fts_len / $6::float8))) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)
     , sess_tf AS MATERIALIZED (
         SELECT uk, dataset, session_id, term, sum(own)::float8 AS tf FROM tf WHERE own > 0 AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4),
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true AND user_key = $14),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(ln(1 + (sst.n - sdf.df + 0.5) / (sdf.df + 0.5)) * s.tf * 2.2 / (s.tf + 1.2 * (0.25 + 0.75 * b.len / sst.avgl))) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3),
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, coalesce(se.s, 0) AS session,
              d.s / nullif(max(d.s) OVER (), 0) + $16::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0) AS score
       FROM doc d LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id)
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $17

-- $1 = ["billing","kubernet","servic"]
-- $2 = "alice"
-- $3 = "billing"
-- $4 = "kubernet"
-- $5 = "servic"
-- $6 = 35.2
-- $7 = "billing"
-- $8 = "'billing':D"
-- $9 = "kubernet"
-- $10 = "'kubernet':D"
-- $11 = "servic"
-- $12 = "'servic':D"
-- $13 = 200
-- $14 = "alice"
-- $15 = [0.64,6.1,0.58]
-- $16 = 0.3
-- $17 = 10
