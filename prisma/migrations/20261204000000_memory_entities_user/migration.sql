-- Recall's entity retriever asks for the memories of a few named entities within one user. With
-- links indexed by entity alone it read every user's links of those entities (31,000 rows for 13
-- entities at 100k memories) and joined them with the user's memories. A link now carries its
-- memory's user, set by a trigger so every writer (extraction, dream, correction, import, plain
-- SQL) fills it, and an index by (tenant, user, entity) reads only the user's own links.
-- A memory's user never changes, so the copy cannot go stale.
ALTER TABLE memory_entities ADD COLUMN user_id text;

UPDATE memory_entities me SET user_id = m.user_id FROM memories m WHERE m.id = me.memory_id AND m.user_id IS NOT NULL;

CREATE FUNCTION memloom_memory_entity_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT m.user_id INTO NEW.user_id FROM memories m WHERE m.id = NEW.memory_id;
  RETURN NEW;
END
$$;
ALTER FUNCTION memloom_memory_entity_user() SET search_path FROM CURRENT;

CREATE TRIGGER memory_entities_user BEFORE INSERT ON memory_entities
  FOR EACH ROW EXECUTE FUNCTION memloom_memory_entity_user();

CREATE INDEX memory_entities_user_entity_idx ON memory_entities (tenant_id, user_id, entity_id, memory_id);
