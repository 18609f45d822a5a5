-- Full-text keys are tokenised with Porter's stemmer now (src/domain/text.ts, FTS_KEYS_VERSION),
-- in TypeScript, so the key's time and speaker words (weight A) are too: the chunk stage, import and
-- the upgrade write them (metaDocument), and a key rebuild keeps them instead of deriving them
-- from the event here, where they would not be stemmed and would miss the query's stems.
-- memloom_meta_key gives the A part one canonical form (each lexeme once, positions 1..n in
-- lexeme order) whether built from the words or taken from a stored key, so a rebuild changes no key.
CREATE FUNCTION memloom_meta_key(k tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', array_to_string(tsvector_to_array(k), ' ')), 'A')
$$;

-- Facts about the database itself, not about any tenant: the version of the full-text tokenizer
-- that wrote the stored keys (src/db/fts-upgrade.ts rewrites them at startup when it differs).
-- Startup reads and writes it as the owner; the app role may too (in embedded mode the one
-- session runs as the app role once started). No tenant data is in it.
CREATE TABLE memloom_settings (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT, INSERT, UPDATE ON memloom_settings TO memloom_app;

-- A chunk's key also carries the second previous chunk of its session (weight B, as the next one):
-- a reply often answers the turn before the one it follows. memloom_chunk_context gives the two
-- chunks before and the two after a position, each side one index walk; a chunk's text is in the
-- keys of the chunk before it and of the two after it.
CREATE FUNCTION memloom_chunk_context(t text, ds text, uk text, sess text, at timestamptz, seq bigint, i int)
RETURNS TABLE (prev2 uuid, prev uuid, next uuid, next2 uuid) LANGUAGE sql STABLE AS $$
  SELECT b[2], b[1], a[1], a[2] FROM (
    SELECT ARRAY(SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) < (at, seq, i)
                   AND c.dataset = ds AND coalesce(c.user_id, '') = uk
                 ORDER BY c.tenant_id DESC, c.session_id DESC, c.occurred_at DESC, c.event_seq DESC, c.idx DESC LIMIT 2) AS b,
           ARRAY(SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) > (at, seq, i)
                   AND c.dataset = ds AND coalesce(c.user_id, '') = uk
                 ORDER BY c.tenant_id, c.session_id, c.occurred_at, c.event_seq, c.idx LIMIT 2) AS a) x
$$;

-- The definition of a key: own text (D), time and speaker words (A), the previous chunk's own text
-- (C), the next chunk's and the second previous chunk's (B); the vector adds the previous and next
-- own vectors. Rebuilds the given chunks and every chunk whose key holds one of them.
CREATE OR REPLACE FUNCTION memloom_refresh_chunk_keys(ids uuid[], parts text DEFAULT 'all') RETURNS void LANGUAGE sql AS $$
  WITH seed AS (
    SELECT c.tenant_id, c.dataset, coalesce(c.user_id, '') AS uk, c.session_id, c.occurred_at, c.event_seq, c.idx, c.id
    FROM chunks c WHERE c.id = ANY(ids)
  ), touched AS (
    SELECT id FROM seed
    UNION SELECT unnest(ARRAY[n.prev, n.next, n.next2]) FROM seed s, memloom_chunk_context(s.tenant_id, s.dataset, s.uk, s.session_id, s.occurred_at, s.event_seq, s.idx) n
  ), rows AS (
    SELECT c.id, c.fts, c.own_embedding, c.embedding, c.embedding_model, c.occurred_at, p.fts AS pfts, x.fts AS xfts, p2.fts AS p2fts,
           CASE WHEN p.embedding_model = c.embedding_model AND vector_dims(p.own_embedding) = vector_dims(c.own_embedding) THEN p.own_embedding END AS pvec,
           CASE WHEN x.embedding_model = c.embedding_model AND vector_dims(x.own_embedding) = vector_dims(c.own_embedding) THEN x.own_embedding END AS xvec
    FROM touched t
    JOIN chunks c ON c.id = t.id
    CROSS JOIN LATERAL memloom_chunk_context(c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id, c.occurred_at, c.event_seq, c.idx) n
    LEFT JOIN LATERAL (SELECT p.fts, p.own_embedding, p.embedding_model FROM chunks p WHERE p.id = n.prev LIMIT 1) p ON true
    LEFT JOIN LATERAL (SELECT x.fts, x.own_embedding, x.embedding_model FROM chunks x WHERE x.id = n.next LIMIT 1) x ON true
    LEFT JOIN LATERAL (SELECT p2.fts FROM chunks p2 WHERE p2.id = n.prev2 LIMIT 1) p2 ON true
  ), scale AS (
    SELECT d, array_fill(0.5::real, ARRAY[d])::vector AS prev, array_fill(0.3::real, ARRAY[d])::vector AS next
    FROM (SELECT DISTINCT vector_dims(own_embedding) AS d FROM rows WHERE own_embedding IS NOT NULL) dims
  ), keyed AS (
    SELECT r.id,
           CASE WHEN parts = 'vector' THEN r.fts ELSE
           ts_filter(r.fts, '{d}')
             || memloom_meta_key(ts_filter(r.fts, '{a}'))
             || setweight(ts_filter(coalesce(r.pfts, ''::tsvector), '{d}'), 'C')
             || setweight(ts_filter(coalesce(r.xfts, ''::tsvector), '{d}'), 'B')
             || setweight(ts_filter(coalesce(r.p2fts, ''::tsvector), '{d}'), 'B') END AS fts,
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
