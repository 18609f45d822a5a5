import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemory, relateMemories, supersedeMemory, type MemoryInsert } from '../src/db/sql/memories-write.js';
import { startRun } from '../src/db/sql/runs.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const ACME = { authorization: 'Bearer ka' };
const GLOBEX = { authorization: 'Bearer kb' };
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();

interface Item {
  id: string;
  kind: string;
  content: string;
  status: string;
  user_id: string | null;
  recorded_at: string;
}
const fixtures = { pager: [] as string[], chain: [] as string[], conflict: [] as string[], resolved: '' };

/** Writes memories straight through the write-side SQL (as the extract stage does), in one transaction. */
async function seed(): Promise<void> {
  const texts = [
    ...Array.from({ length: 23 }, (_, i) => `Pager fact number ${i}: the build cache lives in bucket b-${i}`),
    'The deploy region is eu-west-1',
    'The deploy region is us-east-2',
    'The deploy region is ap-south-1',
    'The release train leaves on Mondays',
    'The release train leaves on Thursdays',
    'The office is in Lisbon',
  ];
  const { vectors } = await m.deps.providers.embeddings.embed(texts, 'document');
  const { model, dimensions } = m.deps.providers.embeddings;
  await withTenant(m.deps.db, 'acme', async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const add = async (i: number, userId: string, version = 1, occurredDaysAgo = 1) => {
      const content = texts[i] as string;
      const row: MemoryInsert = {
        kind: 'fact',
        content,
        content_hash: contentHash(normalizeText(content)),
        fts_doc: ftsDocument(content),
        vector: vectors[i] as number[],
        importance: 5,
        confidence: 0.8,
        event_time: null,
        time_precision: null,
        occurred_at: at(occurredDaysAgo),
        subject_entity_id: null,
        dataset: 'default',
        user_id: userId,
        agent_id: null,
        session_id: null,
        source_event_ids: [],
        version,
      };
      return (await insertMemory(tx, row, model, dimensions, runId)).id;
    };
    for (let i = 0; i < 23; i++) fixtures.pager.push(await add(i, 'pager'));
    const v1 = await add(23, 'carol', 1, 10);
    const v2 = await add(24, 'carol', 2, 5);
    const v3 = await add(25, 'carol', 3, 1);
    await supersedeMemory(tx, v1, v2);
    await supersedeMemory(tx, v2, v3);
    fixtures.chain = [v1, v2, v3];
    const a = await add(26, 'dave');
    const b = await add(27, 'dave');
    await relateMemories(tx, b, a, 'challenges', false);
    fixtures.conflict = [a, b];
    // A challenge from a superseded version is resolved: neither side is an open conflict.
    fixtures.resolved = await add(28, 'dave');
    await relateMemories(tx, v1, fixtures.resolved, 'challenges', false);
  });
}

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES }, env: { MEMLOOM_API_KEYS: 'ka:acme,kb:globex' } });
  const events = [
    { user_id: 'alice', session_id: 's1', content: 'We decided to use PostgreSQL with pgvector as the memory database.', metadata: { speaker: 'Alice' } },
    { user_id: 'alice', session_id: 's1', content: 'I prefer TypeScript for backend services.', metadata: { speaker: 'Alice' } },
    { user_id: 'bob', session_id: 's2', dataset: 'billing', content: 'We decided to use MySQL for the billing database.', metadata: { speaker: 'Bob' } },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events }, ACME)).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`, ACME)).body;
      return s.objects.events === events.length && s.pending_events === 0;
    },
    { timeoutMs: 90_000, what: 'pipeline' },
  );
  await seed();
}, 120_000);
afterAll(async () => m?.close());

const list = async (query: string, headers = ACME) => {
  const r = await getJson(`${m.url}/v1/memories${query}`, headers);
  expect(r.status).toBe(200);
  return r.body as { memories: Item[]; next_cursor: string | null };
};

async function pageAll(query: string, limit: number): Promise<Item[]> {
  const out: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await list(`?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.memories.length).toBeLessThanOrEqual(limit);
    out.push(...page.memories);
    cursor = page.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('paging did not end');
}

const sqlIds = async (sql: string, params: unknown[] = []) =>
  withTenant(m.deps.db, 'acme', async (tx) => (await tx.query<{ id: string }>(sql, params)).rows.map((r) => r.id).sort());

describe('GET /v1/memories', () => {
  it('lists active memories newest first, filtered by scope, dataset and kind', async () => {
    const alice = await list('?user_id=alice');
    expect(alice.memories.map((x) => x.content).join('\n')).toMatch(/PostgreSQL/);
    expect(alice.memories.every((x) => x.user_id === 'alice' && x.status === 'active')).toBe(true);
    const billing = await list('?dataset=billing&kind=decision');
    expect(billing.memories.length).toBeGreaterThan(0);
    expect(billing.memories.every((x) => x.kind === 'decision' && /MySQL/.test(x.content))).toBe(true);
    expect((await list('?session_id=s1&user_id=bob')).memories).toEqual([]);
    const item = alice.memories[0] as unknown as Record<string, unknown>;
    for (const key of [
      'id',
      'kind',
      'content',
      'status',
      'importance',
      'confidence',
      'decay',
      'access_count',
      'is_crystal',
      'version',
      'occurred_at',
      'event_time',
      'time_precision',
      'valid_from',
      'valid_to',
      'superseded_by',
      'expires_at',
      'recorded_at',
      'user_id',
      'session_id',
      'dataset',
    ])
      expect(item).toHaveProperty(key);
  });

  it('pages through every memory with the cursor, without duplicates or gaps', async () => {
    const pager = await pageAll('user_id=pager', 5);
    expect(pager.map((x) => x.id).sort()).toEqual([...fixtures.pager].sort());
    const all = await pageAll('status=all', 7);
    expect(new Set(all.map((x) => x.id)).size).toBe(all.length);
    expect(all.map((x) => x.id).sort()).toEqual(await sqlIds('SELECT id FROM memories'));
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.recorded_at >= all[i]!.recorded_at).toBe(true);
  });

  it('filters by status and finds text by substring or words', async () => {
    const superseded = await list('?status=superseded&user_id=carol');
    expect(superseded.memories.map((x) => x.id).sort()).toEqual(fixtures.chain.slice(0, 2).sort());
    expect((await list('?q=postgres&user_id=alice')).memories.map((x) => x.content)).toEqual([expect.stringMatching(/PostgreSQL/)]);
    expect((await list('?q=DEPLOY%20region&status=all')).memories).toHaveLength(3);
    expect((await list('?q=release%20Thursdays')).memories.map((x) => x.id)).toEqual([fixtures.conflict[1]]);
    expect((await list('?q=50%25_off')).memories).toEqual([]);
  });

  it('lists both sides of an open challenges relation with conflicts=true', async () => {
    const conflicts = await list('?conflicts=true');
    expect(conflicts.memories.map((x) => x.id).sort()).toEqual([...fixtures.conflict].sort());
  });

  it('rejects bad parameters with details', async () => {
    for (const q of ['?kind=rumour', '?limit=501', '?status=deleted', '?cursor=bm9wZQ', '?colour=red', '?conflicts=yes']) {
      const r = await getJson(`${m.url}/v1/memories${q}`, ACME);
      expect(r.status, q).toBe(400);
      expect(r.body.error.details.length, q).toBeGreaterThan(0);
    }
  });
});

describe('GET /v1/memories/:id', () => {
  it('explains a pipeline memory: provenance events and run, entities', async () => {
    const [id] = await sqlIds(`SELECT id FROM memories WHERE content LIKE '%PostgreSQL%'`);
    const r = await getJson(`${m.url}/v1/memories/${id}`, ACME);
    expect(r.status).toBe(200);
    expect(r.body.content).toMatch(/PostgreSQL/);
    expect(r.body.provenance.events).toEqual([expect.objectContaining({ session_id: 's1', dataset: 'default', type: 'message', source: 'http' })]);
    expect(r.body.provenance.runs.map((x: { stage: string }) => x.stage)).toContain('extract');
    expect(r.body.versions.map((v: { id: string }) => v.id)).toEqual([id]);
    const linked = await sqlIds(
      `SELECT entity_id AS id FROM memory_entities WHERE memory_id = $1 UNION SELECT subject_entity_id FROM memories WHERE id = $1 AND subject_entity_id IS NOT NULL`,
      [id],
    );
    expect(linked.length).toBeGreaterThan(0);
    expect(r.body.entities.map((e: { id: string }) => e.id).sort()).toEqual(linked);
  });

  it('returns the whole version chain, oldest first, from any version', async () => {
    for (const id of fixtures.chain) {
      const r = await getJson(`${m.url}/v1/memories/${id}`, ACME);
      expect(r.body.versions.map((v: { id: string }) => v.id)).toEqual(fixtures.chain);
      expect(r.body.versions.map((v: { status: string }) => v.status)).toEqual(['superseded', 'superseded', 'active']);
    }
  });

  it('shows relations with their direction', async () => {
    const [a, b] = fixtures.conflict;
    const ra = await getJson(`${m.url}/v1/memories/${a}`, ACME);
    expect(ra.body.relations).toEqual([expect.objectContaining({ relation: 'challenges', direction: 'in', other_memory_id: b, is_progression: false })]);
    const rb = await getJson(`${m.url}/v1/memories/${b}`, ACME);
    expect(rb.body.relations).toEqual([
      expect.objectContaining({ relation: 'challenges', direction: 'out', other_memory_id: a, other_content: expect.stringMatching(/Mondays/) }),
    ]);
  });

  it('keeps tenants apart and answers 404 / 400 / 401', async () => {
    const id = fixtures.chain[2];
    const other = await getJson(`${m.url}/v1/memories/${id}`, GLOBEX);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect((await list('?status=all', GLOBEX)).memories).toEqual([]);
    expect((await getJson(`${m.url}/v1/memories/00000000-0000-4000-8000-000000000000`, ACME)).status).toBe(404);
    expect((await getJson(`${m.url}/v1/memories/not-a-uuid`, ACME)).status).toBe(400);
    expect((await getJson(`${m.url}/v1/memories/${id}`)).status).toBe(401);
  });
});
