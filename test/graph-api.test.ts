import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant, type Tx } from '../src/db/pool.js';
import { ftsDocument, normalizeText } from '../src/domain/text.js';
import { getJson, startTestMemloom, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const ids = new Map<string, string>();

async function entity(tx: Tx, name: string, type: string, description = ''): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO entities (name, normalized_name, type, description, fts) VALUES ($1, $2, $3, $4, to_tsvector('simple', $5)) RETURNING id`,
    [name, normalizeText(name), type, description, ftsDocument(`${name} ${description}`)],
  );
  const id = (rows[0] as { id: string }).id;
  ids.set(name, id);
  return id;
}

async function edge(tx: Tx, source: string, target: string, relation: string, invalid = false): Promise<void> {
  await tx.query(`INSERT INTO edges (source_entity_id, target_entity_id, relation, fts, invalid_at) VALUES ($1, $2, $3, to_tsvector('simple', $3), $4)`, [
    ids.get(source) ?? source,
    ids.get(target) ?? target,
    relation,
    invalid ? new Date() : null,
  ]);
}

/**
 * A chain root→c1→c2→c3→c4 (plus an invalidated shortcut root→c4), a hub with 30 spokes (fan-out
 * bound) of which 25 have 10 leaves each (node bound), and a few names for the fuzzy search.
 */
async function seed(tx: Tx): Promise<void> {
  await entity(tx, 'Root', 'concept');
  for (const n of ['C1', 'C2', 'C3', 'C4']) await entity(tx, n, 'concept');
  await edge(tx, 'Root', 'C1', 'part_of');
  await edge(tx, 'C2', 'C1', 'depends_on');
  await edge(tx, 'C2', 'C3', 'part_of');
  await edge(tx, 'C3', 'C4', 'part_of');
  await edge(tx, 'Root', 'C4', 'replaced_by', true);
  await entity(tx, 'Hub', 'system');
  for (let i = 0; i < 30; i++) {
    await entity(tx, `Spoke ${i}`, 'component');
    await edge(tx, 'Hub', `Spoke ${i}`, 'has_part');
  }
  await tx.query(
    `WITH leaves AS (
       INSERT INTO entities (name, normalized_name, type, fts)
       SELECT 'leaf ' || s || '-' || l, 'leaf ' || s || '-' || l, 'leaf', to_tsvector('simple', 'leaf') FROM generate_series(0, 29) s, generate_series(1, 10) l
       RETURNING id, name)
     INSERT INTO edges (source_entity_id, target_entity_id, relation, fts)
     SELECT e.id, leaves.id, 'has_leaf', to_tsvector('simple', 'leaf') FROM leaves JOIN entities e ON e.name = 'Spoke ' || split_part(substr(leaves.name, 6), '-', 1)`,
  );
  await entity(tx, 'Postgres', 'technology', 'the database');
  await entity(tx, 'PostgreSQL', 'technology', 'relational database with pgvector');
  await entity(tx, 'CloudPostgres', 'product', 'managed hosting');
  await entity(tx, 'Warehouse', 'system', 'analytics store fed from postgres nightly');
  await edge(tx, 'PostgreSQL', 'Postgres', 'alias_of');
  await edge(tx, 'CloudPostgres', 'PostgreSQL', 'hosts');
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO memories (kind, content, content_hash, fts) VALUES ('decision', 'We use PostgreSQL', 'h1', to_tsvector('simple', 'postgresql')) RETURNING id`,
  );
  await tx.query('INSERT INTO memory_entities (memory_id, entity_id) VALUES ($1, $2)', [rows[0]?.id, ids.get('PostgreSQL')]);
}

beforeAll(async () => {
  m = await startTestMemloom({ env: { MEMLOOM_API_KEYS: 'ka:acme,kb:globex' } });
  await withTenant(m.deps.db, 'acme', seed);
}, 120_000);
afterAll(async () => m?.close());

const get = async (path: string, key = 'ka') => getJson(`${m.url}${path}`, { authorization: `Bearer ${key}` });

interface Hood {
  entity: { id: string; name: string };
  nodes: Array<{ id: string; name: string; depth: number }>;
  edges: Array<{ id: string; source_id: string; target_id: string; relation: string }>;
}
const hood = async (name: string, depth?: number): Promise<Hood> => {
  const r = await get(`/v1/graph/entities/${ids.get(name)}${depth ? `?depth=${depth}` : ''}`);
  expect(r.status).toBe(200);
  return r.body as Hood;
};
const names = (h: Hood) => h.nodes.map((n) => `${n.name}@${n.depth}`).sort();

describe('GET /v1/graph/entities?q=', () => {
  it('ranks exact, then prefix, then contains, then description-only matches, with degree and memory count', async () => {
    const r = await get('/v1/graph/entities?q=postgres');
    expect(r.status).toBe(200);
    expect(r.body.entities.map((e: { name: string }) => e.name)).toEqual(['Postgres', 'PostgreSQL', 'CloudPostgres', 'Warehouse']);
    expect(r.body.entities[1]).toMatchObject({ type: 'technology', description: 'relational database with pgvector', degree: 2, memory_count: 1 });
  });

  it('is case-insensitive, honours limit, and finds nothing for unknown names or in another tenant', async () => {
    const r = await get('/v1/graph/entities?q=SPOKE%201&limit=3');
    expect(r.body.entities).toHaveLength(3);
    expect(r.body.entities[0].name).toBe('Spoke 1');
    expect((await get('/v1/graph/entities?q=zzzz')).body.entities).toEqual([]);
    expect((await get('/v1/graph/entities?q=postgres', 'kb')).body.entities).toEqual([]);
  });
});

describe('GET /v1/graph/entities/:id', () => {
  it('walks current edges in both directions up to the requested depth', async () => {
    expect(names(await hood('Root'))).toEqual(['C1@1', 'Root@0']);
    expect(names(await hood('Root', 2))).toEqual(['C1@1', 'C2@2', 'Root@0']);
    const three = await hood('Root', 3);
    expect(names(three)).toEqual(['C1@1', 'C2@2', 'C3@3', 'Root@0']);
    expect(three.edges.map((e) => e.relation).sort()).toEqual(['depends_on', 'part_of', 'part_of']);
    expect(three.entity.name).toBe('Root');
  });

  it('bounds fan-out per node and the total number of nodes', async () => {
    const one = await hood('Hub', 1);
    expect(one.nodes.filter((n) => n.depth === 1)).toHaveLength(25);
    expect(one.edges).toHaveLength(25);
    const two = await hood('Hub', 2);
    expect(two.nodes).toHaveLength(200);
    expect(two.nodes.filter((n) => n.depth <= 1)).toHaveLength(26);
    const kept = new Set(two.nodes.map((n) => n.id));
    expect(two.edges.every((e) => kept.has(e.source_id) && kept.has(e.target_id))).toBe(true);
  });

  it("rejects depth above 3 and bad ids, and hides other tenants' entities", async () => {
    expect((await get(`/v1/graph/entities/${ids.get('Root')}?depth=4`)).status).toBe(400);
    expect((await get(`/v1/graph/entities/${ids.get('Root')}?depth=0`)).status).toBe(400);
    expect((await get('/v1/graph/entities/nope')).status).toBe(400);
    const other = await get(`/v1/graph/entities/${ids.get('Root')}`, 'kb');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
  });
});

describe('GET /v1/schema', () => {
  it('counts entity types, current relation types and active memory kinds as SQL does', async () => {
    const r = await get('/v1/schema');
    expect(r.status).toBe(200);
    const expected = await withTenant(m.deps.db, 'acme', async (tx) => ({
      entity_types: (await tx.query('SELECT type, count(*)::int AS count FROM entities GROUP BY type ORDER BY count DESC, type')).rows,
      relation_types: (
        await tx.query('SELECT relation, count(*)::int AS count FROM edges WHERE invalid_at IS NULL GROUP BY relation ORDER BY count DESC, relation')
      ).rows,
      memory_kinds: (await tx.query(`SELECT kind, count(*)::int AS count FROM memories WHERE status = 'active' GROUP BY kind ORDER BY count DESC, kind`)).rows,
    }));
    expect(r.body).toEqual(expected);
    expect(r.body.relation_types.find((x: { relation: string }) => x.relation === 'replaced_by')).toBeUndefined();
    expect((await get('/v1/schema', 'kb')).body).toEqual({ entity_types: [], relation_types: [], memory_kinds: [] });
  });
});
