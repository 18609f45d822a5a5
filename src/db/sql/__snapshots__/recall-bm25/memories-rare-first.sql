-- memories-rare-first: rare first
-- keywordSql('memories', {"userId":"alice"}, terms, 10, 0, undefined)
-- terms:
--   espresso: idf 5.2, in 300 of 100000 documents
--   coffe: idf 1.6, in 20000 of 100000 documents
--   prefer: idf 1.2, in 30000 of 100000 documents
WITH idf AS MATERIALIZED (SELECT * FROM unnest($1::text[], $19::float8[]) AS x(term, w)),
     rare AS MATERIALIZED (SELECT m.id, m.fts, m.fts_len, NULL::text AS session_id, coalesce(m.user_id, '') AS uk, m.dataset, CASE WHEN m.fts @@ plainto_tsquery('simple', $7) THEN 5.2 ELSE 0 END + CASE WHEN m.fts @@ plainto_tsquery('simple', $8) THEN 1.6 ELSE 0 END + CASE WHEN m.fts @@ plainto_tsquery('simple', $9) THEN 1.2 ELSE 0 END AS b FROM memories m WHERE m.fts @@ (plainto_tsquery('simple', $10) || plainto_tsquery('simple', $11)) AND m.user_id = $2 AND m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > now()) ORDER BY b DESC, fts_len DESC, id LIMIT $12),
     enough AS MATERIALIZED (SELECT count(*) >= $13 AND min(b) > $14::float8 AS ok FROM rare),
     rest AS MATERIALIZED (SELECT m.id, m.fts, m.fts_len, NULL::text AS session_id, coalesce(m.user_id, '') AS uk, m.dataset, CASE WHEN m.fts @@ plainto_tsquery('simple', $15) THEN 5.2 ELSE 0 END + CASE WHEN m.fts @@ plainto_tsquery('simple', $16) THEN 1.6 ELSE 0 END + CASE WHEN m.fts @@ plainto_tsquery('simple', $17) THEN 1.2 ELSE 0 END AS b FROM memories m WHERE m.fts @@ (plainto_tsquery('simple', $3) || plainto_tsquery('simple', $4) || plainto_tsquery('simple', $5)) AND m.user_id = $2 AND m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > now()) AND NOT (SELECT ok FROM enough) ),
     pre AS MATERIALIZED (
       SELECT id, fts, fts_len, session_id, uk, dataset FROM rare WHERE (SELECT ok FROM enough)
       UNION ALL
       (SELECT id, fts, fts_len, session_id, uk, dataset FROM rest
        WHERE NOT (SELECT ok FROM enough) ORDER BY b DESC, fts_len DESC, id LIMIT $18)),
     cand AS MATERIALIZED (
       SELECT id, fts_len, session_id, uk, dataset, ts_delete(fts, tsvector_to_array(ts_delete(fts, $1::text[]))) AS hit FROM pre),
     tf AS MATERIALIZED (
       SELECT c.id, c.fts_len, c.uk, c.dataset, c.session_id, u.lexeme AS term, memloom_term_weight(u.weights)::float8 AS tf,
              coalesce(cardinality(array_positions(u.weights, 'D')), 0) AS own
       FROM cand c, unnest(c.hit) u),
     doc AS MATERIALIZED (
       SELECT t.id, t.uk, t.dataset, t.session_id, sum(idf.w * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.fts_len / $6::float8))) AS s, array_agg(t.term) AS matched
       FROM tf t JOIN idf USING (term) GROUP BY 1, 2, 3, 4)
     ,
     scored AS (
       SELECT d.id, d.s AS bm25, d.matched, 0::float8 AS session,
              d.s / nullif(max(d.s) OVER (), 0)  AS score
       FROM doc d )
     SELECT id, bm25, session, score, matched FROM scored ORDER BY score DESC, id LIMIT $20

-- $1 = ["espresso","coffe","prefer"]
-- $2 = "alice"
-- $3 = "espresso"
-- $4 = "coffe"
-- $5 = "prefer"
-- $6 = 9.6
-- $7 = "espresso"
-- $8 = "coffe"
-- $9 = "prefer"
-- $10 = "espresso"
-- $11 = "coffe"
-- $12 = 200
-- $13 = 200
-- $14 = 1.2
-- $15 = "espresso"
-- $16 = "coffe"
-- $17 = "prefer"
-- $18 = 200
-- $19 = [5.2,1.6,1.2]
-- $20 = 10
