-- chunks-rare-first-every-term-rare: rare first, no term left out
-- keywordSql('chunks', {"userId":"alice"}, terms, 10, 0.3, undefined)
-- terms:
--   kubernet: idf 6.1, in 40 of 17820 documents
--   grafana: idf 5.8, in 55 of 17820 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $22::float8[]) AS x(term, w)),
     rare AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset, CASE WHEN c.fts @@ $8::tsquery THEN 6.1 WHEN c.fts @@ plainto_tsquery('simple', $7) THEN 3.05 ELSE 0 END + CASE WHEN c.fts @@ $10::tsquery THEN 5.8 WHEN c.fts @@ plainto_tsquery('simple', $9) THEN 2.9 ELSE 0 END AS b FROM chunk_keys c WHERE c.fts @@ (plainto_tsquery('simple', $11) || plainto_tsquery('simple', $12)) AND c.user_id = $2 ORDER BY b DESC, fts_len DESC, id LIMIT $13),
     enough AS MATERIALIZED (SELECT count(*) >= $14 AND min(b) > $15::float8 AS ok FROM rare),
     rest AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset, CASE WHEN c.fts @@ $17::tsquery THEN 6.1 WHEN c.fts @@ plainto_tsquery('simple', $16) THEN 3.05 ELSE 0 END + CASE WHEN c.fts @@ $19::tsquery THEN 5.8 WHEN c.fts @@ plainto_tsquery('simple', $18) THEN 2.9 ELSE 0 END AS b FROM chunk_keys c WHERE c.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4)) AND c.user_id = $2 AND NOT (SELECT ok FROM enough) ORDER BY c.occurred_at DESC LIMIT $6),
     pre AS MATERIALIZED (
       SELECT id, fts, fts_len, session_id, uk, dataset FROM rare WHERE (SELECT ok FROM enough)
       UNION ALL
       (SELECT id, fts, fts_len, session_id, uk, dataset FROM (SELECT * FROM rare UNION SELECT * FROM rest) u
        WHERE NOT (SELECT ok FROM enough) ORDER BY b DESC, fts_len DESC, id LIMIT $20)),
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
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true AND user_key = $21),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(ln(1 + (sst.n - sdf.df + 0.5) / (sdf.df + 0.5)) * s.tf * 2.2 / (s.tf + 1.2 * (0.25 + 0.75 * b.len / sst.avgl))) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3),
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, coalesce(se.s, 0) AS session,
              d.s / nullif(max(d.s) OVER (), 0) + $23::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0) AS score
       FROM doc d LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id)
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $24

-- $1 = ["kubernet","grafana"]
-- $2 = "alice"
-- $3 = "kubernet"
-- $4 = "grafana"
-- $5 = 35.2
-- $6 = 1600
-- $7 = "kubernet"
-- $8 = "'kubernet':D"
-- $9 = "grafana"
-- $10 = "'grafana':D"
-- $11 = "kubernet"
-- $12 = "grafana"
-- $13 = 200
-- $14 = 200
-- $15 = 1.7976931348623157e+308
-- $16 = "kubernet"
-- $17 = "'kubernet':D"
-- $18 = "grafana"
-- $19 = "'grafana':D"
-- $20 = 200
-- $21 = "alice"
-- $22 = [6.1,5.8]
-- $23 = 0.3
-- $24 = 10
