/**
 * Migration 20261208000000_graph_scope on data written before it (PGlite here, PostgreSQL 15 in
 * the server suite): an entity two users' memories share becomes one entity per user, with links,
 * subjects, provenance and edges re-pointed to the copy of their scope; speaker entities go.
 */
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../src/db/migrator.js';
import { freshDatabase, migrationsBefore } from './support/fresh-database.js';

const SCOPE_MIGRATION = '20261208000000_graph_scope';
let client: pg.Client;
let before: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  const db = await freshDatabase();
  stop = db.stop;
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // Every migration before this one, from a folder that lacks it.
  before = await migrationsBefore(SCOPE_MIGRATION);
  await migrate(client, undefined, before);
  await client.query(`INSERT INTO tenants (id) VALUES ('t1'), ('t2') ON CONFLICT DO NOTHING`);
  // A second tenant: the migration must reach every tenant's rows under row-level security.
  await client.query(`SELECT set_config('app.tenant_id', 't2', false)`);
  await client.query(`
    INSERT INTO entities (id, name, normalized_name, type, fts) VALUES ('00000000-0000-0000-0000-0000000000f1', 'Redis', 'redis', 'technology', to_tsvector('simple', 'redis'));
    INSERT INTO memories (id, user_id, kind, content, content_hash, fts) VALUES ('00000000-0000-0000-0000-0000000000f2', 'zoe', 'fact', 'zoe uses Redis', 'm3', to_tsvector('simple', 'x'));
    INSERT INTO memory_entities (memory_id, entity_id) VALUES ('00000000-0000-0000-0000-0000000000f2', '00000000-0000-0000-0000-0000000000f1');`);
  await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
  await client.query(`
    INSERT INTO events (id, idem_key, dataset, user_id, session_id, type, content, content_hash, source) VALUES
      ('00000000-0000-0000-0000-00000000000d', 'kd', 'default', 'dana', 'd1', 'message', 'dana uses Postgres', 'hd', 'http'),
      ('00000000-0000-0000-0000-00000000000e', 'ke', 'default', 'eli', 'e1', 'message', 'eli uses Postgres', 'he', 'http');
    INSERT INTO entities (id, name, normalized_name, type, fts) VALUES
      ('00000000-0000-0000-0000-0000000000a1', 'Postgres', 'postgres', 'technology', to_tsvector('simple', 'postgres')),
      ('00000000-0000-0000-0000-0000000000a2', 'inventory', 'inventory', 'concept', to_tsvector('simple', 'inventory')),
      ('00000000-0000-0000-0000-0000000000a3', 'user', 'user', 'person', to_tsvector('simple', 'user'));
    INSERT INTO memories (id, user_id, kind, content, content_hash, fts, subject_entity_id) VALUES
      ('00000000-0000-0000-0000-0000000000b1', 'dana', 'fact', 'dana uses Postgres', 'm1', to_tsvector('simple', 'x'), '00000000-0000-0000-0000-0000000000a1'),
      ('00000000-0000-0000-0000-0000000000b2', 'eli', 'fact', 'eli uses Postgres', 'm2', to_tsvector('simple', 'x'), '00000000-0000-0000-0000-0000000000a3');
    INSERT INTO memory_entities (memory_id, entity_id) VALUES
      ('00000000-0000-0000-0000-0000000000b1', '00000000-0000-0000-0000-0000000000a1'),
      ('00000000-0000-0000-0000-0000000000b2', '00000000-0000-0000-0000-0000000000a1'),
      ('00000000-0000-0000-0000-0000000000b2', '00000000-0000-0000-0000-0000000000a3');
    INSERT INTO edges (id, source_entity_id, target_entity_id, relation, fts) VALUES
      ('00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-0000000000a1', 'uses', to_tsvector('simple', 'uses')),
      ('00000000-0000-0000-0000-0000000000c2', '00000000-0000-0000-0000-0000000000a3', '00000000-0000-0000-0000-0000000000a1', 'uses', to_tsvector('simple', 'uses'));
    INSERT INTO provenance (object_type, object_id, event_id) VALUES
      ('entity', '00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-00000000000d'),
      ('entity', '00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-00000000000e'),
      ('entity', '00000000-0000-0000-0000-0000000000a3', '00000000-0000-0000-0000-00000000000e'),
      ('edge', '00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-00000000000d'),
      ('edge', '00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-00000000000e'),
      ('edge', '00000000-0000-0000-0000-0000000000c2', '00000000-0000-0000-0000-00000000000e');`);
  await client.query(`SELECT set_config('app.tenant_id', '', false)`); // the migrator sets no tenant
  expect(await migrate(client, undefined, MIGRATIONS_DIR)).toContain(SCOPE_MIGRATION);
  await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await stop?.();
  if (before) await rm(before, { recursive: true, force: true });
});

/** Queries name their tenant: PGlite's superuser is not held by row-level security. */
const q = async <T>(text: string) => (await client.query(text)).rows as T[];

it('splits a shared entity into one per user and re-points links, subjects and provenance', async () => {
  const pgs = await q<{ id: string; user_id: string }>(
    `SELECT id, user_id FROM entities WHERE tenant_id = 't1' AND normalized_name = 'postgres' ORDER BY user_id`,
  );
  expect(pgs.map((e) => e.user_id)).toEqual(['dana', 'eli']);
  const [dana, eli] = pgs as unknown as [{ id: string }, { id: string }];
  expect(dana.id).toBe('00000000-0000-0000-0000-0000000000a1'); // the first scope keeps the id
  const links = await q<{ memory_id: string; entity_id: string; user_id: string }>(
    `SELECT me.memory_id, me.entity_id, m.user_id FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE m.tenant_id = 't1' ORDER BY m.user_id`,
  );
  expect(links.map((l) => [l.user_id, l.entity_id])).toEqual([
    ['dana', dana.id],
    ['eli', eli.id],
  ]);
  expect(await q(`SELECT user_id, subject_entity_id FROM memories WHERE tenant_id = 't1' ORDER BY user_id`)).toEqual([
    { user_id: 'dana', subject_entity_id: dana.id },
    { user_id: 'eli', subject_entity_id: null }, // its subject was the speaker, who is no entity
  ]);
  const prov = await q<{ object_id: string; event_id: string }>(`SELECT object_id, event_id FROM provenance WHERE object_type = 'entity' ORDER BY event_id`);
  expect(prov).toEqual([
    { object_id: dana.id, event_id: '00000000-0000-0000-0000-00000000000d' },
    { object_id: eli.id, event_id: '00000000-0000-0000-0000-00000000000e' },
  ]);
  expect(await q(`SELECT id FROM entities WHERE normalized_name = 'user'`)).toEqual([]);
});

it("reaches every tenant's rows", async () => {
  await client.query(`SELECT set_config('app.tenant_id', 't2', false)`); // for the server's row-level security
  const rows = await q(`SELECT name, user_id FROM entities WHERE tenant_id = 't2'`);
  await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
  expect(rows).toEqual([{ name: 'Redis', user_id: 'zoe' }]);
});

it('splits an edge by the users of its provenance events, each joining entities of its own scope', async () => {
  const edges = await q<{ id: string; user_id: string; source: string; target: string; s_user: string; t_user: string }>(
    `SELECT ed.id, ed.user_id, s.name AS source, t.name AS target, s.user_id AS s_user, t.user_id AS t_user
     FROM edges ed JOIN entities s ON s.id = ed.source_entity_id JOIN entities t ON t.id = ed.target_entity_id ORDER BY ed.user_id`,
  );
  expect(edges.map((e) => [e.user_id, e.source, e.target, e.s_user, e.t_user])).toEqual([
    ['dana', 'inventory', 'Postgres', 'dana', 'dana'],
    ['eli', 'inventory', 'Postgres', 'eli', 'eli'],
  ]);
  const prov = await q<{ object_id: string; event_id: string }>(`SELECT object_id, event_id FROM provenance WHERE object_type = 'edge' ORDER BY event_id`);
  expect(prov.map((p) => p.object_id)).toEqual(edges.map((e) => e.id));
  await expect(
    client.query(`INSERT INTO edges (source_entity_id, target_entity_id, relation, fts) VALUES ($1, $2, 'x', to_tsvector('simple', 'x'))`, [
      (await q<{ id: string }>(`SELECT id FROM entities WHERE user_id = 'dana' LIMIT 1`))[0]?.id,
      (await q<{ id: string }>(`SELECT id FROM entities WHERE user_id = 'eli' LIMIT 1`))[0]?.id,
    ]),
  ).rejects.toThrow(/one scope/);
});
