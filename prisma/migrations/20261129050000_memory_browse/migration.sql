-- GET /v1/memories lists newest first and pages on the keyset (created_at, id): with this index a
-- page reads its rows in order instead of sorting every memory of the tenant (520 ms CPU at 100k
-- memories in embedded mode without it).
CREATE INDEX memories_created_idx ON memories (tenant_id, created_at DESC, id DESC);
