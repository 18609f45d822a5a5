-- chunks-whole: whole
-- keywordSql('chunks', {"userId":"alice"}, terms, 10, 0.3, undefined)
-- terms:
--   research: idf 3.1, in 6 of 150 documents
--   caroline: idf 0.4, in 100 of 150 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $7::float8[]) AS x(term, w)),
     pre AS MATERIALIZED (SELECT c.id, c.fts, c.fts_len, c.session_id, coalesce(c.user_id, '') AS uk, c.dataset FROM chunk_keys c WHERE c.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4)) AND c.user_id = $2 ),
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
       sst AS MATERIALIZED (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgl FROM bm25_sessions WHERE true AND user_key = $6),
       sdf AS MATERIALIZED (SELECT term, count(*)::float8 AS df FROM sess_tf GROUP BY term),
       sess AS MATERIALIZED (
         SELECT s.uk, s.dataset, s.session_id, sum(ln(1 + (sst.n - sdf.df + 0.5) / (sdf.df + 0.5)) * s.tf * 2.2 / (s.tf + 1.2 * (0.25 + 0.75 * b.len / sst.avgl))) AS s
         FROM sess_tf s JOIN sdf USING (term)
         JOIN bm25_sessions b ON b.user_key = s.uk AND b.dataset = s.dataset AND b.session_id = s.session_id CROSS JOIN sst
         GROUP BY 1, 2, 3),
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, coalesce(se.s, 0) AS session,
              d.s / nullif(max(d.s) OVER (), 0) + $8::float8 * coalesce(se.s / nullif(max(se.s) OVER (), 0), 0) AS score
       FROM doc d LEFT JOIN sess se ON se.uk = d.uk AND se.dataset = d.dataset AND se.session_id = d.session_id)
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $9

-- $1 = ["research","caroline"]
-- $2 = "alice"
-- $3 = "research"
-- $4 = "caroline"
-- $5 = 31.4
-- $6 = "alice"
-- $7 = [3.1,0.4]
-- $8 = 0.3
-- $9 = 10
