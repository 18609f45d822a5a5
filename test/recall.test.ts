import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemory, supersedeMemory } from '../src/db/sql/memories-write.js';
import { EXACT_SCAN_MAX, vectorSearch } from '../src/db/sql/recall.js';
import { cosine } from '../src/domain/reconcile.js';
import { startRun } from '../src/db/sql/runs.js';
import { contentHash, ftsDocument } from '../src/domain/text.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const events = [
    {
      user_id: 'alice',
      session_id: 'a1',
      occurred_at: at(30),
      content: 'We decided to use PostgreSQL with pgvector as the memory database.',
      metadata: { speaker: 'Alice' },
    },
    { user_id: 'alice', session_id: 'a1', occurred_at: at(30), content: 'I prefer TypeScript for backend services.', metadata: { speaker: 'Alice' } },
    {
      user_id: 'alice',
      session_id: 'a2',
      occurred_at: at(1),
      content: 'Next week we will migrate the billing service to Kubernetes.',
      metadata: { speaker: 'Alice' },
    },
    { user_id: 'alice', session_id: 'a2', occurred_at: at(1), content: '我们决定使用Redis作为缓存', metadata: { speaker: 'Alice' } },
    { user_id: 'bob', session_id: 'b1', occurred_at: at(2), content: 'We decided to use MySQL for the billing database.', metadata: { speaker: 'Bob' } },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.objects.events === events.length && s.pending_events === 0;
    },
    { timeoutMs: 90_000, what: 'pipeline' },
  );
}, 120_000);
afterAll(async () => m?.close());

const recall = async (body: Record<string, unknown>) => {
  // These tests are about memories; the default mode (chunks) has its own test below.
  const r = await postJson(`${m.url}/v1/recall`, { mode: 'memories', ...body });
  expect(r.status).toBe(200);
  return r.body as {
    recall_id: string;
    took_ms: number;
    results: Array<{
      id: string;
      type: string;
      content: string;
      score: number;
      scores: Record<string, number>;
      kind?: string;
      status?: string;
      source: { event_ids: string[]; session_id: string | null };
    }>;
  };
};

describe('recall', () => {
  it('finds the memory a question is about, with component scores and provenance', async () => {
    const r = await recall({ query: 'which database did we choose for memory?', user_id: 'alice' });
    expect(r.recall_id).toMatch(/^[0-9a-f-]{36}$/);
    const top = r.results[0];
    expect(top?.content).toMatch(/PostgreSQL/);
    expect(top?.type).toBe('memory');
    expect(Object.keys(top?.scores ?? {}).sort()).toEqual(['boost', 'cover', 'entity', 'freshness', 'graph', 'importance', 'keyword', 'relevance', 'vector']);
    expect(top?.scores.vector).toBeGreaterThan(0);
    expect(top?.source.event_ids.length).toBeGreaterThan(0);
    for (let i = 1; i < r.results.length; i++) expect(r.results[i - 1]!.score).toBeGreaterThanOrEqual(r.results[i]!.score);
  });

  it('keeps users of one tenant apart', async () => {
    const r = await recall({ query: 'billing database decision', user_id: 'bob', limit: 20 });
    expect(r.results.length).toBeGreaterThan(0);
    expect(r.results.every((x) => !/PostgreSQL|TypeScript|Kubernetes/.test(x.content))).toBe(true);
  });

  it('reaches a user’s memories through entity links that carry the memory’s user', async () => {
    const links = await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows } = await tx.query<{ links: number; mismatched: number }>(
        `SELECT count(*)::int AS links, count(*) FILTER (WHERE me.user_id IS DISTINCT FROM mm.user_id)::int AS mismatched
         FROM memory_entities me JOIN memories mm ON mm.id = me.memory_id`,
      );
      return rows[0];
    });
    expect(links?.links).toBeGreaterThan(0);
    expect(links?.mismatched).toBe(0);
    // PostgreSQL is an entity of alice's memory only: bob's recall must not score it, alice's must.
    const alice = await recall({ query: 'PostgreSQL', user_id: 'alice', limit: 20 });
    const hit = alice.results.find((x) => /PostgreSQL/.test(x.content));
    expect(hit?.scores.entity).toBeGreaterThan(0);
    const bob = await recall({ query: 'PostgreSQL', user_id: 'bob', limit: 20 });
    expect(bob.results.every((x) => !/PostgreSQL/.test(x.content))).toBe(true);
  });

  it('finds Chinese memories by Chinese words', async () => {
    const r = await recall({ query: '缓存用什么', user_id: 'alice' });
    expect(r.results[0]?.content).toMatch(/Redis/);
  });

  it('filters on event time with since/until and on kinds', async () => {
    const recent = await recall({ query: 'service', user_id: 'alice', since: at(7), limit: 20 });
    expect(recent.results.length).toBeGreaterThan(0);
    expect(recent.results.every((x) => !/TypeScript/.test(x.content))).toBe(true);
    const decisions = await recall({ query: 'database', user_id: 'alice', kinds: ['decision'], limit: 20 });
    expect(decisions.results.length).toBeGreaterThan(0);
    expect(decisions.results.every((x) => x.kind === 'decision')).toBe(true);
  });

  it('returns raw evidence chunks, triplets, and a mix in auto mode', async () => {
    const chunks = await recall({ query: 'Kubernetes migration', user_id: 'alice', mode: 'chunks' });
    expect(chunks.results[0]?.type).toBe('chunk');
    expect(chunks.results[0]?.content).toMatch(/Kubernetes/);
    const auto = await recall({ query: 'Kubernetes billing', user_id: 'alice', mode: 'auto', limit: 6 });
    expect(auto.results.length).toBeLessThanOrEqual(6);
    expect(auto.results.length).toBeGreaterThan(0);
    const graph = await recall({ query: 'PostgreSQL', mode: 'graph' });
    for (const t of graph.results) expect(t.type).toBe('triplet');
  });

  it('answers with evidence chunks by default, ranked by relevance before freshness', async () => {
    // include_weak: the unrelated fresh turns are below the match floor; shown here to compare ranks.
    const r = await postJson(`${m.url}/v1/recall`, { query: 'which database did we choose for memory?', user_id: 'alice', include_weak: true });
    expect(r.status).toBe(200);
    const results = r.body.results as Array<{ type: string; content: string; scores: Record<string, number> }>;
    expect(results.every((x) => x.type === 'chunk')).toBe(true);
    // A month-old answer outranks yesterday's unrelated turns.
    expect(results[0]?.content).toContain('PostgreSQL with pgvector');
    expect(results[0]?.scores).toMatchObject({ relevance: 1, keyword: 1 });
    expect(results.some((x) => (x.scores.freshness ?? 0) > (results[0]?.scores.freshness ?? 1))).toBe(true);
  });

  it('changes no memory content and records access signals', async () => {
    const before = await withTenant(
      m.deps.db,
      'default',
      async (tx) => (await tx.query('SELECT id, content, confidence, importance, status FROM memories ORDER BY id')).rows,
    );
    const r = await recall({ query: 'PostgreSQL', user_id: 'alice' });
    const after = await withTenant(
      m.deps.db,
      'default',
      async (tx) => (await tx.query('SELECT id, content, confidence, importance, status FROM memories ORDER BY id')).rows,
    );
    expect(after).toEqual(before);
    const first = r.results[0]!.id;
    await waitFor(
      async () => {
        const { rows } = await withTenant(m.deps.db, 'default', (tx) =>
          tx.query<{ access_count: number }>('SELECT access_count FROM memory_signals WHERE memory_id = $1', [first]),
        );
        return (rows[0]?.access_count ?? 0) > 0;
      },
      { what: 'access count' },
    );
    const logged = await withTenant(m.deps.db, 'default', (tx) => tx.query('SELECT 1 FROM recall_log WHERE id = $1', [r.recall_id]));
    expect(logged.rowCount).toBe(1);
  });

  it('excludes superseded versions unless history or as_of asks for them', async () => {
    const ids = await withTenant(m.deps.db, 'default', async (tx) => {
      const runId = await startRun(tx, { stage: 'test', jobId: undefined });
      const vec = (await m.deps.providers.embeddings.embed(['The deploy region is eu-west-1', 'The deploy region is us-east-2'], 'document')).vectors;
      const base = {
        kind: 'fact',
        importance: 5,
        confidence: 0.8,
        event_time: null,
        time_precision: null,
        subject_entity_id: null,
        dataset: 'default',
        user_id: 'carol',
        agent_id: null,
        session_id: 'c1',
        source_event_ids: [] as string[],
      };
      const old = await insertMemory(
        tx,
        {
          ...base,
          content: 'The deploy region is eu-west-1',
          content_hash: contentHash('the deploy region is eu-west-1'),
          fts_doc: ftsDocument('The deploy region is eu-west-1'),
          vector: vec[0]!,
          occurred_at: at(10),
          version: 1,
        },
        m.deps.providers.embeddings.model,
        m.deps.providers.embeddings.dimensions,
        runId,
      );
      const neu = await insertMemory(
        tx,
        {
          ...base,
          content: 'The deploy region is us-east-2',
          content_hash: contentHash('the deploy region is us-east-2'),
          fts_doc: ftsDocument('The deploy region is us-east-2'),
          vector: vec[1]!,
          occurred_at: at(3),
          version: 2,
        },
        m.deps.providers.embeddings.model,
        m.deps.providers.embeddings.dimensions,
        runId,
      );
      await supersedeMemory(tx, old.id, neu.id);
      return { old: old.id, neu: neu.id };
    });
    const now = await recall({ query: 'deploy region', user_id: 'carol' });
    expect(now.results.map((x) => x.id)).toEqual([ids.neu]);
    const history = await recall({ query: 'deploy region', user_id: 'carol', include_history: true });
    expect(history.results.map((x) => x.id).sort()).toEqual([ids.old, ids.neu].sort());
    const then = await recall({ query: 'deploy region', user_id: 'carol', as_of: at(5) });
    expect(then.results.map((x) => x.id)).toEqual([ids.old]);
  });

  it('scores a small user scope exactly: the true nearest neighbours with their cosine scores', async () => {
    const dims = m.deps.providers.embeddings.dimensions;
    const [q] = (await m.deps.providers.embeddings.embed(['which database and cache did we choose'], 'query')).vectors as [number[]];
    const { hits, rows } = await withTenant(m.deps.db, 'default', async (tx) => ({
      hits: await vectorSearch(tx, 'memories', { userId: 'alice' }, q, { model: m.deps.providers.embeddings.model, dims }, 3),
      rows: (
        await tx.query<{ id: string; v: string }>(
          `SELECT id, embedding::text AS v FROM memories WHERE user_id = 'alice' AND status = 'active' AND embedding_dims = $1`,
          [dims],
        )
      ).rows,
    }));
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.length).toBeLessThanOrEqual(EXACT_SCAN_MAX);
    const expected = rows
      .map((r) => ({ id: r.id, score: cosine(q, JSON.parse(r.v) as number[]) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 3);
    expect(hits.map((h) => h.id)).toEqual(expected.map((e) => e.id));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
  });

  it('rejects a bad request with details', async () => {
    const r = await postJson(`${m.url}/v1/recall`, { query: '', mode: 'everything' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['mode', 'query']);
  });
});
