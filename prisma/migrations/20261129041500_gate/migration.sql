-- Shared state of the provider gate (src/providers/gate.ts) when no Redis is configured.
-- Global tables: no tenant_id and no row-level security, because they hold counters shared by all
-- tenants and all processes, never tenant content (a tenant id appears only inside a key).
-- Every function below is one statement for the caller, so it runs in its own short transaction;
-- callers never call them inside another transaction (PGlite has one session).

-- Fixed windows: one row per (key, window). `used` is tokens or requests reserved in that window,
-- corrected after each call by the difference between the provider's usage and the estimate.
CREATE TABLE gate_windows (
  key          text NOT NULL,
  window_start timestamptz NOT NULL,
  used         bigint NOT NULL DEFAULT 0,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX gate_windows_expires_idx ON gate_windows (expires_at);

-- Concurrency semaphore: one row per holder; a lease that outlives its holder (crash) expires.
CREATE TABLE gate_leases (
  key        text NOT NULL,
  holder     text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (key, holder)
);

-- "Nobody calls this provider before": set from a provider 429's Retry-After.
CREATE TABLE gate_cooldowns (
  key   text PRIMARY KEY,
  until timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON gate_windows, gate_leases, gate_cooldowns TO memloom_app;

-- Reserves amounts in several windows, all or nothing. Windows are aligned to the epoch and
-- computed from the database clock, so every process agrees on them. Rows are locked in the
-- order given (callers sort keys), so concurrent reservations cannot deadlock.
-- Returns refused = 0 and the window starts (epoch ms) on success; refused = -1 while a cooldown
-- runs, refused = i when window i has no room; retry_after_ms = time until that ends.
CREATE FUNCTION gate_reserve(p_keys text[], p_window_ms bigint[], p_amounts bigint[], p_limits bigint[], p_cooldowns text[],
                             OUT refused int, OUT retry_after_ms bigint, OUT window_starts bigint[])
LANGUAGE plpgsql AS $$
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
END $$;

-- Takes one of p_limit slots of a semaphore for p_lease_ms. The advisory lock serialises
-- acquirers of one key, so the count and the insert cannot race.
CREATE FUNCTION gate_acquire(p_key text, p_holder text, p_limit int, p_lease_ms bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('memloom.gate.' || p_key));
  DELETE FROM gate_leases WHERE key = p_key AND expires_at < clock_timestamp();
  IF (SELECT count(*) FROM gate_leases WHERE key = p_key AND holder <> p_holder) >= p_limit THEN
    RETURN false;
  END IF;
  INSERT INTO gate_leases (key, holder, expires_at) VALUES (p_key, p_holder, clock_timestamp() + p_lease_ms * interval '1 millisecond')
  ON CONFLICT (key, holder) DO UPDATE SET expires_at = EXCLUDED.expires_at;
  RETURN true;
END $$;
