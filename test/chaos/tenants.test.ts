import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { sql } from '../support/pipeline.js';
import { rawRequest } from '../support/raw-http.js';

/**
 * Two tenants on one memloom: everything tenant B does, on every registered route (enumerated
 * from Fastify, so a new route is covered without touching this file), including with tenant A's
 * ids, leaves what tenant A reads exactly as it was: recall lists and their scores, memories and
 * their access counts, entities, stats, working memory (API and file), dead letters, budget.
 */
const A = 'ten-key-a';
const B = 'ten-key-b';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

const SHARED = [
  'We decided to use PostgreSQL with pgvector for the memory store.',
  'Alice prefers Grafana dashboards for the queue metrics.',
  'The nightly backup of the billing database runs at three in the morning.',
  'Bob owns the incident runbook for the payment gateway.',
];
// Tenant B writes much more, with words tenant A also uses: with a shared document-frequency
// table, or any shared cache, this is what would move A's results.
const B_ONLY = Array.from({ length: 40 }, (_, i) => `PostgreSQL and Grafana and backup note ${i}: the billing gateway uses pgvector every morning.`);

describe('two tenants: B never changes what A reads', () => {
  let m: TestMemloom;
  let port: number;
  const aIds: { events: string[]; memories: string[]; entities: string[]; recalls: string[] } = { events: [], memories: [], entities: [], recalls: [] };
  beforeAll(async () => {
    m = await startTestMemloom({
      env: { MEMLOOM_API_KEYS: `${A}:alpha,${B}:beta`, EXTRACT_DEBOUNCE_MS: '100', BRIEFING_DEBOUNCE_MS: '100', INGEST_RATE_PER_SEC: '1000000' },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing', 'dream'] },
    });
    port = Number(new URL(m.url).port);
    const posted = await postJson(
      `${m.url}/v1/events`,
      { events: SHARED.map((content) => ({ content, session_id: 'sa', user_id: 'u1', role: 'user' })) },
      auth(A),
    );
    aIds.events = posted.body.ids;
    await drained(A);
    await waitFor(async () => (await getJson(`${m.url}/v1/working-memory?user_id=u1`, auth(A))).status === 200, {
      timeoutMs: 120_000,
      what: "A's working memory",
    });
  });
  afterAll(async () => m?.close());

  const drained = (key: string) =>
    waitFor(async () => ((await getJson(`${m.url}/v1/stats`, auth(key))).body as { pending_events: number }).pending_events === 0, {
      timeoutMs: 180_000,
      intervalMs: 300,
      what: 'the pipeline to drain',
    });

  /** What tenant A can observe; reading it must not change it (checked by reading it twice). */
  async function snapshotA(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const mode of ['memories', 'chunks', 'graph', 'auto']) {
      for (const query of ['PostgreSQL memory store', 'Grafana dashboards', 'backup billing morning']) {
        const r = await postJson(`${m.url}/v1/recall`, { query, mode, user_id: 'u1' }, auth(A));
        expect(r.status).toBe(200);
        // everything but freshness, which moves with the clock
        out[`recall ${mode} ${query}`] = (r.body.results as Array<{ id: string; content: string; scores: Record<string, number> }>).map((x) => ({
          id: x.id,
          content: x.content,
          vector: x.scores.vector,
          keyword: x.scores.keyword,
          entity: x.scores.entity,
          graph: x.scores.graph,
          importance: x.scores.importance,
        }));
      }
    }
    const memories = (await getJson(`${m.url}/v1/memories?status=all&limit=500`, auth(A))).body as { memories: Array<{ id: string }> };
    out.memories = memories;
    out.memoryDetails = await Promise.all(memories.memories.map(async (x) => (await getJson(`${m.url}/v1/memories/${x.id}`, auth(A))).body));
    out.rankWeights = await sql(m.deps.db, 'SELECT id, rank_weight, confidence, status FROM memories ORDER BY id', [], 'alpha');
    const entities = (await getJson(`${m.url}/v1/graph/entities?limit=100`, auth(A))).body as { entities: Array<{ id: string }> };
    out.entities = entities;
    out.schema = (await getJson(`${m.url}/v1/schema`, auth(A))).body;
    // recall_log grows with A's own recalls: counted in signalsA instead
    const { recalls: _ownRecalls, ...objects } = ((await getJson(`${m.url}/v1/stats`, auth(A))).body as { objects: Record<string, number> }).objects;
    out.stats = objects;
    out.workingMemory = (await getJson(`${m.url}/v1/working-memory?user_id=u1`, auth(A))).body;
    out.deadLetters = (await getJson(`${m.url}/v1/dead-letters`, auth(A))).body;
    out.budget = (await getJson(`${m.url}/v1/budget`, auth(A))).body;
    out.workingMemoryFiles = await filesUnder(path.join(m.home, 'working-memory'), (p) => !p.includes(`${path.sep}beta${path.sep}`));
    aIds.memories = memories.memories.map((x) => x.id);
    aIds.entities = entities.entities.map((x) => x.id);
    // A's own recalls count accesses; those are compared on their own (signalsA), before and after B.
    return withoutAccess(out) as Record<string, unknown>;
  }

  const signalsA = async () => {
    await new Promise((r) => setTimeout(r, 1500)); // the access recorder flushes once a second
    return {
      signals: await sql(m.deps.db, 'SELECT memory_id, access_count, last_accessed_at, decay FROM memory_signals ORDER BY memory_id', [], 'alpha'),
      recalls: await sql(m.deps.db, 'SELECT count(*)::int AS n FROM recall_log', [], 'alpha'),
      feedback: await sql(m.deps.db, 'SELECT recall_id, score FROM feedback ORDER BY recall_id', [], 'alpha'),
    };
  };

  it('every route called by B, with its own ids and with A\u2019s, leaves A\u2019s reads unchanged', async () => {
    const before = await snapshotA();
    expect(await snapshotA()).toEqual(before); // reading does not change what A reads
    const stable = await snapshotA();
    const recallA = await postJson(`${m.url}/v1/recall`, { query: 'PostgreSQL', user_id: 'u1', mode: 'memories' }, auth(A));
    aIds.recalls = [recallA.body.recall_id];
    const signalsBefore = await signalsA();
    expect(signalsBefore.signals.length).toBeGreaterThan(0);

    // B's own activity: the same sentences and many more, recall, feedback, correction, forget.
    const bPosted = await postJson(
      `${m.url}/v1/events`,
      { events: [...SHARED, ...B_ONLY].map((content) => ({ content, session_id: 'sa', user_id: 'u1', role: 'user' })) },
      auth(B),
    );
    expect(bPosted.status).toBe(202);
    await drained(B);
    const bRecall = await postJson(`${m.url}/v1/recall`, { query: 'PostgreSQL', user_id: 'u1', mode: 'memories' }, auth(B));
    const bMemory = (bRecall.body.results as Array<{ id: string }>)[0]?.id as string;
    expect((await postJson(`${m.url}/v1/feedback`, { recall_id: bRecall.body.recall_id, score: 1, text: 'wrong' }, auth(B))).status).toBe(201);
    expect(
      (
        await rawRequest(port, {
          method: 'PATCH',
          target: `/v1/memories/${bMemory}`,
          headers: [
            ['authorization', `Bearer ${B}`],
            ['content-type', 'application/json'],
          ],
          body: JSON.stringify({ content: 'We decided to use MySQL instead.' }),
        })
      ).status,
    ).toBe(200);

    // A's ids through B's key: never found, never changed.
    for (const id of aIds.memories) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const patch = method === 'PATCH';
        const headers: Array<[string, string]> = [
          ['authorization', `Bearer ${B}`],
          ...(patch ? [['content-type', 'application/json'] as [string, string]] : []),
        ];
        const r = await rawRequest(port, { method, target: `/v1/memories/${id}`, headers, ...(patch ? { body: '{"content":"hijacked"}' } : {}) });
        expect(r.status, `${method} A's memory as B`).toBe(404);
      }
      expect((await rawRequest(port, { method: 'POST', target: `/v1/memories/${id}/restore`, headers: [['authorization', `Bearer ${B}`]] })).status).toBe(404);
    }
    for (const id of aIds.entities) expect((await getJson(`${m.url}/v1/graph/entities/${id}?depth=3`, auth(B))).status).toBe(404);
    for (const id of aIds.recalls) expect((await postJson(`${m.url}/v1/feedback`, { recall_id: id, score: 5 }, auth(B))).status).toBe(404);
    for (const id of aIds.events) {
      const f = await postJson(`${m.url}/v1/forget`, { event_id: id }, auth(B));
      expect(f.body.nothing_to_forget, 'B forgetting A\u2019s event').toBe(true);
    }

    // Then every registered route once more as B, with A's ids in the path.
    const routes = m.app?.registeredRoutes ?? [];
    for (const route of routes) {
      const target = route.url.replace(/:[A-Za-z_]+/g, aIds.memories[0] as string).replace('*', '');
      const body =
        route.method === 'GET' || route.method === 'DELETE'
          ? undefined
          : JSON.stringify({ query: 'PostgreSQL', content: 'x', session_id: 'sa', user_id: 'u1' });
      const r = await rawRequest(port, {
        method: route.method,
        target,
        headers: [['authorization', `Bearer ${B}`], ...(body ? [['content-type', 'application/json'] as [string, string]] : [])],
        ...(body ? { body } : {}),
      });
      expect(r.status, `${route.method} ${route.url}`).toBeLessThan(500);
    }
    expect((await postJson(`${m.url}/v1/forget`, { user_id: 'u1' }, auth(B))).status).toBe(200);
    expect((await postJson(`${m.url}/v1/forget`, { session_id: 'sa' }, auth(B))).status).toBe(200);
    await drained(B);

    expect(await signalsA(), "A's access counts, decay and last access").toEqual(signalsBefore);
    const after = await snapshotA();
    expect(after).toEqual(stable);
  }, 900_000);
});

function withoutAccess(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutAccess);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'access_count' && k !== 'last_accessed_at')
      .map(([k, x]) => [k, withoutAccess(x)]),
  );
}

async function filesUnder(dir: string, keep: (p: string) => boolean): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (keep(p) && !p.endsWith('.tmp')) out[path.relative(dir, p)] = await readFile(p, 'utf8');
    }
  };
  await walk(dir);
  return out;
}
