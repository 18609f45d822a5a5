-- Dream works through a user scope's new memories in creation order, a short transaction per
-- batch, and keeps where it stopped here, so a run's cost follows what is new, and a run cut short
-- (the per-run caps, a crash, a shutdown) resumes instead of starting over. The crystal pass does
-- the same over memories changed since it last looked (new evidence: merges, extraction CONFIRM).
-- dream_backlog: the last run stopped at a cap with new memories left; the next trigger check
-- queues a dream at once.
ALTER TABLE user_state
  ADD COLUMN dream_cursor_at   timestamptz,
  ADD COLUMN dream_cursor_id   uuid,
  ADD COLUMN crystal_cursor_at timestamptz,
  ADD COLUMN crystal_cursor_id uuid,
  ADD COLUMN dream_backlog     boolean NOT NULL DEFAULT false;

-- A scope dreamed before this migration had every memory then looked at.
UPDATE user_state SET dream_cursor_at = last_dream_at, dream_cursor_id = 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  crystal_cursor_at = last_dream_at, crystal_cursor_id = 'ffffffff-ffff-ffff-ffff-ffffffffffff'
WHERE last_dream_at IS NOT NULL;

-- The crystal pass reads a scope's memories changed after its cursor.
CREATE INDEX memories_scope_updated_idx ON memories (tenant_id, (coalesce(user_id, '')), updated_at, id);
