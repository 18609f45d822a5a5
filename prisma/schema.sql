-- The current schema: what the migrations in prisma/migrations build, in one file. Generated from a
-- freshly migrated embedded database by `npm run schema:snapshot`; do not edit by hand. A change to the
-- schema is a new migration, then that command (test/schema-snapshot.test.ts fails until it is run).
-- Not here: the vector indexes memloom creates at startup for the configured dimensions
-- (src/db/vector-index.ts), and BullMQ's own schema on the PostgreSQL queue backend.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE bm25_docs (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  corpus text NOT NULL,
  user_key text NOT NULL,
  dataset text NOT NULL,
  docs bigint NOT NULL,
  total_len double precision NOT NULL,
  CONSTRAINT bm25_docs_corpus_check CHECK ((corpus = ANY (ARRAY['chunks'::text, 'memories'::text]))),
  CONSTRAINT bm25_docs_pkey PRIMARY KEY (tenant_id, corpus, user_key, dataset),
  CONSTRAINT bm25_docs_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE bm25_docs ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_docs FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON bm25_docs AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE bm25_sessions (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  user_key text NOT NULL,
  dataset text NOT NULL,
  session_id text NOT NULL,
  chunks bigint NOT NULL,
  len double precision NOT NULL,
  CONSTRAINT bm25_sessions_pkey PRIMARY KEY (tenant_id, user_key, session_id, dataset),
  CONSTRAINT bm25_sessions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE bm25_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON bm25_sessions AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE bm25_term_deltas (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  corpus text NOT NULL,
  user_key text NOT NULL,
  dataset text NOT NULL,
  sign smallint NOT NULL,
  terms text[] NOT NULL,
  CONSTRAINT bm25_term_deltas_corpus_check CHECK ((corpus = ANY (ARRAY['chunks'::text, 'memories'::text]))),
  CONSTRAINT bm25_term_deltas_sign_check CHECK ((sign = ANY (ARRAY['-1'::integer, 1]))),
  CONSTRAINT bm25_term_deltas_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE bm25_term_deltas ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_term_deltas FORCE ROW LEVEL SECURITY;
CREATE INDEX bm25_term_deltas_scope_idx ON public.bm25_term_deltas USING btree (tenant_id, corpus, user_key, dataset);
CREATE POLICY tenant_isolation ON bm25_term_deltas AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE bm25_terms (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  corpus text NOT NULL,
  term text NOT NULL,
  user_key text NOT NULL,
  dataset text NOT NULL,
  df bigint NOT NULL,
  CONSTRAINT bm25_terms_corpus_check CHECK ((corpus = ANY (ARRAY['chunks'::text, 'memories'::text]))),
  CONSTRAINT bm25_terms_pkey PRIMARY KEY (tenant_id, corpus, term, user_key, dataset),
  CONSTRAINT bm25_terms_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE bm25_terms ENABLE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON bm25_terms AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE chunk_keys (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid NOT NULL,
  dataset text NOT NULL,
  user_id text,
  agent_id text,
  session_id text,
  occurred_at timestamp with time zone NOT NULL,
  fts tsvector NOT NULL,
  fts_len real NOT NULL,
  CONSTRAINT chunk_keys_pkey PRIMARY KEY (id),
  CONSTRAINT chunk_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE chunk_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_keys FORCE ROW LEVEL SECURITY;
CREATE INDEX chunk_keys_fts_idx ON public.chunk_keys USING gin (fts);
CREATE INDEX chunk_keys_recent_idx ON public.chunk_keys USING btree (tenant_id, user_id, occurred_at);
CREATE INDEX chunk_keys_scope_idx ON public.chunk_keys USING btree (tenant_id, user_id, dataset);
CREATE POLICY tenant_isolation ON chunk_keys AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE chunks (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  event_id uuid NOT NULL,
  idx integer NOT NULL,
  content text NOT NULL,
  start_offset integer NOT NULL,
  end_offset integer NOT NULL,
  tokens integer NOT NULL,
  content_hash text NOT NULL,
  dataset text DEFAULT 'default'::text NOT NULL,
  user_id text,
  agent_id text,
  session_id text,
  occurred_at timestamp with time zone NOT NULL,
  fts tsvector NOT NULL,
  embedding vector,
  embedding_model text,
  embedding_dims integer,
  run_id uuid,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  event_seq bigint NOT NULL,
  own_embedding vector,
  fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED,
  CONSTRAINT chunks_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE,
  CONSTRAINT chunks_event_id_idx_key UNIQUE (event_id, idx),
  CONSTRAINT chunks_pkey PRIMARY KEY (id),
  CONSTRAINT chunks_run_id_fkey FOREIGN KEY (run_id) REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  CONSTRAINT chunks_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunks FORCE ROW LEVEL SECURITY;
CREATE INDEX chunks_scope_idx ON public.chunks USING btree (tenant_id, user_id, occurred_at);
CREATE INDEX chunks_session_order_idx ON public.chunks USING btree (tenant_id, session_id, occurred_at, event_seq, idx) WHERE (session_id IS NOT NULL);
CREATE INDEX chunks_unembedded_idx ON public.chunks USING btree (event_id) WHERE (embedding IS NULL);
CREATE POLICY tenant_isolation ON chunks AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));
CREATE TRIGGER chunks_bm25_delete AFTER DELETE ON public.chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER chunks_bm25_insert AFTER INSERT ON public.chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER chunks_bm25_update AFTER UPDATE ON public.chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_chunks();
CREATE TRIGGER chunks_defaults BEFORE INSERT ON public.chunks FOR EACH ROW EXECUTE FUNCTION memloom_chunk_defaults();
CREATE TRIGGER chunks_keys_delete AFTER DELETE ON public.chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();
CREATE TRIGGER chunks_keys_insert AFTER INSERT ON public.chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();
CREATE TRIGGER chunks_keys_update AFTER UPDATE ON public.chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_chunk_keys_sync();

CREATE TABLE datasets (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  name text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT datasets_pkey PRIMARY KEY (id),
  CONSTRAINT datasets_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE,
  CONSTRAINT datasets_tenant_id_name_key UNIQUE (tenant_id, name)
);
ALTER TABLE datasets ENABLE ROW LEVEL SECURITY;
ALTER TABLE datasets FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON datasets AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE dead_letters (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  source text NOT NULL,
  queue text,
  job_id text,
  file text,
  line bigint,
  code text NOT NULL,
  message text NOT NULL,
  payload text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  retried_at timestamp with time zone,
  CONSTRAINT dead_letters_pkey PRIMARY KEY (id),
  CONSTRAINT dead_letters_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE dead_letters ENABLE ROW LEVEL SECURITY;
ALTER TABLE dead_letters FORCE ROW LEVEL SECURITY;
CREATE UNIQUE INDEX dead_letters_file_line_key ON public.dead_letters USING btree (tenant_id, file, line, md5(COALESCE(payload, ''::text))) WHERE (source = 'file'::text);
CREATE UNIQUE INDEX dead_letters_job_key ON public.dead_letters USING btree (tenant_id, queue, job_id) WHERE (source = 'job'::text);
CREATE POLICY tenant_isolation ON dead_letters AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE edges (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  source_entity_id uuid NOT NULL,
  target_entity_id uuid NOT NULL,
  relation text NOT NULL,
  description text DEFAULT ''::text NOT NULL,
  valid_at timestamp with time zone DEFAULT now() NOT NULL,
  invalid_at timestamp with time zone,
  fts tsvector NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  dataset text DEFAULT 'default'::text NOT NULL,
  user_id text,
  CONSTRAINT edges_pkey PRIMARY KEY (id),
  CONSTRAINT edges_source_entity_id_fkey FOREIGN KEY (source_entity_id) REFERENCES entities(id) ON DELETE CASCADE,
  CONSTRAINT edges_target_entity_id_fkey FOREIGN KEY (target_entity_id) REFERENCES entities(id) ON DELETE CASCADE,
  CONSTRAINT edges_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE edges ENABLE ROW LEVEL SECURITY;
ALTER TABLE edges FORCE ROW LEVEL SECURITY;
CREATE UNIQUE INDEX edges_scope_key ON public.edges USING btree (tenant_id, dataset, COALESCE(user_id, ''::text), source_entity_id, target_entity_id, relation);
CREATE INDEX edges_scope_relation_idx ON public.edges USING btree (tenant_id, COALESCE(user_id, ''::text), dataset, relation);
CREATE INDEX edges_source_idx ON public.edges USING btree (source_entity_id);
CREATE INDEX edges_target_idx ON public.edges USING btree (target_entity_id);
CREATE INDEX edges_tenant_relation_idx ON public.edges USING btree (tenant_id, relation);
CREATE POLICY tenant_isolation ON edges AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));
CREATE TRIGGER edges_scope BEFORE INSERT OR UPDATE OF source_entity_id, target_entity_id ON public.edges FOR EACH ROW EXECUTE FUNCTION memloom_edge_scope();

CREATE TABLE embedder_stats (
  model text NOT NULL,
  stats jsonb NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT embedder_stats_pkey PRIMARY KEY (model)
);

CREATE TABLE embedding_cache (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  model text NOT NULL,
  text_hash text NOT NULL,
  dims integer NOT NULL,
  embedding vector NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT embedding_cache_pkey PRIMARY KEY (tenant_id, model, text_hash),
  CONSTRAINT embedding_cache_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE embedding_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE embedding_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON embedding_cache AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE entities (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  name text NOT NULL,
  normalized_name text NOT NULL,
  type text NOT NULL,
  description text DEFAULT ''::text NOT NULL,
  fts tsvector NOT NULL,
  embedding vector,
  embedding_model text,
  embedding_dims integer,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  dataset text DEFAULT 'default'::text NOT NULL,
  user_id text,
  CONSTRAINT entities_pkey PRIMARY KEY (id),
  CONSTRAINT entities_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE entities FORCE ROW LEVEL SECURITY;
CREATE INDEX entities_fts_idx ON public.entities USING gin (fts);
CREATE UNIQUE INDEX entities_scope_key ON public.entities USING btree (tenant_id, dataset, COALESCE(user_id, ''::text), normalized_name, type);
CREATE INDEX entities_scope_updated_idx ON public.entities USING btree (tenant_id, COALESCE(user_id, ''::text), dataset, updated_at);
CREATE POLICY tenant_isolation ON entities AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE events (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  idem_key text NOT NULL,
  dataset text DEFAULT 'default'::text NOT NULL,
  user_id text,
  agent_id text,
  session_id text,
  type text DEFAULT 'message'::text NOT NULL,
  role text,
  content text NOT NULL,
  content_hash text NOT NULL,
  occurred_at timestamp with time zone DEFAULT now() NOT NULL,
  received_at timestamp with time zone DEFAULT now() NOT NULL,
  importance smallint,
  ttl interval,
  metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
  source text DEFAULT 'http'::text NOT NULL,
  source_ref text,
  status text DEFAULT 'received'::text NOT NULL,
  priority smallint,
  skip_reason text,
  error text,
  enqueued_at timestamp with time zone,
  extract_pending boolean DEFAULT false NOT NULL,
  processed_at timestamp with time zone,
  extract_key text,
  CONSTRAINT events_importance_check CHECK (((importance >= 1) AND (importance <= 10))),
  CONSTRAINT events_pkey PRIMARY KEY (id),
  CONSTRAINT events_status_check CHECK ((status = ANY (ARRAY['received'::text, 'triaged'::text, 'chunked'::text, 'embedded'::text, 'extracting'::text, 'done'::text, 'skipped'::text, 'failed'::text]))),
  CONSTRAINT events_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE,
  CONSTRAINT events_tenant_id_idem_key_key UNIQUE (tenant_id, idem_key)
);
ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE events FORCE ROW LEVEL SECURITY;
CREATE INDEX events_dataset_idx ON public.events USING btree (tenant_id, dataset);
CREATE INDEX events_extract_pending_idx ON public.events USING btree (tenant_id, extract_key) WHERE extract_pending;
CREATE INDEX events_pending_idx ON public.events USING btree (tenant_id) WHERE (status <> ALL (ARRAY['done'::text, 'skipped'::text, 'failed'::text]));
CREATE INDEX events_session_hash_idx ON public.events USING btree (tenant_id, session_id, content_hash);
CREATE INDEX events_session_idx ON public.events USING btree (tenant_id, session_id, seq);
CREATE INDEX events_user_idx ON public.events USING btree (tenant_id, user_id);
CREATE POLICY tenant_isolation ON events AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));
CREATE TRIGGER events_unqueued_insert AFTER INSERT ON public.events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_events_unqueued();

CREATE TABLE events_unqueued (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  event_id uuid NOT NULL,
  received_at timestamp with time zone NOT NULL,
  CONSTRAINT events_unqueued_pkey PRIMARY KEY (event_id)
);
ALTER TABLE events_unqueued ENABLE ROW LEVEL SECURITY;
ALTER TABLE events_unqueued FORCE ROW LEVEL SECURITY;
CREATE INDEX events_unqueued_age_idx ON public.events_unqueued USING btree (tenant_id, received_at);
CREATE POLICY tenant_isolation ON events_unqueued AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE feedback (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  recall_id uuid NOT NULL,
  score smallint NOT NULL,
  text text,
  event_id uuid,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT feedback_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE SET NULL,
  CONSTRAINT feedback_pkey PRIMARY KEY (id),
  CONSTRAINT feedback_recall_id_fkey FOREIGN KEY (recall_id) REFERENCES recall_log(id) ON DELETE CASCADE,
  CONSTRAINT feedback_recall_id_key UNIQUE (recall_id),
  CONSTRAINT feedback_score_check CHECK (((score >= 1) AND (score <= 5))),
  CONSTRAINT feedback_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE feedback ENABLE ROW LEVEL SECURITY;
ALTER TABLE feedback FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON feedback AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE gate_cooldowns (
  key text NOT NULL,
  until timestamp with time zone NOT NULL,
  CONSTRAINT gate_cooldowns_pkey PRIMARY KEY (key)
);

CREATE TABLE gate_leases (
  key text NOT NULL,
  holder text NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT gate_leases_pkey PRIMARY KEY (key, holder)
);

CREATE TABLE gate_windows (
  key text NOT NULL,
  window_start timestamp with time zone NOT NULL,
  used bigint DEFAULT 0 NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT gate_windows_pkey PRIMARY KEY (key, window_start)
);
CREATE INDEX gate_windows_expires_idx ON public.gate_windows USING btree (expires_at);

CREATE TABLE llm_cache (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  model text NOT NULL,
  task text NOT NULL,
  input_hash text NOT NULL,
  output jsonb NOT NULL,
  tokens_in integer DEFAULT 0 NOT NULL,
  tokens_out integer DEFAULT 0 NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT llm_cache_pkey PRIMARY KEY (tenant_id, model, task, input_hash),
  CONSTRAINT llm_cache_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE llm_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON llm_cache AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE memloom_migrations (
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT memloom_migrations_pkey PRIMARY KEY (name)
);

CREATE TABLE memloom_settings (
  name text NOT NULL,
  value text NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT memloom_settings_pkey PRIMARY KEY (name)
);

CREATE TABLE memories (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  dataset text DEFAULT 'default'::text NOT NULL,
  user_id text,
  agent_id text,
  session_id text,
  kind text NOT NULL,
  content text NOT NULL,
  content_hash text NOT NULL,
  subject_entity_id uuid,
  importance smallint DEFAULT 5 NOT NULL,
  confidence real DEFAULT 0.7 NOT NULL,
  rank_weight real DEFAULT 1 NOT NULL,
  event_time timestamp with time zone,
  time_precision text,
  occurred_at timestamp with time zone DEFAULT now() NOT NULL,
  valid_from timestamp with time zone DEFAULT now() NOT NULL,
  superseded_by uuid,
  superseded_at timestamp with time zone,
  status text DEFAULT 'active'::text NOT NULL,
  expires_at timestamp with time zone,
  is_crystal boolean DEFAULT false NOT NULL,
  version integer DEFAULT 1 NOT NULL,
  fts tsvector NOT NULL,
  embedding vector,
  embedding_model text,
  embedding_dims integer,
  run_id uuid,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  fts_len real GENERATED ALWAYS AS (memloom_key_length(fts)) STORED,
  slot jsonb,
  slot_keys text[],
  CONSTRAINT memories_confidence_check CHECK (((confidence >= (0)::double precision) AND (confidence <= (1)::double precision))),
  CONSTRAINT memories_importance_check CHECK (((importance >= 1) AND (importance <= 10))),
  CONSTRAINT memories_kind_check CHECK ((kind = ANY (ARRAY['fact'::text, 'preference'::text, 'decision'::text, 'plan'::text, 'procedure'::text, 'profile'::text, 'episode'::text, 'insight'::text]))),
  CONSTRAINT memories_pkey PRIMARY KEY (id),
  CONSTRAINT memories_run_id_fkey FOREIGN KEY (run_id) REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  CONSTRAINT memories_status_check CHECK ((status = ANY (ARRAY['active'::text, 'superseded'::text, 'archived'::text]))),
  CONSTRAINT memories_subject_entity_id_fkey FOREIGN KEY (subject_entity_id) REFERENCES entities(id) ON DELETE SET NULL,
  CONSTRAINT memories_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES memories(id) ON DELETE SET NULL,
  CONSTRAINT memories_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
CREATE UNIQUE INDEX memories_active_content_key ON public.memories USING btree (tenant_id, COALESCE(user_id, ''::text), content_hash) WHERE (status = 'active'::text);
CREATE INDEX memories_created_idx ON public.memories USING btree (tenant_id, created_at DESC, id DESC);
CREATE INDEX memories_expires_idx ON public.memories USING btree (expires_at) WHERE (expires_at IS NOT NULL);
CREATE INDEX memories_fts_idx ON public.memories USING gin (fts);
CREATE INDEX memories_scope_created_idx ON public.memories USING btree (tenant_id, COALESCE(user_id, ''::text), created_at);
CREATE INDEX memories_scope_idx ON public.memories USING btree (tenant_id, user_id, status, kind);
CREATE INDEX memories_scope_updated_idx ON public.memories USING btree (tenant_id, COALESCE(user_id, ''::text), updated_at, id);
CREATE INDEX memories_slot_keys_idx ON public.memories USING gin (slot_keys) WHERE ((status = 'active'::text) AND (slot_keys IS NOT NULL));
CREATE INDEX memories_superseded_by_idx ON public.memories USING btree (superseded_by) WHERE (superseded_by IS NOT NULL);
CREATE POLICY tenant_isolation ON memories AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));
CREATE TRIGGER memories_bm25_delete AFTER DELETE ON public.memories REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();
CREATE TRIGGER memories_bm25_insert AFTER INSERT ON public.memories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();
CREATE TRIGGER memories_bm25_update AFTER UPDATE ON public.memories REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memloom_bm25_memories();

CREATE TABLE memory_entities (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  memory_id uuid NOT NULL,
  entity_id uuid NOT NULL,
  user_id text,
  CONSTRAINT memory_entities_entity_id_fkey FOREIGN KEY (entity_id) REFERENCES entities(id) ON DELETE CASCADE,
  CONSTRAINT memory_entities_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE,
  CONSTRAINT memory_entities_pkey PRIMARY KEY (memory_id, entity_id),
  CONSTRAINT memory_entities_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE memory_entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_entities FORCE ROW LEVEL SECURITY;
CREATE INDEX memory_entities_entity_idx ON public.memory_entities USING btree (entity_id);
CREATE INDEX memory_entities_user_entity_idx ON public.memory_entities USING btree (tenant_id, user_id, entity_id, memory_id);
CREATE POLICY tenant_isolation ON memory_entities AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));
CREATE TRIGGER memory_entities_user BEFORE INSERT ON public.memory_entities FOR EACH ROW EXECUTE FUNCTION memloom_memory_entity_user();

CREATE TABLE memory_relations (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  from_memory_id uuid NOT NULL,
  to_memory_id uuid NOT NULL,
  relation text NOT NULL,
  is_progression boolean DEFAULT false NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT memory_relations_from_memory_id_fkey FOREIGN KEY (from_memory_id) REFERENCES memories(id) ON DELETE CASCADE,
  CONSTRAINT memory_relations_from_memory_id_to_memory_id_relation_key UNIQUE (from_memory_id, to_memory_id, relation),
  CONSTRAINT memory_relations_pkey PRIMARY KEY (id),
  CONSTRAINT memory_relations_relation_check CHECK ((relation = ANY (ARRAY['replaces'::text, 'enriches'::text, 'confirms'::text, 'challenges'::text]))),
  CONSTRAINT memory_relations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE,
  CONSTRAINT memory_relations_to_memory_id_fkey FOREIGN KEY (to_memory_id) REFERENCES memories(id) ON DELETE CASCADE
);
ALTER TABLE memory_relations ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_relations FORCE ROW LEVEL SECURITY;
CREATE INDEX memory_relations_to_idx ON public.memory_relations USING btree (to_memory_id);
CREATE POLICY tenant_isolation ON memory_relations AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE memory_signals (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  memory_id uuid NOT NULL,
  decay real DEFAULT 1 NOT NULL,
  access_count integer DEFAULT 0 NOT NULL,
  last_accessed_at timestamp with time zone,
  CONSTRAINT memory_signals_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE,
  CONSTRAINT memory_signals_pkey PRIMARY KEY (memory_id),
  CONSTRAINT memory_signals_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE memory_signals ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_signals FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_signals AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE pipeline_runs (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  stage text NOT NULL,
  job_id text,
  provider text,
  model text,
  started_at timestamp with time zone DEFAULT now() NOT NULL,
  finished_at timestamp with time zone,
  stats jsonb DEFAULT '{}'::jsonb NOT NULL,
  piece_key text,
  CONSTRAINT pipeline_runs_pkey PRIMARY KEY (id),
  CONSTRAINT pipeline_runs_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE pipeline_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE pipeline_runs FORCE ROW LEVEL SECURITY;
CREATE UNIQUE INDEX pipeline_runs_piece_key ON public.pipeline_runs USING btree (tenant_id, piece_key) WHERE (piece_key IS NOT NULL);
CREATE POLICY tenant_isolation ON pipeline_runs AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE provenance (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  object_type text NOT NULL,
  object_id uuid NOT NULL,
  event_id uuid NOT NULL,
  run_id uuid,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT provenance_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE,
  CONSTRAINT provenance_object_type_check CHECK ((object_type = ANY (ARRAY['memory'::text, 'entity'::text, 'edge'::text, 'relation'::text]))),
  CONSTRAINT provenance_pkey PRIMARY KEY (object_type, object_id, event_id),
  CONSTRAINT provenance_run_id_fkey FOREIGN KEY (run_id) REFERENCES pipeline_runs(id) ON DELETE SET NULL,
  CONSTRAINT provenance_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE provenance ENABLE ROW LEVEL SECURITY;
ALTER TABLE provenance FORCE ROW LEVEL SECURITY;
CREATE INDEX provenance_event_idx ON public.provenance USING btree (event_id);
CREATE POLICY tenant_isolation ON provenance AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE recall_log (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  query text NOT NULL,
  params jsonb DEFAULT '{}'::jsonb NOT NULL,
  user_id text,
  result_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
  answer text,
  took_ms real,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT recall_log_pkey PRIMARY KEY (id),
  CONSTRAINT recall_log_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE recall_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE recall_log FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON recall_log AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE tenants (
  id text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT tenants_id_check CHECK ((id ~ '^[A-Za-z0-9_-]{1,64}$'::text)),
  CONSTRAINT tenants_pkey PRIMARY KEY (id)
);

CREATE TABLE token_usage (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  task text NOT NULL,
  job_id text,
  tokens_in integer DEFAULT 0 NOT NULL,
  tokens_out integer DEFAULT 0 NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT token_usage_pkey PRIMARY KEY (id),
  CONSTRAINT token_usage_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE token_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE token_usage FORCE ROW LEVEL SECURITY;
CREATE INDEX token_usage_window_idx ON public.token_usage USING btree (tenant_id, created_at);
CREATE POLICY tenant_isolation ON token_usage AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE user_state (
  tenant_id text DEFAULT current_setting('app.tenant_id'::text) NOT NULL,
  user_id text NOT NULL,
  last_dream_at timestamp with time zone,
  last_dream_stats jsonb DEFAULT '{}'::jsonb NOT NULL,
  last_briefing_at timestamp with time zone,
  briefing_md text,
  briefing_tokens integer,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  dream_cursor_at timestamp with time zone,
  dream_cursor_id uuid,
  crystal_cursor_at timestamp with time zone,
  crystal_cursor_id uuid,
  dream_backlog boolean DEFAULT false NOT NULL,
  CONSTRAINT user_state_pkey PRIMARY KEY (tenant_id, user_id),
  CONSTRAINT user_state_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
);
ALTER TABLE user_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE user_state FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON user_state AS PERMISSIVE FOR ALL TO public USING ((tenant_id = current_setting('app.tenant_id'::text, true))) WITH CHECK ((tenant_id = current_setting('app.tenant_id'::text, true)));

CREATE TABLE watcher_offsets (
  path text NOT NULL,
  inode text,
  byte_offset bigint DEFAULT 0 NOT NULL,
  line_number bigint DEFAULT 0 NOT NULL,
  size bigint DEFAULT 0 NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT watcher_offsets_pkey PRIMARY KEY (path)
);

CREATE OR REPLACE FUNCTION public.gate_acquire(p_key text, p_holder text, p_limit integer, p_lease_ms bigint)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('memloom.gate.' || p_key));
  DELETE FROM gate_leases WHERE key = p_key AND expires_at < clock_timestamp();
  IF (SELECT count(*) FROM gate_leases WHERE key = p_key AND holder <> p_holder) >= p_limit THEN
    RETURN false;
  END IF;
  INSERT INTO gate_leases (key, holder, expires_at) VALUES (p_key, p_holder, clock_timestamp() + p_lease_ms * interval '1 millisecond')
  ON CONFLICT (key, holder) DO UPDATE SET expires_at = EXCLUDED.expires_at;
  RETURN true;
END $function$;

CREATE OR REPLACE FUNCTION public.gate_reserve(p_keys text[], p_window_ms bigint[], p_amounts bigint[], p_limits bigint[], p_cooldowns text[], OUT refused integer, OUT retry_after_ms bigint, OUT window_starts bigint[])
 RETURNS record
 LANGUAGE plpgsql
AS $function$
DECLARE
  now_ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  cooldown timestamptz;
  ws bigint;
  cur bigint;
  n int := coalesce(array_length(p_keys, 1), 0);
BEGIN
  refused := 0;
  retry_after_ms := 0;
  window_starts := ARRAY[]::bigint[];
  SELECT max(until) INTO cooldown FROM gate_cooldowns WHERE key = ANY (p_cooldowns);
  IF cooldown IS NOT NULL AND cooldown > clock_timestamp() THEN
    refused := -1;
    retry_after_ms := ceil(extract(epoch FROM cooldown - clock_timestamp()) * 1000)::bigint;
    RETURN;
  END IF;
  FOR i IN 1 .. n LOOP
    ws := (now_ms / p_window_ms[i]) * p_window_ms[i];
    window_starts := window_starts || ws;
    INSERT INTO gate_windows (key, window_start, used, expires_at)
    VALUES (p_keys[i], timestamptz 'epoch' + ws * interval '1 millisecond', 0,
            timestamptz 'epoch' + (ws + 2 * p_window_ms[i]) * interval '1 millisecond')
    ON CONFLICT (key, window_start) DO NOTHING;
    SELECT used INTO cur FROM gate_windows
    WHERE key = p_keys[i] AND window_start = timestamptz 'epoch' + ws * interval '1 millisecond' FOR UPDATE;
    IF cur + p_amounts[i] > p_limits[i] THEN
      refused := i;
      retry_after_ms := ws + p_window_ms[i] - now_ms;
      RETURN;
    END IF;
  END LOOP;
  FOR i IN 1 .. n LOOP
    UPDATE gate_windows SET used = used + p_amounts[i]
    WHERE key = p_keys[i] AND window_start = timestamptz 'epoch' + window_starts[i] * interval '1 millisecond';
  END LOOP;
  -- Housekeeping, rarely: windows are kept one extra window length for the budget metrics.
  IF random() < 0.01 THEN
    DELETE FROM gate_windows WHERE expires_at < clock_timestamp();
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_bm25_apply(p_corpus text, p_signs integer[], p_tenants text[], p_users text[], p_datasets text[], p_sessions text[], p_keys tsvector[], p_lens real[], p_against tsvector[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE removes boolean;
BEGIN
  IF p_keys IS NULL OR cardinality(p_keys) = 0 THEN RETURN; END IF;
  removes := -1 = ANY(p_signs);
  INSERT INTO bm25_docs AS d (tenant_id, corpus, user_key, dataset, docs, total_len)
  SELECT r.t, p_corpus, r.u, r.ds, sum(r.sg), sum(r.sg * r.len)
  FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_lens) AS r(sg, t, u, ds, len) GROUP BY 1, 3, 4
  HAVING sum(r.sg) <> 0 OR sum(r.sg * r.len) <> 0 ORDER BY 1, 3, 4
  ON CONFLICT (tenant_id, corpus, user_key, dataset) DO UPDATE SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
  IF removes THEN DELETE FROM bm25_docs d WHERE d.corpus = p_corpus AND d.docs = 0; END IF;
  INSERT INTO bm25_term_deltas (tenant_id, corpus, user_key, dataset, sign, terms)
  SELECT r.t, p_corpus, r.u, r.ds, r.sg, r.terms FROM (
    SELECT r.t, r.u, r.ds, r.sg, tsvector_to_array(CASE WHEN r.a IS NULL THEN r.k ELSE ts_delete(r.k, tsvector_to_array(r.a)) END) AS terms
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_keys, coalesce(p_against, array_fill(NULL::tsvector, ARRAY[cardinality(p_keys)])))
      AS r(sg, t, u, ds, k, a)) r
  WHERE cardinality(r.terms) > 0;
  IF p_corpus = 'chunks' AND EXISTS (SELECT 1 FROM unnest(p_sessions) s WHERE s IS NOT NULL) THEN
    INSERT INTO bm25_sessions AS s (tenant_id, user_key, dataset, session_id, chunks, len)
    SELECT r.t, r.u, r.ds, r.s, sum(r.sg), sum(r.sg * memloom_own_length(r.k))
    FROM unnest(p_signs, p_tenants, p_users, p_datasets, p_sessions, p_keys) AS r(sg, t, u, ds, s, k) WHERE r.s IS NOT NULL
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 4, 3
    ON CONFLICT (tenant_id, user_key, session_id, dataset) DO UPDATE SET chunks = s.chunks + excluded.chunks, len = s.len + excluded.len;
    IF removes THEN DELETE FROM bm25_sessions s WHERE s.chunks = 0 AND s.session_id = ANY(p_sessions); END IF;
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_bm25_chunks()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE r record; neighbours uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l, NULL::tsvector[] a INTO r FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(session_id) s,
           array_agg(fts) k, array_agg(fts_len) l, NULL::tsvector[] a INTO r FROM old_rows;
  ELSE
    -- Old and new versions of the rows whose key or scope changed; the session part only where
    -- the own text or the session changed (a neighbour arriving changes neither); the terms netted
    -- old against new where the scope (tenant, user, dataset) stayed.
    WITH changed AS (
      SELECT o.tenant_id AS ot, coalesce(o.user_id, '') AS ou, o.dataset AS ods, o.session_id AS os, o.fts AS ok, o.fts_len AS ol,
             n.tenant_id AS nt, coalesce(n.user_id, '') AS nu, n.dataset AS nds, n.session_id AS ns, n.fts AS nk, n.fts_len AS nl,
             (ts_filter(o.fts, '{d}') <> ts_filter(n.fts, '{d}') OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset
              OR o.session_id IS DISTINCT FROM n.session_id) AS own_changed,
             (o.tenant_id = n.tenant_id AND o.user_id IS NOT DISTINCT FROM n.user_id AND o.dataset = n.dataset) AS same_scope
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset OR o.session_id IS DISTINCT FROM n.session_id),
    signed AS (
      SELECT -1 AS sg, ot AS t, ou AS u, ods AS ds, CASE WHEN own_changed THEN os END AS s, ok AS k, ol AS l, CASE WHEN same_scope THEN nk END AS a FROM changed
      UNION ALL SELECT 1, nt, nu, nds, CASE WHEN own_changed THEN ns END, nk, nl, CASE WHEN same_scope THEN ok END FROM changed)
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(s) s, array_agg(k) k, array_agg(l) l, array_agg(a) a INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('chunks', r.sg, r.t, r.u, r.ds, r.s, r.k, r.l, r.a);
  IF TG_OP = 'DELETE' THEN
    -- The neighbours that remain no longer carry the deleted text.
    SELECT array_agg(DISTINCT id) INTO neighbours FROM (
      SELECT unnest(ARRAY[n.prev, n.next]) AS id
      FROM old_rows o, memloom_chunk_neighbours(o.tenant_id, o.dataset, coalesce(o.user_id, ''), o.session_id, o.occurred_at, o.event_seq, o.idx) n) x
    WHERE id IS NOT NULL;
    IF neighbours IS NOT NULL THEN PERFORM memloom_refresh_chunk_keys(neighbours); END IF;
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_bm25_fold(p_min integer DEFAULT 1)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE n int; zero text[];
BEGIN
  IF (SELECT count(*) FROM (SELECT 1 FROM bm25_term_deltas LIMIT greatest(p_min, 1)) x) < greatest(p_min, 1) THEN RETURN 0; END IF;
  IF NOT pg_try_advisory_xact_lock(hashtextextended(current_setting('app.tenant_id'), 727003)) THEN RETURN 0; END IF;
  WITH d AS (DELETE FROM bm25_term_deltas RETURNING tenant_id, corpus, user_key, dataset, sign, terms),
  net AS (
    SELECT d.tenant_id, d.corpus, u.term, d.user_key, d.dataset, sum(d.sign) AS df FROM d, unnest(d.terms) AS u(term)
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.sign) <> 0),
  up AS (
    INSERT INTO bm25_terms AS b (tenant_id, corpus, term, user_key, dataset, df)
    SELECT * FROM net ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, corpus, term, user_key, dataset) DO UPDATE SET df = b.df + excluded.df
    RETURNING b.term, b.df)
  SELECT (SELECT count(*) FROM d), (SELECT array_agg(term) FROM up WHERE df = 0) INTO n, zero;
  IF zero IS NOT NULL THEN DELETE FROM bm25_terms b WHERE b.term = ANY(zero) AND b.df = 0; END IF;
  RETURN n;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_bm25_memories()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l,
           NULL::tsvector[] a INTO r
    FROM new_rows WHERE status = 'active';
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1) sg, array_agg(tenant_id) t, array_agg(coalesce(user_id, '')) u, array_agg(dataset) ds, array_agg(fts) k, array_agg(fts_len) l,
           NULL::tsvector[] a INTO r
    FROM old_rows WHERE status = 'active';
  ELSE
    -- A memory active before and after in the same scope logs only the terms its key gained or lost.
    WITH changed AS (
      SELECT o.*, n.tenant_id AS nt, n.user_id AS nu, n.dataset AS nds, n.fts AS nk, n.fts_len AS nl, n.status AS nstatus,
             (o.status = 'active' AND n.status = 'active' AND o.tenant_id = n.tenant_id AND o.user_id IS NOT DISTINCT FROM n.user_id
              AND o.dataset = n.dataset) AS same_scope
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.status IS DISTINCT FROM n.status OR o.fts <> n.fts OR o.user_id IS DISTINCT FROM n.user_id OR o.dataset <> n.dataset),
    signed AS (
      SELECT -1 AS sg, tenant_id AS t, coalesce(user_id, '') AS u, dataset AS ds, fts AS k, fts_len AS l, CASE WHEN same_scope THEN nk END AS a
      FROM changed WHERE status = 'active'
      UNION ALL SELECT 1, nt, coalesce(nu, ''), nds, nk, nl, CASE WHEN same_scope THEN fts END FROM changed WHERE nstatus = 'active')
    SELECT array_agg(sg) sg, array_agg(t) t, array_agg(u) u, array_agg(ds) ds, array_agg(k) k, array_agg(l) l, array_agg(a) a INTO r FROM signed;
  END IF;
  PERFORM memloom_bm25_apply('memories', r.sg, r.t, r.u, r.ds, NULL, r.k, r.l, r.a);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_chunk_context(t text, ds text, uk text, sess text, at timestamp with time zone, seq bigint, i integer)
 RETURNS TABLE(prev2 uuid, prev uuid, next uuid, next2 uuid)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT b[2], b[1], a[1], a[2] FROM (
    SELECT ARRAY(SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) < (at, seq, i)
                   AND c.dataset = ds AND coalesce(c.user_id, '') = uk
                 ORDER BY c.tenant_id DESC, c.session_id DESC, c.occurred_at DESC, c.event_seq DESC, c.idx DESC LIMIT 2) AS b,
           ARRAY(SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) > (at, seq, i)
                   AND c.dataset = ds AND coalesce(c.user_id, '') = uk
                 ORDER BY c.tenant_id, c.session_id, c.occurred_at, c.event_seq, c.idx LIMIT 2) AS a) x
$function$;

CREATE OR REPLACE FUNCTION public.memloom_chunk_defaults()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF NEW.event_seq IS NULL THEN NEW.event_seq := (SELECT e.seq FROM events e WHERE e.id = NEW.event_id); END IF;
  IF NEW.own_embedding IS NULL THEN NEW.own_embedding := NEW.embedding; END IF;
  RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_chunk_keys_sync()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'bullmq'
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_chunk_neighbours(t text, ds text, uk text, sess text, at timestamp with time zone, seq bigint, i integer)
 RETURNS TABLE(prev uuid, next uuid)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) < (at, seq, i)
            AND c.dataset = ds AND coalesce(c.user_id, '') = uk
          ORDER BY c.tenant_id DESC, c.session_id DESC, c.occurred_at DESC, c.event_seq DESC, c.idx DESC LIMIT 1),
         (SELECT c.id FROM chunks c WHERE c.tenant_id = t AND c.session_id = sess AND (c.occurred_at, c.event_seq, c.idx) > (at, seq, i)
            AND c.dataset = ds AND coalesce(c.user_id, '') = uk
          ORDER BY c.tenant_id, c.session_id, c.occurred_at, c.event_seq, c.idx LIMIT 1)
$function$;

CREATE OR REPLACE FUNCTION public.memloom_edge_scope()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'bullmq'
AS $function$
DECLARE t_dataset text; t_user text;
BEGIN
  SELECT s.dataset, s.user_id INTO NEW.dataset, NEW.user_id FROM entities s WHERE s.id = NEW.source_entity_id;
  SELECT t.dataset, t.user_id INTO t_dataset, t_user FROM entities t WHERE t.id = NEW.target_entity_id;
  IF t_dataset IS DISTINCT FROM NEW.dataset OR t_user IS DISTINCT FROM NEW.user_id THEN
    RAISE EXCEPTION 'an edge joins two entities of one scope (dataset, user)' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$function$;

CREATE OR REPLACE FUNCTION public.memloom_ensure_ann_index(tbl text, dims integer, min_rows integer)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_catalog'
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_events_unqueued()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'bullmq'
AS $function$
BEGIN
  INSERT INTO events_unqueued (tenant_id, event_id, received_at)
    SELECT tenant_id, id, received_at FROM new_rows WHERE status = 'received';
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.memloom_key_length(k tsvector)
 RETURNS real
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'public', 'bullmq'
AS $function$
  SELECT coalesce(sum(memloom_term_weight(u.weights)), 0)::real FROM unnest(k) u
$function$;

CREATE OR REPLACE FUNCTION public.memloom_lock_sessions(ids uuid[])
 RETURNS void
 LANGUAGE sql
AS $function$
  SELECT count(pg_advisory_xact_lock(k)) FROM (
    SELECT DISTINCT hashtextextended(concat_ws(chr(31), c.tenant_id, c.dataset, coalesce(c.user_id, ''), c.session_id), 727002) AS k
    FROM chunks c WHERE c.id = ANY(ids) AND c.session_id IS NOT NULL ORDER BY 1) s
$function$;

CREATE OR REPLACE FUNCTION public.memloom_memory_entity_user()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'bullmq'
AS $function$
BEGIN
  SELECT m.user_id INTO NEW.user_id FROM memories m WHERE m.id = NEW.memory_id;
  RETURN NEW;
END
$function$;

CREATE OR REPLACE FUNCTION public.memloom_meta_key(k tsvector)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT setweight(to_tsvector('simple', array_to_string(tsvector_to_array(k), ' ')), 'A')
$function$;

CREATE OR REPLACE FUNCTION public.memloom_own_length(k tsvector)
 RETURNS real
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT count(*)::real FROM unnest(ts_filter(k, '{d}')) u, unnest(u.positions) p
$function$;

CREATE OR REPLACE FUNCTION public.memloom_refresh_chunk_keys(ids uuid[], parts text DEFAULT 'all'::text)
 RETURNS void
 LANGUAGE sql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.memloom_term_weight(w text[])
 RETURNS real
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT (coalesce(cardinality(array_positions(w, 'D')), 0) + 0.5 * coalesce(cardinality(array_positions(w, 'A')), 0)
          + 0.5 * coalesce(cardinality(array_positions(w, 'C')), 0) + 0.3 * coalesce(cardinality(array_positions(w, 'B')), 0))::real
$function$;
