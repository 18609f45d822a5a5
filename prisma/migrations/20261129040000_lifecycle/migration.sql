-- Memory lifecycle: per-user state of the background work that runs per user scope (auto-dream
-- triggers, the working-memory briefing). Counts "since the last dream" are computed from events
-- and memories at trigger time, so this table holds only timestamps and the last digest.
-- user_id '' is the scope of memories without a user (memories.user_id IS NULL).

CREATE TABLE user_state (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  user_id          text NOT NULL,
  last_dream_at    timestamptz,
  last_dream_stats jsonb NOT NULL DEFAULT '{}',
  last_briefing_at timestamptz,
  -- NULL when the last refresh found nothing to say (an empty digest is never emitted)
  briefing_md      text,
  briefing_tokens  int,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id)
);

ALTER TABLE user_state ENABLE ROW LEVEL SECURITY;
ALTER TABLE user_state FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON user_state USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON user_state TO memloom_app;

-- dream triggers count a scope's memories created since its last dream
CREATE INDEX memories_scope_created_idx ON memories (tenant_id, (coalesce(user_id, '')), created_at);
