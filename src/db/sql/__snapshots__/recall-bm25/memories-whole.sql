-- memories-whole: whole
-- keywordSql('memories', {"userId":"alice"}, terms, 10, 0, undefined)
-- terms:
--   coffe: idf 2.2, in 12 of 120 documents
--   prefer: idf 1.1, in 40 of 120 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $6::float8[]) AS x(term, w)),
     pre AS MATERIALIZED (SELECT m.id, m.fts, m.fts_len, NULL::text AS session_id, coalesce(m.user_id, '') AS uk, m.dataset FROM memories m WHERE m.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4)) AND m.user_id = $2 AND m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > now()) ),
     cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, $1::text[]))) AS hit FROM pre),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.fts_len / $5::float8))) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)
     ,
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, 0::float8 AS session,
              d.s / nullif(max(d.s) OVER (), 0)  AS score
       FROM doc d )
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $7

-- $1 = ["coffe","prefer"]
-- $2 = "alice"
-- $3 = "coffe"
-- $4 = "prefer"
-- $5 = 9.6
-- $6 = [2.2,1.1]
-- $7 = 10
