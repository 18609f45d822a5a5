-- memloom initial schema. Applied by src/db/migrator.ts under an advisory lock.
-- Tenant-owned tables carry tenant_id and a FORCEd row-level-security policy on
-- current_setting('app.tenant_id'); the application runs as the non-superuser role memloom_app.
-- Vectors are stored in untyped `vector` columns with their model and dimensions; HNSW indexes are
-- partial expression indexes per dimension (src/db/vector-index.ts adds one for a configured
-- dimension that has none), so switching embedding models never needs a table rewrite.

CREATE EXTENSION IF NOT EXISTS vector;

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memloom_app') THEN
    CREATE ROLE memloom_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
END $$;

CREATE TABLE tenants (
  id          text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{1,64}$'),
  created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO tenants (id) VALUES ('default') ON CONFLICT DO NOTHING;

CREATE TABLE datasets (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);

CREATE TABLE pipeline_runs (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  stage       text NOT NULL,
  job_id      text,
  provider    text,
  model       text,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  stats       jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE events (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  -- client idempotency key, or a derived one (file lines: sha256(path + line number + line))
  idem_key     text NOT NULL,
  dataset      text NOT NULL DEFAULT 'default',
  user_id      text,
  agent_id     text,
  session_id   text,
  type         text NOT NULL DEFAULT 'message',
  role         text,
  content      text NOT NULL,
  content_hash text NOT NULL,
  occurred_at  timestamptz NOT NULL DEFAULT now(),
  received_at  timestamptz NOT NULL DEFAULT now(),
  importance   smallint CHECK (importance BETWEEN 1 AND 10),
  ttl          interval,
  metadata     jsonb NOT NULL DEFAULT '{}',
  source       text NOT NULL DEFAULT 'http',   -- http | file | client | feedback | cli
  source_ref   text,                           -- file path and line for file events
  -- pipeline state: received -> triaged -> chunked -> embedded -> done | skipped | failed
  status       text NOT NULL DEFAULT 'received',
  priority     smallint,
  skip_reason  text,
  error        text,
  enqueued_at  timestamptz,
  extract_pending boolean NOT NULL DEFAULT false,
  processed_at timestamptz,
  UNIQUE (tenant_id, idem_key)
);
CREATE INDEX events_session_idx ON events (tenant_id, session_id, seq);
CREATE INDEX events_not_enqueued_idx ON events (received_at) WHERE enqueued_at IS NULL;
CREATE INDEX events_pending_idx ON events (tenant_id) WHERE status NOT IN ('done', 'skipped', 'failed');
CREATE INDEX events_user_idx ON events (tenant_id, user_id);
CREATE INDEX events_dataset_idx ON events (tenant_id, dataset);

CREATE TABLE chunks (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- a chunk is evidence of exactly one event: its provenance is this foreign key
  event_id     uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  idx          int NOT NULL,
  content      text NOT NULL,
  start_offset int NOT NULL,
  end_offset   int NOT NULL,
  tokens       int NOT NULL,
  content_hash text NOT NULL,
  dataset      text NOT NULL DEFAULT 'default',
  user_id      text,
  agent_id     text,
  session_id   text,
  occurred_at  timestamptz NOT NULL,
  fts          tsvector NOT NULL,
  embedding    vector,
  embedding_model text,
  embedding_dims  int,
  run_id       uuid REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, idx)
);
CREATE INDEX chunks_fts_idx ON chunks USING gin (fts);
CREATE INDEX chunks_scope_idx ON chunks (tenant_id, user_id, occurred_at);
CREATE INDEX chunks_unembedded_idx ON chunks (event_id) WHERE embedding IS NULL;
CREATE INDEX chunks_hnsw_384 ON chunks USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE embedding_dims = 384;
CREATE INDEX chunks_hnsw_512 ON chunks USING hnsw ((embedding::vector(512)) vector_cosine_ops) WHERE embedding_dims = 512;

CREATE TABLE entities (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL,
  normalized_name text NOT NULL,
  type         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  fts          tsvector NOT NULL,
  embedding    vector,
  embedding_model text,
  embedding_dims  int,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, normalized_name, type)
);
CREATE INDEX entities_name_idx ON entities (tenant_id, normalized_name);
CREATE INDEX entities_fts_idx ON entities USING gin (fts);

CREATE TABLE memories (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  dataset      text NOT NULL DEFAULT 'default',
  user_id      text,
  agent_id     text,
  session_id   text,
  kind         text NOT NULL CHECK (kind IN ('fact','preference','decision','plan','procedure','profile','episode','insight')),
  content      text NOT NULL,
  content_hash text NOT NULL,                  -- sha256 of the normalised content
  subject_entity_id uuid REFERENCES entities(id) ON DELETE SET NULL,
  importance   smallint NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
  confidence   real NOT NULL DEFAULT 0.7 CHECK (confidence BETWEEN 0 AND 1),
  -- ranking signal lowered by negative feedback; never changes content
  rank_weight  real NOT NULL DEFAULT 1,
  event_time   timestamptz,
  time_precision text,
  occurred_at  timestamptz NOT NULL DEFAULT now(),  -- when the supporting event happened
  valid_from   timestamptz NOT NULL DEFAULT now(),
  superseded_by uuid REFERENCES memories(id) ON DELETE SET NULL,
  superseded_at timestamptz,
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active','superseded','archived')),
  expires_at   timestamptz,
  decay        real NOT NULL DEFAULT 1,
  access_count int NOT NULL DEFAULT 0,
  last_accessed_at timestamptz,
  is_crystal   boolean NOT NULL DEFAULT false,
  version      int NOT NULL DEFAULT 1,
  fts          tsvector NOT NULL,
  embedding    vector,
  embedding_model text,
  embedding_dims  int,
  run_id       uuid REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
-- one active memory per content within a user scope: replays and duplicates converge on it
CREATE UNIQUE INDEX memories_active_content_key ON memories (tenant_id, coalesce(user_id, ''), content_hash) WHERE status = 'active';
CREATE INDEX memories_scope_idx ON memories (tenant_id, user_id, status, kind);
CREATE INDEX memories_fts_idx ON memories USING gin (fts);
CREATE INDEX memories_expires_idx ON memories (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX memories_superseded_by_idx ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX memories_hnsw_384 ON memories USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE embedding_dims = 384;
CREATE INDEX memories_hnsw_512 ON memories USING hnsw ((embedding::vector(512)) vector_cosine_ops) WHERE embedding_dims = 512;

CREATE TABLE memory_relations (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  from_memory_id uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  to_memory_id   uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  relation     text NOT NULL CHECK (relation IN ('replaces','enriches','confirms','challenges')),
  is_progression boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_memory_id, to_memory_id, relation)
);
CREATE INDEX memory_relations_to_idx ON memory_relations (to_memory_id);

CREATE TABLE memory_entities (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id    uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  entity_id    uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  PRIMARY KEY (memory_id, entity_id)
);
CREATE INDEX memory_entities_entity_idx ON memory_entities (entity_id);

CREATE TABLE edges (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source_entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  target_entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  relation     text NOT NULL,
  description  text NOT NULL DEFAULT '',
  valid_at     timestamptz NOT NULL DEFAULT now(),
  invalid_at   timestamptz,
  fts          tsvector NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (source_entity_id, target_entity_id, relation)
);
CREATE INDEX edges_target_idx ON edges (target_entity_id);
CREATE INDEX edges_tenant_relation_idx ON edges (tenant_id, relation);

-- object <-> supporting event, plus the pipeline run that made the link. Deleting an event
-- cascades here; an object left with no provenance is removed by forget (see src/db/sql/forget.ts).
CREATE TABLE provenance (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  object_type  text NOT NULL CHECK (object_type IN ('memory','entity','edge','relation')),
  object_id    uuid NOT NULL,
  event_id     uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  run_id       uuid REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (object_type, object_id, event_id)
);
CREATE INDEX provenance_event_idx ON provenance (event_id);

CREATE TABLE embedding_cache (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  model        text NOT NULL,
  text_hash    text NOT NULL,
  dims         int NOT NULL,
  embedding    vector NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, model, text_hash)
);

CREATE TABLE recall_log (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  query        text NOT NULL,
  params       jsonb NOT NULL DEFAULT '{}',
  user_id      text,
  result_ids   uuid[] NOT NULL DEFAULT '{}',
  answer       text,
  took_ms      real,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE feedback (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  recall_id    uuid NOT NULL REFERENCES recall_log(id) ON DELETE CASCADE,
  score        smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
  text         text,
  event_id     uuid REFERENCES events(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (recall_id)
);

-- Files belong to the operator, not to a tenant: offsets are global.
CREATE TABLE watcher_offsets (
  path         text PRIMARY KEY,
  inode        text,
  byte_offset  bigint NOT NULL DEFAULT 0,
  line_number  bigint NOT NULL DEFAULT 0,
  size         bigint NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE dead_letters (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source       text NOT NULL,            -- file | http | job
  queue        text,
  job_id       text,
  file         text,
  line         bigint,
  code         text NOT NULL,
  message      text NOT NULL,
  payload      text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  retried_at   timestamptz
);
-- a malformed file line is dead-lettered once, even when the watcher replays the file
CREATE UNIQUE INDEX dead_letters_file_line_key ON dead_letters (tenant_id, file, line, md5(coalesce(payload, ''))) WHERE source = 'file';
CREATE UNIQUE INDEX dead_letters_job_key ON dead_letters (tenant_id, queue, job_id) WHERE source = 'job';

CREATE TABLE token_usage (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  provider     text NOT NULL,
  model        text NOT NULL,
  task         text NOT NULL,
  job_id       text,
  tokens_in    int NOT NULL DEFAULT 0,
  tokens_out   int NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX token_usage_window_idx ON token_usage (tenant_id, created_at);

-- Row-level security: every tenant-owned table, forced for the owner too.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['datasets','pipeline_runs','events','chunks','entities','memories','memory_relations',
                           'memory_entities','edges','provenance','embedding_cache','recall_log','feedback',
                           'dead_letters','token_usage'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (tenant_id = current_setting(''app.tenant_id'', true)) WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true))', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO memloom_app', t);
  END LOOP;
END $$;

GRANT SELECT ON tenants TO memloom_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON watcher_offsets TO memloom_app;
GRANT USAGE ON SCHEMA public TO memloom_app;
