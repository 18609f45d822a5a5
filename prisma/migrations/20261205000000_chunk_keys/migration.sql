-- Chunk BM25 reads the keys of every chunk of a scope that holds a common query term. In `chunks`
-- each key shares its row with the chunk's content and two inline 384-d vectors (3.8 kB a row in
-- the soak, 90 MB for 22,000 chunks), so a scan of a large user's chunks read 80 MB of pages, most
-- of them from disk (PGlite's 128 MB of shared buffers hold little else then): 75 ms for 17,672
-- chunks in the soak, 150-210 ms under load. `chunk_keys` holds just what keyword recall reads and
-- filters on (0.5 kB a row, 11 MB). Statement triggers on `chunks` keep it equal to `chunks` in the
-- writing transaction, whichever path writes (chunking, key refresh, import, forget, TTL,
-- cascades); its full-text index replaces the one on `chunks`, which only recall read.
CREATE TABLE chunk_keys (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id          uuid PRIMARY KEY,
  dataset     text NOT NULL,
  user_id     text,
  agent_id    text,
  session_id  text,
  occurred_at timestamptz NOT NULL,
  fts         tsvector NOT NULL,
  fts_len     real NOT NULL
);
-- Keys up to a page stay in the row uncompressed: a compressed key is decompressed by every term test.
ALTER TABLE chunk_keys ALTER COLUMN fts SET STORAGE MAIN;
ALTER TABLE chunk_keys SET (toast_tuple_target = 8160);
CREATE INDEX chunk_keys_scope_idx ON chunk_keys (tenant_id, user_id, dataset);
CREATE INDEX chunk_keys_fts_idx ON chunk_keys USING gin (fts);
ALTER TABLE chunk_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON chunk_keys USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON chunk_keys TO memloom_app;

INSERT INTO chunk_keys (tenant_id, id, dataset, user_id, agent_id, session_id, occurred_at, fts, fts_len)
  SELECT tenant_id, id, dataset, user_id, agent_id, session_id, occurred_at, fts, fts_len FROM chunks;

CREATE FUNCTION memloom_chunk_keys_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO chunk_keys (tenant_id, id, dataset, user_id, agent_id, session_id, occurred_at, fts, fts_len)
      SELECT tenant_id, id, dataset, user_id, agent_id, session_id, occurred_at, fts, fts_len FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM chunk_keys k USING old_rows o WHERE k.id = o.id;
  ELSE
    UPDATE chunk_keys k SET tenant_id = n.tenant_id, dataset = n.dataset, user_id = n.user_id, agent_id = n.agent_id,
                            session_id = n.session_id, occurred_at = n.occurred_at, fts = n.fts, fts_len = n.fts_len
      FROM new_rows n
      WHERE k.id = n.id AND (k.tenant_id, k.dataset, k.user_id, k.agent_id, k.session_id, k.occurred_at, k.fts, k.fts_len)
            IS DISTINCT FROM (n.tenant_id, n.dataset, n.user_id, n.agent_id, n.session_id, n.occurred_at, n.fts, n.fts_len);
  END IF;
  RETURN NULL;
END $$;
ALTER FUNCTION memloom_chunk_keys_sync() SET search_path FROM CURRENT;
CREATE TRIGGER chunks_keys_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();
CREATE TRIGGER chunks_keys_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();
CREATE TRIGGER chunks_keys_update AFTER UPDATE ON chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();

DROP INDEX chunks_fts_idx;
