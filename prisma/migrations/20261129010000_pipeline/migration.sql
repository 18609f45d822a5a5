-- Pipeline support: a cache of paid LLM answers so a job replayed after a crash between the call and
-- its commit never pays twice, and the hashing embedder's document-frequency table shared by processes.

CREATE TABLE llm_cache (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  model        text NOT NULL,
  task         text NOT NULL,
  input_hash   text NOT NULL,
  output       jsonb NOT NULL,
  tokens_in    int NOT NULL DEFAULT 0,
  tokens_out   int NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, model, task, input_hash)
);
ALTER TABLE llm_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON llm_cache USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON llm_cache TO memloom_app;

-- Global (not tenant-owned): hashed feature counts reveal no text; one table serves every process.
CREATE TABLE embedder_stats (
  model        text PRIMARY KEY,
  stats        jsonb NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT, INSERT, UPDATE ON embedder_stats TO memloom_app;

-- the extraction session of an event: session_id, else the user's loose events, else the document itself
ALTER TABLE events ADD COLUMN extract_key text;
CREATE INDEX events_extract_pending_idx ON events (tenant_id, extract_key) WHERE extract_pending;
CREATE INDEX events_session_hash_idx ON events (tenant_id, session_id, content_hash);
