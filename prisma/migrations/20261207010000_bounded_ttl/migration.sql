-- An event's TTL whose expiry falls past 9999-12-31 is stored as no TTL (src/input.ts storableTtl):
-- `occurred_at + ttl` past 294276 AD failed every statement that computed an expiry ("timestamp
-- out of range": each extraction of the event's session, 15 times), and one past 9999 is written
-- by JavaScript in a form PostgreSQL does not read. Rows stored before the check get the same.
-- The lengths are compared as seconds, which cannot overflow where the sum would. Tenant by
-- tenant: row-level security is forced on events, also for an owner that is not a superuser.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT id FROM tenants LOOP
    PERFORM set_config('app.tenant_id', t, true);
    UPDATE events SET ttl = NULL
    WHERE ttl IS NOT NULL AND ttl > interval '100 years'
      AND extract(epoch FROM ttl) > extract(epoch FROM (timestamptz '9999-12-31 23:59:59+00' - occurred_at));
  END LOOP;
END $$;
