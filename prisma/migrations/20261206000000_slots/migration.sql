-- Slots (src/domain/slots.ts): what a memory is about and which value it gives it, read by the
-- extractor (or a model), so that a newer statement about the same slot supersedes the older one
-- by event time. `slot` is the reading (about, value, kind, replaces, …) as JSON; `slot_keys` its
-- index keys (about-terms "a:…", values "v:…", a known category "k:…") for finding the active
-- memories of a user that may share the slot. A memory's validity interval is valid_from (its
-- event time) to superseded_at (its successor's valid_from), which the API calls valid_to.
ALTER TABLE memories ADD COLUMN slot jsonb, ADD COLUMN slot_keys text[];
CREATE INDEX memories_slot_keys_idx ON memories USING gin (slot_keys) WHERE status = 'active' AND slot_keys IS NOT NULL;
