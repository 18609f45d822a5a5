-- events.status takes only the statuses of the event flow (src/queue/flow.ts EVENT_STATUSES): a
-- stage that writes a misspelt or forgotten status now fails its statement instead of leaving the
-- event where no stage looks for it. Safe on existing data: every version of memloom wrote only
-- these eight (the stages' SQL, the dead-letter marks and the import, which keeps a finished
-- status and restarts any other at 'received'). A database that holds another value from a hand
-- edit fails this migration with the constraint's name, before anything else changed.
-- Adding a status: the list in flow.ts, and a migration that replaces this constraint.
ALTER TABLE events ADD CONSTRAINT events_status_check
  CHECK (status IN ('received', 'triaged', 'chunked', 'embedded', 'extracting', 'done', 'skipped', 'failed'));
