-- A memory's mutable signals (decay, access count, last access) move to their own narrow table.
-- In `memories` every recall (access_count + 1 on each returned memory) and every daily decay
-- refresh rewrote the whole row (vector inline, ~2 kB); with full pages PostgreSQL cannot update
-- in place (HOT), so each such write added entries to every index of memories, HNSW included
-- (~10 ms each at 100k memories), and without autovacuum (embedded PGlite) the dead versions stayed.
-- Here a write touches a ~60-byte row and its primary key only. No row means the defaults:
-- decay 1, never accessed.
CREATE TABLE memory_signals (
  tenant_id        text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id        uuid PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  decay            real NOT NULL DEFAULT 1,
  access_count     int NOT NULL DEFAULT 0,
  last_accessed_at timestamptz
);

INSERT INTO memory_signals (tenant_id, memory_id, decay, access_count, last_accessed_at)
SELECT tenant_id, id, decay, access_count, last_accessed_at FROM memories
WHERE decay <> 1 OR access_count <> 0 OR last_accessed_at IS NOT NULL;

ALTER TABLE memories DROP COLUMN decay, DROP COLUMN access_count, DROP COLUMN last_accessed_at;

ALTER TABLE memory_signals ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_signals FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_signals USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_signals TO memloom_app;
