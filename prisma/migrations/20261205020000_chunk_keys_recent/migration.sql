-- Keyword recall in a large scope.
--
-- 1. Full-text matching may use the GIN indexes under row-level security. memloom runs as
--    memloom_app under FORCEd RLS policies, and PostgreSQL evaluates a query's conditions that are
--    not LEAKPROOF only after the policy's: `fts @@ query` (ts_match_vq) is not marked LEAKPROOF,
--    so it could never be an index condition, and every keyword search read every row of its scope
--    (a user's 17,820 chunk keys for a term in none of them). ts_match_vq returns a boolean from
--    its two arguments and raises no error that depends on them, so marking it LEAKPROOF reveals
--    nothing about rows the policy hides. Only a superuser may mark it; a server role that is not
--    one leaves it as it was (keyword recall stays correct, only slower), and
--    docs/recall.md gives the statement for an administrator.
DO $$ BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
  ELSE
    RAISE NOTICE 'memloom: not a superuser, ts_match_vq stays non-LEAKPROOF (keyword recall cannot use the full-text indexes; see docs/recall.md)';
  END IF;
END $$;

-- 2. A user's chunk keys newest first: in a large scope, keyword recall reads the newest rows that
--    hold only common query terms through this index (src/db/sql/recall-bm25.ts,
--    RECENT_ROWS_PER_KEEP) instead of every key of the user.
CREATE INDEX chunk_keys_recent_idx ON chunk_keys (tenant_id, user_id, occurred_at);
