-- Entities and edges are scoped like memories: (tenant, dataset, user). One user's graph never
-- shows another's: "Postgres" said by dana and "Postgres" said by eli are two entities, each with
-- its own edges. A NULL user is one scope (coalesce(user_id, ''), as memories_active_content_key).
--
-- Existing data is split set-based: an entity gets one copy per (dataset, user) that uses it —
-- through its memories' links and subjects, its own provenance events and the provenance events
-- of its edges. The first scope (in dataset, user order) keeps the entity's id; the others get new
-- ids. Links, subjects and provenance are re-pointed to the copy of their scope, and each edge is
-- split by the scopes of its provenance events. RLS is unchanged (tenant).
ALTER TABLE entities ADD COLUMN dataset text NOT NULL DEFAULT 'default', ADD COLUMN user_id text;
ALTER TABLE edges ADD COLUMN dataset text NOT NULL DEFAULT 'default', ADD COLUMN user_id text;
ALTER TABLE entities DROP CONSTRAINT entities_tenant_id_normalized_name_type_key;
ALTER TABLE edges DROP CONSTRAINT edges_source_entity_id_target_entity_id_relation_key;

-- Tenant by tenant: row-level security is forced on these tables, also for an owner that is not
-- a superuser (as in 20261207010000_bounded_ttl).
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT id FROM tenants LOOP
    PERFORM set_config('app.tenant_id', t, true);
    DROP TABLE IF EXISTS graph_scope_speakers, graph_scope_uses, graph_scope_entity_map, graph_scope_edge_map;
    -- The user and the assistant are no entities (src/domain/entity-names.ts SPEAKER_WORDS): their
    -- entities go, with their edges (cascade) and the provenance of both; memories about them keep
    -- no subject (ON DELETE SET NULL), which extraction reads as "about the speaker".
    CREATE TEMP TABLE graph_scope_speakers ON COMMIT DROP AS
    SELECT id FROM entities WHERE normalized_name IN ('user', 'the user', 'users', 'assistant', 'the assistant', 'ai', 'the ai', 'bot', 'chatbot',
      'agent', 'the agent', 'human', 'system', 'i', 'me', 'my', 'mine', 'myself', 'you', 'your', 'yours', 'yourself', 'we', 'us', 'our', 'ours', 'ourselves');
    DELETE FROM provenance p USING edges ed, graph_scope_speakers s
    WHERE p.object_type = 'edge' AND p.object_id = ed.id AND s.id IN (ed.source_entity_id, ed.target_entity_id);
    DELETE FROM provenance p USING graph_scope_speakers s WHERE p.object_type = 'entity' AND p.object_id = s.id;
    DELETE FROM entities e USING graph_scope_speakers s WHERE e.id = s.id;

    -- Every (entity, scope) the data shows.
    CREATE TEMP TABLE graph_scope_uses ON COMMIT DROP AS
    SELECT DISTINCT entity_id, dataset, user_id FROM (
      SELECT me.entity_id, m.dataset, m.user_id FROM memory_entities me JOIN memories m ON m.id = me.memory_id
      UNION ALL SELECT m.subject_entity_id, m.dataset, m.user_id FROM memories m WHERE m.subject_entity_id IS NOT NULL
      UNION ALL SELECT p.object_id, ev.dataset, ev.user_id FROM provenance p JOIN events ev ON ev.id = p.event_id WHERE p.object_type = 'entity'
      UNION ALL SELECT x.id, ev.dataset, ev.user_id FROM provenance p JOIN events ev ON ev.id = p.event_id JOIN edges ed ON ed.id = p.object_id
                CROSS JOIN LATERAL (VALUES (ed.source_entity_id), (ed.target_entity_id)) x(id) WHERE p.object_type = 'edge'
    ) u;

    CREATE TEMP TABLE graph_scope_entity_map ON COMMIT DROP AS
    SELECT entity_id AS old_id, dataset, user_id,
           CASE WHEN row_number() OVER (PARTITION BY entity_id ORDER BY dataset, coalesce(user_id, '')) = 1 THEN entity_id ELSE gen_random_uuid() END AS new_id
    FROM graph_scope_uses u WHERE EXISTS (SELECT 1 FROM entities e WHERE e.id = u.entity_id);

    UPDATE entities e SET dataset = m.dataset, user_id = m.user_id FROM graph_scope_entity_map m WHERE m.new_id = e.id AND m.old_id = e.id;

    INSERT INTO entities (tenant_id, id, name, normalized_name, type, description, fts, embedding, embedding_model, embedding_dims, created_at, updated_at, dataset, user_id)
    SELECT e.tenant_id, m.new_id, e.name, e.normalized_name, e.type, e.description, e.fts, e.embedding, e.embedding_model, e.embedding_dims, e.created_at, e.updated_at, m.dataset, m.user_id
    FROM graph_scope_entity_map m JOIN entities e ON e.id = m.old_id WHERE m.new_id <> m.old_id;

    UPDATE memory_entities me SET entity_id = x.new_id
    FROM memories m, graph_scope_entity_map x
    WHERE m.id = me.memory_id AND x.old_id = me.entity_id AND x.dataset = m.dataset AND x.user_id IS NOT DISTINCT FROM m.user_id AND x.new_id <> x.old_id;

    UPDATE memories m SET subject_entity_id = x.new_id FROM graph_scope_entity_map x
    WHERE x.old_id = m.subject_entity_id AND x.dataset = m.dataset AND x.user_id IS NOT DISTINCT FROM m.user_id AND x.new_id <> x.old_id;

    UPDATE provenance p SET object_id = x.new_id FROM events ev, graph_scope_entity_map x
    WHERE p.object_type = 'entity' AND ev.id = p.event_id AND x.old_id = p.object_id AND x.dataset = ev.dataset
      AND x.user_id IS NOT DISTINCT FROM ev.user_id AND x.new_id <> x.old_id;

    -- Edges: one per scope of their provenance events; an edge with no provenance stays in its source's scope.
    CREATE TEMP TABLE graph_scope_edge_map ON COMMIT DROP AS
    SELECT edge_id AS old_id, dataset, user_id,
           CASE WHEN row_number() OVER (PARTITION BY edge_id ORDER BY dataset, coalesce(user_id, '')) = 1 THEN edge_id ELSE gen_random_uuid() END AS new_id
    FROM (SELECT DISTINCT p.object_id AS edge_id, ev.dataset, ev.user_id FROM provenance p JOIN events ev ON ev.id = p.event_id
          JOIN edges ed ON ed.id = p.object_id WHERE p.object_type = 'edge') s;

    INSERT INTO edges (tenant_id, id, source_entity_id, target_entity_id, relation, description, valid_at, invalid_at, fts, created_at, updated_at, dataset, user_id)
    SELECT ed.tenant_id, m.new_id, ed.source_entity_id, ed.target_entity_id, ed.relation, ed.description, ed.valid_at, ed.invalid_at, ed.fts, ed.created_at, ed.updated_at, m.dataset, m.user_id
    FROM graph_scope_edge_map m JOIN edges ed ON ed.id = m.old_id WHERE m.new_id <> m.old_id;

    UPDATE edges ed SET dataset = m.dataset, user_id = m.user_id FROM graph_scope_edge_map m WHERE m.old_id = ed.id AND m.new_id = ed.id;
    UPDATE edges ed SET dataset = s.dataset, user_id = s.user_id FROM entities s
    WHERE s.id = ed.source_entity_id AND NOT EXISTS (SELECT 1 FROM graph_scope_edge_map m WHERE ed.id IN (m.old_id, m.new_id));

    UPDATE provenance p SET object_id = x.new_id FROM events ev, graph_scope_edge_map x
    WHERE p.object_type = 'edge' AND ev.id = p.event_id AND x.old_id = p.object_id AND x.dataset = ev.dataset
      AND x.user_id IS NOT DISTINCT FROM ev.user_id AND x.new_id <> x.old_id;

    -- Each edge's ends: the copy of its scope (every scope of an edge's events is a scope of both ends).
    UPDATE edges ed SET source_entity_id = x.new_id FROM graph_scope_entity_map x
    WHERE x.old_id = ed.source_entity_id AND x.dataset = ed.dataset AND x.user_id IS NOT DISTINCT FROM ed.user_id AND x.new_id <> x.old_id;
    UPDATE edges ed SET target_entity_id = x.new_id FROM graph_scope_entity_map x
    WHERE x.old_id = ed.target_entity_id AND x.dataset = ed.dataset AND x.user_id IS NOT DISTINCT FROM ed.user_id AND x.new_id <> x.old_id;
  END LOOP;
END $$;

CREATE UNIQUE INDEX entities_scope_key ON entities (tenant_id, dataset, (coalesce(user_id, '')), normalized_name, type);
CREATE UNIQUE INDEX edges_scope_key ON edges (tenant_id, dataset, (coalesce(user_id, '')), source_entity_id, target_entity_id, relation);
DROP INDEX entities_name_idx;
CREATE INDEX entities_scope_updated_idx ON entities (tenant_id, (coalesce(user_id, '')), dataset, updated_at);
CREATE INDEX edges_source_idx ON edges (source_entity_id);
CREATE INDEX edges_scope_relation_idx ON edges (tenant_id, (coalesce(user_id, '')), dataset, relation);

-- An edge lives in its ends' scope, whoever writes it (extraction, import, plain SQL): the scope is
-- copied from the source entity, and an edge between two scopes is refused.
CREATE FUNCTION memloom_edge_scope() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t_dataset text; t_user text;
BEGIN
  SELECT s.dataset, s.user_id INTO NEW.dataset, NEW.user_id FROM entities s WHERE s.id = NEW.source_entity_id;
  SELECT t.dataset, t.user_id INTO t_dataset, t_user FROM entities t WHERE t.id = NEW.target_entity_id;
  IF t_dataset IS DISTINCT FROM NEW.dataset OR t_user IS DISTINCT FROM NEW.user_id THEN
    RAISE EXCEPTION 'an edge joins two entities of one scope (dataset, user)' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
ALTER FUNCTION memloom_edge_scope() SET search_path FROM CURRENT;
CREATE TRIGGER edges_scope BEFORE INSERT OR UPDATE OF source_entity_id, target_entity_id ON edges
  FOR EACH ROW EXECUTE FUNCTION memloom_edge_scope();
