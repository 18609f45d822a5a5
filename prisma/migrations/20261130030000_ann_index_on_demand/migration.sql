-- HNSW indexes on demand. Every chunk and memory stored under an HNSW index pays a graph insert:
-- in embedded mode, on PGlite's one thread, that was ~15% of the pipeline's time (2,364 LoCoMo
-- events: 9.4-10.2 s with the indexes, 8.1-8.6 s without). Yet a search over at most 5,000 rows
-- (EXACT_SCAN_MAX, src/db/sql/recall.ts) is scored exactly and never uses them, and without an
-- index every search is exact. So the indexes are dropped here and created by
-- memloom_ensure_ann_index: at startup in server mode (always), and in embedded mode once the table
-- holds more than EXACT_SCAN_MAX rows (src/db/vector-index.ts). Building one over 5,000 hashing
-- vectors took 0.8 s in PGlite, once per table and dimension.
DROP INDEX IF EXISTS chunks_hnsw_384;
DROP INDEX IF EXISTS chunks_hnsw_512;
DROP INDEX IF EXISTS memories_hnsw_384;
DROP INDEX IF EXISTS memories_hnsw_512;

-- Creates `<tbl>_hnsw_<dims>` (the partial expression index the vector searches use, with the
-- graph parameters of migration 20261130020000) when it is missing and the table holds more than
-- `min_rows` rows (planner statistics; a count when the table was never analyzed). Returns
-- 'created', 'exists', 'small' (not built yet) or 'unsupported' (over pgvector's 2,000 dimensions
-- for HNSW; such vectors are searched without an index). SECURITY DEFINER: the application role may build these indexes and
-- nothing else; the table and dimension are checked, the name is built here.
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
