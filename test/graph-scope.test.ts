/**
 * A graph per user, through HTTP with the offline providers (embedded PGlite here, PostgreSQL in
 * the server suite): two users of one tenant talk about the same things; each user's entities,
 * neighbourhoods, schema counts and graph recall show only their own statements; the user and the
 * assistant are no entities; a person's full name, first name and surname are one person while two
 * people sharing a first name stay apart; code fragments are no entities; forgetting a user
 * removes their graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const at = (d: number, h = 10) => new Date(Date.UTC(2026, 10, d, h)).toISOString();

interface Entity {
  id: string;
  name: string;
  type: string;
  user_id: string | null;
  dataset: string;
}
interface Hood {
  entity: Entity;
  nodes: Array<{ id: string; name: string }>;
  edges: Array<{ id: string; source_id: string; target_id: string; relation: string }>;
}

async function send(events: Array<Record<string, unknown>>): Promise<void> {
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 180_000, what: 'pipeline idle' });
}
const msg = (user: string, session: string, d: number, content: string, role = 'user') => ({
  user_id: user,
  session_id: session,
  occurred_at: at(d),
  role,
  content,
});
async function entities(query: string): Promise<Entity[]> {
  const r = await getJson(`${m.url}/v1/graph/entities?${query}`);
  expect(r.status).toBe(200);
  return r.body.entities;
}
const named = (list: Entity[], name: string) => list.filter((e) => e.name.toLowerCase() === name.toLowerCase());
const rows = <T>(text: string, params: unknown[] = []) => withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  await send([
    msg('dana', 'd1', 1, 'Priya Raman is our tech lead.'),
    msg('dana', 'd1', 1, 'The inventory service uses Postgres.'),
    msg('dana', 'd1', 1, 'Got it, I will use Neovim-friendly examples.', 'assistant'),
    msg('dana', 'd1', 1, 'The retry helper is `retryWithBackoff(fn, 3)` in src/util/retry.ts.'),
    msg('eli', 'e1', 1, 'The billing service uses Postgres.'),
    msg('eli', 'e1', 1, 'Priya Shah is our designer.'),
    msg('fay', 'f1', 1, 'Omar reviewed the release checklist with me.'),
  ]);
  await send([
    msg('dana', 'd2', 2, 'I asked Priya about the migration plan and she agreed.'),
    msg('dana', 'd2', 2, 'Raman wants the Postgres upgrade done by Friday.'),
    msg('eli', 'e2', 2, 'Priya Sen is our product manager.'),
    msg('eli', 'e2', 2, 'Priya said the billing service needs Redis.'),
    msg('fay', 'f2', 2, 'Omar Haddad is our release manager.'),
  ]);
}, 420_000);
afterAll(async () => m?.close());

describe('graph routes per user', () => {
  it('GET /v1/graph/entities takes user_id and dataset and lists only that scope', async () => {
    const dana = await entities('q=postgres&user_id=dana');
    const eli = await entities('q=postgres&user_id=eli');
    expect(named(dana, 'Postgres')).toHaveLength(1);
    expect(named(eli, 'Postgres')).toHaveLength(1);
    expect(named(dana, 'Postgres')[0]?.id).not.toBe(named(eli, 'Postgres')[0]?.id);
    for (const e of dana) expect(e).toMatchObject({ user_id: 'dana', dataset: 'default' });
    for (const e of eli) expect(e.user_id).toBe('eli');
    expect(named(await entities('user_id=dana&limit=100'), 'Priya Shah')).toEqual([]);
    expect(named(await entities('user_id=eli&limit=100'), 'Priya Shah')).toHaveLength(1);
    expect(named(await entities('user_id=eli&limit=100'), 'inventory service')).toEqual([]);
    expect(await entities('user_id=dana&dataset=other')).toEqual([]);
    // Without a user the tenant's graph is listed, each entity with its scope.
    expect(
      named(await entities('q=postgres'), 'Postgres')
        .map((e) => e.user_id)
        .sort(),
    ).toEqual(['dana', 'eli']);
  });

  it("GET /v1/graph/entities/:id walks only its user's edges at every depth, and another user's id is not found", async () => {
    const [dana] = named(await entities('q=postgres&user_id=dana'), 'Postgres') as [Entity];
    const [eli] = named(await entities('q=postgres&user_id=eli'), 'Postgres') as [Entity];
    const danaIds = new Set((await entities('user_id=dana&limit=100')).map((e) => e.id));
    const eliIds = new Set((await entities('user_id=eli&limit=100')).map((e) => e.id));
    for (const depth of [1, 2, 3]) {
      for (const [root, own, other] of [
        [dana, danaIds, eliIds],
        [eli, eliIds, danaIds],
      ] as const) {
        const r = await getJson(`${m.url}/v1/graph/entities/${root.id}?depth=${depth}&user_id=${root.user_id}`);
        expect(r.status).toBe(200);
        const hood = r.body as Hood;
        expect(hood.edges.length).toBeGreaterThan(0);
        for (const n of hood.nodes) expect(own.has(n.id) && !other.has(n.id)).toBe(true);
        for (const e of hood.edges) expect(own.has(e.source_id) && own.has(e.target_id)).toBe(true);
      }
    }
    const crossed = await getJson(`${m.url}/v1/graph/entities/${dana.id}?user_id=eli`);
    expect(crossed.status).toBe(404);
    expect(crossed.body.error.code).toBe('NOT_FOUND');
    // Every stored edge joins two entities of its own scope.
    expect(
      await rows(
        `SELECT ed.id FROM edges ed JOIN entities s ON s.id = ed.source_entity_id JOIN entities t ON t.id = ed.target_entity_id
         WHERE coalesce(ed.user_id, '') <> coalesce(s.user_id, '') OR coalesce(ed.user_id, '') <> coalesce(t.user_id, '') OR ed.dataset <> s.dataset OR ed.dataset <> t.dataset`,
      ),
    ).toEqual([]);
  });

  it('GET /v1/schema counts one scope when given one, the tenant without', async () => {
    const count = (body: { entity_types: Array<{ type: string; count: number }> }) => body.entity_types.reduce((n, t) => n + t.count, 0);
    const dana = (await getJson(`${m.url}/v1/schema?user_id=dana`)).body;
    const eli = (await getJson(`${m.url}/v1/schema?user_id=eli`)).body;
    const all = (await getJson(`${m.url}/v1/schema`)).body;
    expect(count(dana)).toBe((await entities('user_id=dana&limit=100')).length);
    const fay = (await getJson(`${m.url}/v1/schema?user_id=fay`)).body;
    expect(count(dana) + count(eli) + count(fay)).toBe(count(all));
    expect(count((await getJson(`${m.url}/v1/schema?user_id=nobody`)).body)).toBe(0);
    expect((await getJson(`${m.url}/v1/schema?user=dana`)).status).toBe(400);
  });
});

describe('graph recall per user', () => {
  it("answers 'Who is the tech lead?' from the user's own graph, with the source event's session", async () => {
    const r = await postJson(`${m.url}/v1/recall`, { query: 'Who is the tech lead?', user_id: 'dana', mode: 'graph', limit: 5 });
    expect(r.status).toBe(200);
    const top = r.body.results[0];
    expect(top.content).toMatch(/Priya Raman .*tech lead/);
    expect(top.source).toMatchObject({ session_id: 'd1', dataset: 'default' });
    const eli = await postJson(`${m.url}/v1/recall`, { query: 'Who is the tech lead?', user_id: 'eli', mode: 'graph', limit: 5 });
    expect(eli.body.results.map((x: { content: string }) => x.content).join('\n')).not.toMatch(/Raman|tech lead/);
  });

  it("never returns another user's triplets in graph or auto mode", async () => {
    const danaEdges = new Set((await rows<{ id: string }>(`SELECT id FROM edges WHERE user_id = 'dana'`)).map((x) => x.id));
    const eliEdges = new Set((await rows<{ id: string }>(`SELECT id FROM edges WHERE user_id = 'eli'`)).map((x) => x.id));
    expect(danaEdges.size).toBeGreaterThan(0);
    expect(eliEdges.size).toBeGreaterThan(0);
    for (const mode of ['graph', 'auto']) {
      for (const query of ['Who is Priya?', 'What do we use Postgres for?', 'billing service Redis', 'inventory service']) {
        for (const [user, other] of [
          ['dana', eliEdges],
          ['eli', danaEdges],
        ] as const) {
          const r = await postJson(`${m.url}/v1/recall`, { query, user_id: user, mode, limit: 20 });
          expect(r.status).toBe(200);
          for (const x of r.body.results as Array<{ id: string; type: string }>) expect(other.has(x.id)).toBe(false);
        }
      }
    }
  });
});

describe('entity resolution', () => {
  it('makes no entity of the user, the assistant or a code fragment', async () => {
    const all = await rows<{ name: string }>('SELECT name FROM entities');
    const names = all.map((e) => e.name.toLowerCase());
    for (const speaker of ['user', 'assistant', 'i', 'me', 'you', 'we']) expect(names).not.toContain(speaker);
    for (const name of names) expect(name).not.toMatch(/[()[\]{}<>=;`]/);
    expect(names).toContain('src/util/retry.ts');
  });

  it("merges a person's full name, first name and surname within one user; people sharing a first name stay apart", async () => {
    const dana = await entities('q=priya&user_id=dana');
    expect(dana.map((e) => [e.name, e.type])).toEqual([['Priya Raman', 'person']]);
    expect(named(await entities('q=raman&user_id=dana'), 'Raman')).toEqual([]);
    // Dana's "Priya" and "Raman" statements are linked to the one person.
    const linked = await rows<{ content: string }>(
      `SELECT m.content FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE me.entity_id = $1 ORDER BY m.content`,
      [dana[0]?.id],
    );
    expect(linked.map((x) => x.content).join('\n')).toMatch(/Raman wants the Postgres upgrade/);
    expect(linked.map((x) => x.content).join('\n')).toMatch(/Priya about the migration plan/);
    // Eli knows two Priyas: both stay, and the bare "Priya" joins neither.
    const eli = await entities('q=priya&user_id=eli');
    expect(
      eli
        .filter((e) => e.name.startsWith('Priya S'))
        .map((e) => [e.name, e.type])
        .sort(),
    ).toEqual([
      ['Priya Sen', 'person'],
      ['Priya Shah', 'person'],
    ]);
    const bare = await rows<{ content: string }>(
      `SELECT m.content FROM memory_entities me JOIN memories m ON m.id = me.memory_id JOIN entities e ON e.id = me.entity_id
       WHERE e.user_id = 'eli' AND e.name LIKE 'Priya S%' AND m.content LIKE 'Priya said%'`,
    );
    expect(bare).toEqual([]);
  });
});

describe('entity resolution, the other order', () => {
  it('a first name stored before the full name becomes that person', async () => {
    const fay = await entities('q=omar&user_id=fay');
    expect(fay.map((e) => [e.name, e.type])).toEqual([['Omar Haddad', 'person']]);
    const linked = await rows<{ content: string }>(
      `SELECT m.content FROM memory_entities me JOIN memories m ON m.id = me.memory_id WHERE me.entity_id = $1 ORDER BY m.content`,
      [fay[0]?.id],
    );
    expect(linked.map((x) => x.content).join('\n')).toMatch(/Omar reviewed the release checklist/);
    expect(linked.map((x) => x.content).join('\n')).toMatch(/Omar Haddad is our release manager/);
  });
});

describe('forget', () => {
  it("forgetting a user removes that user's entities and edges and leaves the other's", async () => {
    const before = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM entities WHERE user_id = 'eli'`);
    const r = await postJson(`${m.url}/v1/forget`, { user_id: 'dana' });
    expect(r.status).toBe(200);
    expect(await rows(`SELECT id FROM entities WHERE user_id = 'dana'`)).toEqual([]);
    expect(await rows(`SELECT id FROM edges WHERE user_id = 'dana'`)).toEqual([]);
    expect(await entities('user_id=dana')).toEqual([]);
    expect(await rows<{ n: number }>(`SELECT count(*)::int AS n FROM entities WHERE user_id = 'eli'`)).toEqual(before);
  });
});
