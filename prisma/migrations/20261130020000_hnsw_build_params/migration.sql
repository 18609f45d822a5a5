-- Cheaper HNSW graphs: m = 8, ef_construction = 32 instead of pgvector's defaults (16, 64).
-- Every stored chunk and memory pays one HNSW insert, on PGlite's single thread in embedded mode;
-- it was the largest cost of the pipeline (about 3.8 ms per chunk and 3.5 ms per memory with the
-- defaults). Measured with scripts/bench-hnsw.ts (20,000 feature-hashing vectors, 384 dims, in
-- PGlite): 2.5 → 1.24 ms per insert; recall@10 against an exact scan 0.998 (defaults, ef_search
-- 80) → 0.967 at ef_search 80, 0.978 at 120, 0.990 at 200, for 3.4 → 4.2 ms per query at 200.
-- Recall searches with ef_search = max(200, 8 × limit) (src/recall/context.ts). Scopes of at
-- most 5,000 rows (most users) are scored exactly and never use these indexes.
-- The indexes are rebuilt here: on an existing store this takes about 1 ms per vector.
DROP INDEX IF EXISTS chunks_hnsw_384;
DROP INDEX IF EXISTS chunks_hnsw_512;
DROP INDEX IF EXISTS memories_hnsw_384;
DROP INDEX IF EXISTS memories_hnsw_512;
CREATE INDEX chunks_hnsw_384 ON chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE embedding_dims = 384;
CREATE INDEX chunks_hnsw_512 ON chunks USING hnsw ((embedding::vector(512)) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE embedding_dims = 512;
CREATE INDEX memories_hnsw_384 ON memories USING hnsw ((embedding::vector(384)) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE embedding_dims = 384;
CREATE INDEX memories_hnsw_512 ON memories USING hnsw ((embedding::vector(512)) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE embedding_dims = 512;
