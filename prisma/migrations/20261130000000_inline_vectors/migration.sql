-- Keep vectors in the heap row instead of TOAST: a 384-d vector (1.5 kB) pushed memory rows past
-- the 2 kB toast threshold, so every vector comparison outside the index (exact scans, reranking,
-- the filtered HNSW walk's rechecks) paid a TOAST index lookup and 3–6 buffer reads per row. At
-- 100k memories in embedded mode this took a user's vector search from p50 55 / p95 200 ms to
-- p50 21 / p95 25 ms. MAIN still moves a value out of line when a row cannot fit in a page
-- (very wide vectors). Existing rows move inline when rewritten (VACUUM FULL <table>).
ALTER TABLE memories ALTER COLUMN embedding SET STORAGE MAIN, SET (toast_tuple_target = 8160);
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN, SET (toast_tuple_target = 8160);
ALTER TABLE entities ALTER COLUMN embedding SET STORAGE MAIN, SET (toast_tuple_target = 8160);

