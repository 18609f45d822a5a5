-- chunks-rare-first-no-rare-term: rare first, no rare term
-- keywordSql('chunks', {"userId":"alice"}, terms, 10, 0.3, undefined)
-- terms:
--   billing: idf 0.64, in 9400 of 17820 documents
--   servic: idf 0.58, in 10000 of 17820 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $19::float8[]) AS x(term, w)),
     rare AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset, CASE WHEN c.fts @@ $8::tsquery THEN 0.64 WHEN c.fts @@ plainto_tsquery('simple', $7) THEN 0.32 ELSE 0 END + CASE WHEN c.fts @@ $10::tsquery THEN 0.58 WHEN c.fts @@ plainto_tsquery('simple', $9) THEN 0.29 ELSE 0 END AS b FROM chunk_keys c WHERE false),
     enough AS MATERIALIZED (SELECT count(*) >= $11 AND min(b) > $12::float8 AS ok FROM rare),
     rest AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset, CASE WHEN c.fts @@ $14::tsquery THEN 0.64 WHEN c.fts @@ plainto_tsquery('simple', $13) THEN 0.32 ELSE 0 END + CASE WHEN c.fts @@ $16::tsquery THEN 0.58 WHEN c.fts @@ plainto_tsquery('simple', $15) THEN 0.29 ELSE 0 END AS b FROM chunk_keys c WHERE c.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4)) AND c.user_id = $2 AND NOT (SELECT ok FROM enough) ORDER BY c.occurred_at DESC LIMIT $6),
     pre AS MATERIALIZED (
       SELECT id, fts, fts_len, session_id, uk, dataset FROM rare WHERE (SELECT ok FROM enough)
       UNION ALL
       (SELECT id, fts, fts_len, session_id, uk, dataset FROM (SELECT * FROM rare UNION SELECT * FROM rest) u
        WHERE NOT (SELECT ok FROM enough) ORDER BY b DESC, fts_len DESC, id LIMIT $17)),
     cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, $1::text[]))) AS hit FROM pre),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.fts_len / $5::float8))) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)
     , sess_tf AS MATERIALIZED (
         SELECT uk, dataset, session_id, term, sum(own)::float8 AS tf FROM tf WHERE own > 0 AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4),
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true AND user_key = $18),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(ln(1 + (sst.n - sdf.df + 0.5) / (sdf.df + 0.5)) * s.tf * 2.2 / (s.tf + 1.2 * (0.25 + 0.75 * b.len / sst.avgl))) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3),
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, coalesce(se.s, 0) AS session,
              d.s / nullif(max(d.s) OVER (), 0) + $20::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0) AS score
       FROM doc d LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id)
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $21

-- $1 = ["billing","servic"]
-- $2 = "alice"
-- $3 = "billing"
-- $4 = "servic"
-- $5 = 35.2
-- $6 = 1600
-- $7 = "billing"
-- $8 = "'billing':D"
-- $9 = "servic"
-- $10 = "'servic':D"
-- $11 = 200
-- $12 = 1.22
-- $13 = "billing"
-- $14 = "'billing':D"
-- $15 = "servic"
-- $16 = "'servic':D"
-- $17 = 200
-- $18 = "alice"
-- $19 = [0.64,0.58]
-- $20 = 0.3
-- $21 = 10
