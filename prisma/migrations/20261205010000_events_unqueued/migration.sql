-- Which stored events have not been handed to the queue yet. Before, the dispatcher marked each
-- event after adding its job (`UPDATE events SET enqueued_at = now()`); `enqueued_at` was in the
-- predicate of events_not_enqueued_idx, so the update was never HOT: it wrote a new version of the
-- whole row and an entry in every index of `events`, half of PostgreSQL's CPU in batched ingest
-- (58-125 ms per 1,000 events, the insert itself 29-64 ms). Now a trigger records every event
-- stored as `received` here, in the inserting statement, whichever path inserts (API, watcher,
-- import, plain SQL); the dispatcher deletes the rows of the events it queued, and the requeue
-- task enqueues what is left after a grace period. The table holds only events on their way to
-- the queue (or stranded by a queue outage or a crash), so its scans stay small.
-- No foreign keys: a check per row is what costs the events insert most (events_tenant_id_fkey);
-- a row whose event is gone or no longer `received` is dropped by the requeue task.
CREATE TABLE events_unqueued (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id'),
  event_id    uuid PRIMARY KEY,
  received_at timestamptz NOT NULL
);
CREATE INDEX events_unqueued_age_idx ON events_unqueued (tenant_id, received_at);
ALTER TABLE events_unqueued ENABLE ROW LEVEL SECURITY;
ALTER TABLE events_unqueued FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON events_unqueued USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON events_unqueued TO memloom_app;

INSERT INTO events_unqueued (tenant_id, event_id, received_at)
  SELECT tenant_id, id, received_at FROM events WHERE status = 'received' AND enqueued_at IS NULL;

CREATE FUNCTION memloom_events_unqueued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events_unqueued (tenant_id, event_id, received_at)
    SELECT tenant_id, id, received_at FROM new_rows WHERE status = 'received';
  RETURN NULL;
END $$;
ALTER FUNCTION memloom_events_unqueued() SET search_path FROM CURRENT;
CREATE TRIGGER events_unqueued_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION memloom_events_unqueued();

-- `enqueued_at` is now informational (set when triage claims the event, or on import).
DROP INDEX events_not_enqueued_idx;
