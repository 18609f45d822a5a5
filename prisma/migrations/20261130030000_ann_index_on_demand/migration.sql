-- HNSW indexes on demand. Every chunk and memory stored under an HNSW index pays a graph insert:
-- in embedded mode, on PGlite's one thread, that was ~15% of the pipeline's time (2,364 LoCoMo
-- events: 9.4-10.2 s with the indexes, 8.1-8.6 s without). Yet a search over at most 5,000 rows
-- (EXACT_SCAN_MAX, src/db/sql/recall.ts) is scored exactly and never uses them, and without an
-- index every search is exact. So the indexes of tables of at most 5,000 rows are dropped here
-- (larger tables keep theirs: rebuilding costs about 1 ms per vector) and memloom_ensure_ann_index
-- creates them: at startup in server mode (always), and in embedded mode once the table holds more
-- than EXACT_SCAN_MAX rows (src/db/vector-index.ts). Building one over 5,000 hashing vectors took
-- 0.8 s in PGlite, once per table and dimension. Row counts are the planner's (reltuples, which
-- ANALYZE and CREATE INDEX keep; -1 for a table never analyzed, whose index is dropped and rebuilt).
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT i.indexname, c.reltuples FROM pg_indexes i
           JOIN pg_class c ON c.relname = i.tablename AND c.relnamespace = 'public'::regnamespace
           WHERE i.schemaname = 'public' AND i.indexname ~ '^(chunks|memories)_hnsw_[0-9]+$' LOOP
    IF r.reltuples <= 5000 THEN
      EXECUTE format('DROP INDEX %I', r.indexname);
    END IF;
  END LOOP;
END $$;

-- Creates `<tbl>_hnsw_<dims>` (the partial expression index the vector searches use, with the
-- graph parameters of migration 20261130020000) when it is missing and the table holds more than
-- `min_rows` rows (planner statistics; a count when the table was never analyzed). Returns
-- 'created', 'exists', 'small' (not built yet) or 'unsupported' (over pgvector's 2,000 dimensions
-- for HNSW; such vectors are searched without an index). SECURITY DEFINER: the application role
-- may build these indexes and nothing else; the table and dimension are checked, the name is
-- built here.
CREATE FUNCTION memloom_ensure_ann_index(tbl text, dims int, min_rows int) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $$
DECLARE
  idx text := format('%s_hnsw_%s', tbl, dims);
  n real;
BEGIN
  IF tbl NOT IN ('chunks', 'memories') THEN
    RAISE EXCEPTION 'memloom_ensure_ann_index: no vector index on table %', tbl;
  END IF;
  IF dims IS NULL OR dims < 1 OR dims > 2000 THEN
    RETURN 'unsupported';
  END IF;
  -- Processes starting together (server mode) would otherwise both find the index missing, and
  -- the second CREATE INDEX would fail on the catalog's unique name once the first commits.
  PERFORM pg_advisory_xact_lock(727002); -- the migrator holds 727001 (src/db/migrator.ts)
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = 'public' AND indexname = idx) THEN
    RETURN 'exists';
  END IF;
  IF min_rows > 0 THEN
    SELECT reltuples INTO n FROM pg_class WHERE oid = format('public.%I', tbl)::regclass;
    IF n < 0 THEN
      EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM public.%I LIMIT %s) s', tbl, min_rows + 1) INTO n;
    END IF;
    IF n <= min_rows THEN
      RETURN 'small';
    END IF;
  END IF;
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON public.%I USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE embedding_dims = %s',
    idx, tbl, dims, dims);
  RETURN 'created';
END $$;

REVOKE ALL ON FUNCTION memloom_ensure_ann_index(text, int, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memloom_ensure_ann_index(text, int, int) TO memloom_app;
