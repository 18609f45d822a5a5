-- pg_restore runs with an empty search_path. The generated columns chunks.fts_len and
-- memories.fts_len call memloom_key_length, whose SQL body calls memloom_term_weight unqualified,
-- so a restore failed ("function memloom_term_weight(text[]) does not exist") and left chunks and
-- memories out. The function now carries the search_path it was created with; it is only used by
-- those stored columns, so losing SQL-function inlining costs nothing at query time.
ALTER FUNCTION memloom_key_length(tsvector) SET search_path FROM CURRENT;
