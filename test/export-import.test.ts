import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { startProviderStub, type ProviderStub } from './support/provider-stub.js';

/**
 * Export → import into a fresh instance: the same counts and the same recall results; importing
 * twice adds nothing; exports never cross tenants. Embeddings come from the provider stub (an
 * OpenAI-compatible model whose vectors depend only on the text), so the imported vectors are the
 * exported ones; extraction is the offline heuristic.
 */
const A = 'k-exp-acme';
const B = 'k-exp-globex';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

const EVENTS = [
  { session_id: 's-1', user_id: 'u-1', content: 'We decided to use PostgreSQL with pgvector for the memory store.' },
  { session_id: 's-1', user_id: 'u-1', content: 'I prefer TypeScript over Python for backend services.' },
  { session_id: 's-1', user_id: 'u-1', content: 'Next quarter we will migrate the billing service to Kubernetes.' },
  { session_id: 's-1', user_id: 'u-1', content: 'Alice works at Acme Corp in Berlin.' },
  { session_id: 's-2', user_id: 'u-1', content: 'To deploy the API, run npm run build and then kubectl apply -f infra/k8s.' },
  { session_id: 's-2', user_id: 'u-1', content: 'Bob manages the data platform team at Acme Corp.' },
  { session_id: 's-3', user_id: 'u-2', content: 'Carol prefers dark mode in every editor she uses.' },
  { session_id: 's-3', user_id: 'u-2', content: 'We decided to keep the nightly backups for ninety days.' },
  {
    session_id: 's-4',
    user_id: 'u-2',
    dataset: 'notes',
    type: 'document',
    content: 'The incident review found that the cache expired too early.\n\nThe fix raised the TTL to one hour and added an alert on misses.',
  },
].map((e, i) => ({ id: `exp-${i}`, role: 'user', occurred_at: new Date(Date.UTC(2026, 10, 1 + i, 9)).toISOString(), ...e }));
const SECRET = 'Globex keeps its launch codes in the vault under the Springfield plant.';
const QUERIES = ['which database did we choose for memory', 'Acme Corp people', 'how do I deploy the API', 'backups retention', 'cache incident fix'];
const MODES = ['memories', 'chunks', 'auto', 'graph'] as const;
const COUNTED = ['events', 'chunks', 'memories', 'memories_active', 'entities', 'edges', 'relations', 'provenance'] as const;

let stub: ProviderStub;
let src: TestMemloom;
let dst: TestMemloom;

async function settle(m: TestMemloom, key: string): Promise<void> {
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`, auth(key))).body.pending_events === 0, {
    timeoutMs: 120_000,
    what: 'pending events to reach 0',
  });
}
const counts = async (m: TestMemloom, key: string) => {
  const { objects } = (await getJson(`${m.url}/v1/stats`, auth(key))).body as { objects: Record<string, number> };
  return Object.fromEntries(COUNTED.map((k) => [k, objects[k] as number])) as Record<(typeof COUNTED)[number], number>;
};
const exportText = async (m: TestMemloom, key: string, query = '') => {
  const res = await fetch(`${m.url}/v1/export${query}`, { headers: auth(key) });
  expect(res.status).toBe(200);
  return res.text();
};
const records = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
const importText = async (m: TestMemloom, key: string, body: string) => {
  const res = await fetch(`${m.url}/v1/import`, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/x-ndjson' }, body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
/** Results ranked by score then content (ids differ between instances and break ties differently). */
const ranked = (results: Array<{ type: string; content: string; kind?: string; score: number }>) =>
  results
    .map((r) => ({ type: r.type, content: r.content, kind: r.kind ?? null, score: r.score }))
    .sort((a, b) => b.score - a.score || a.content.localeCompare(b.content));

beforeAll(async () => {
  stub = await startProviderStub({ dimensions: 64 });
  const env = {
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: stub.url,
    EMBEDDINGS_MODEL: 'stub-embed',
    EMBEDDINGS_DIMENSIONS: '64',
    EMBEDDINGS_API_KEY: 'test-key',
    LLM_PROVIDER: 'heuristic',
    BRIEFING_DEBOUNCE_MS: '200',
  };
  src = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES }, env: { ...env, MEMLOOM_API_KEYS: `${A}:acme,${B}:globex` } });
  dst = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES }, env: { ...env, MEMLOOM_API_KEYS: `${A}:acme` } });
  expect((await postJson(`${src.url}/v1/events`, { events: EVENTS }, auth(A))).status).toBe(202);
  expect((await postJson(`${src.url}/v1/events`, { user_id: 'u-1', session_id: 'g-1', content: SECRET }, auth(B))).status).toBe(202);
  await settle(src, A);
  await settle(src, B);
  // A correction, so the export carries a version chain.
  const { body } = await getJson(`${src.url}/v1/memories?user_id=u-1&kind=decision`, auth(A));
  const decision = body.memories.find((x: { content: string }) => x.content.includes('PostgreSQL'));
  expect(decision).toBeDefined();
  expect(
    (
      await fetch(`${src.url}/v1/memories/${decision.id}`, {
        method: 'PATCH',
        headers: { ...auth(A), 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'We decided to use PostgreSQL 17 with pgvector for the memory store.' }),
      })
    ).status,
  ).toBe(200);
  await waitFor(async () => (await fetch(`${src.url}/v1/working-memory?user_id=u-1`, { headers: auth(A) })).status === 200, {
    timeoutMs: 60_000,
    what: 'the working memory of u-1',
  });
  await settle(src, A);
});
afterAll(async () => {
  await src?.close();
  await dst?.close();
  await stub?.close();
});

describe('export', () => {
  it('streams JSON lines: a header, every object in dependency order, and an end record whose counts match', async () => {
    const rs = records(await exportText(src, A));
    expect(rs[0]).toMatchObject({ record: 'header', format: 'memloom-export', version: 1, embedding: { model: 'stub-embed', dimensions: 64 } });
    const end = rs[rs.length - 1] as { record: string; counts: Record<string, number> };
    expect(end.record).toBe('end');
    const seen: Record<string, number> = {};
    for (const r of rs.slice(1, -1)) seen[r.record] = (seen[r.record] ?? 0) + 1;
    expect(Object.fromEntries(Object.entries(end.counts).filter(([, n]) => n > 0))).toEqual(seen);
    const stats = await counts(src, A);
    expect(seen.event).toBe(stats.events);
    expect(seen.chunk).toBe(stats.chunks);
    expect(seen.memory).toBe(stats.memories);
    expect(seen.entity).toBe(stats.entities);
    expect(seen.edge).toBe(stats.edges);
    expect(seen.provenance).toBe(stats.provenance);
    expect(rs.filter((r) => r.record === 'memory' && r.status === 'active')).toHaveLength(stats.memories_active as number);
    expect(rs.some((r) => r.record === 'memory' && r.status === 'superseded' && r.superseded_by)).toBe(true);
    expect(rs.some((r) => r.record === 'working_memory' && r.user_id === 'u-1')).toBe(true);
    const order = rs.map((r) => r.record).filter((t, i, all) => t !== all[i - 1]);
    expect(order).toEqual([
      'header',
      'event',
      'chunk',
      'entity',
      'memory',
      ...(seen.edge ? ['edge'] : []),
      ...(seen.relation ? ['relation'] : []),
      ...(seen.memory_entity ? ['memory_entity'] : []),
      'provenance',
      'working_memory',
      'end',
    ]);
    expect(rs.find((r) => r.record === 'chunk')?.embedding).toHaveLength(64);
  });

  it('never crosses tenants: each key exports only its own tenant', async () => {
    const acme = await exportText(src, A);
    const globex = await exportText(src, B);
    expect(acme).not.toContain('Springfield');
    expect(globex).toContain('Springfield');
    for (const e of EVENTS) expect(globex).not.toContain(e.content.slice(0, 30));
    const globexEvents = records(globex).filter((r) => r.record === 'event');
    expect(globexEvents).toHaveLength(1);
  });

  it('scopes to one user or one dataset', async () => {
    const u2 = records(await exportText(src, A, '?user_id=u-2'));
    expect(u2.filter((r) => r.record === 'event').map((r) => r.user_id)).toEqual(['u-2', 'u-2', 'u-2']);
    expect(u2.filter((r) => r.record === 'memory').every((r) => r.user_id === 'u-2')).toBe(true);
    expect(u2.some((r) => r.record === 'memory')).toBe(true);
    const eventIds = new Set(u2.filter((r) => r.record === 'event').map((r) => r.id));
    expect(u2.filter((r) => r.record === 'chunk').every((r) => eventIds.has(r.event_id))).toBe(true);
    expect(u2.filter((r) => r.record === 'provenance').every((r) => eventIds.has(r.event_id))).toBe(true);
    const notes = records(await exportText(src, A, '?dataset=notes&vectors=false'));
    expect(notes.filter((r) => r.record === 'event').map((r) => r.dataset)).toEqual(['notes']);
    expect(notes.filter((r) => r.record === 'chunk').every((r) => r.embedding === undefined)).toBe(true);
  });

  it('renders Markdown for people', async () => {
    const res = await fetch(`${src.url}/v1/export?format=markdown&user_id=u-1`, { headers: auth(A) });
    expect(res.headers.get('content-type')).toMatch(/text\/markdown/);
    const md = await res.text();
    expect(md).toMatch(/^# memloom export/);
    expect(md).toContain('## Memories');
    expect(md).toContain('PostgreSQL 17');
    expect(md).toContain('## Provenance');
  });

  it('rejects unknown parameters with 400', async () => {
    expect((await getJson(`${src.url}/v1/export?format=csv`, auth(A))).status).toBe(400);
    expect((await getJson(`${src.url}/v1/export?everything=1`, auth(A))).status).toBe(400);
  });
});

describe('import', () => {
  let file: string;
  beforeAll(async () => {
    file = await exportText(src, A);
  });

  it('into a fresh instance gives the same counts and the same recall results', async () => {
    const r = await importText(dst, A, file);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rejected: 0, complete: true, embedded: 0 });
    await settle(dst, A);
    const source = await counts(src, A);
    expect(await counts(dst, A)).toEqual(source);
    expect(source.memories).toBeGreaterThan(source.memories_active);
    expect(source.entities).toBeGreaterThan(0);
    for (const query of QUERIES) {
      for (const mode of MODES) {
        const body = { query, mode, user_id: mode === 'graph' ? undefined : 'u-1', limit: 8 };
        const [a, b] = await Promise.all([postJson(`${src.url}/v1/recall`, body, auth(A)), postJson(`${dst.url}/v1/recall`, body, auth(A))]);
        const ra = ranked(a.body.results);
        const rb = ranked(b.body.results);
        // The same match too; a query about another user's statements ("backups retention" for u-1) matches none.
        expect(b.body.match, `${mode}: ${query}`).toBe(a.body.match);
        if (mode !== 'graph' && a.body.match !== 'none') expect(ra.length, `${mode}: ${query}`).toBeGreaterThan(0);
        expect(
          rb.map(({ score: _, ...x }) => x),
          `${mode}: ${query}`,
        ).toEqual(ra.map(({ score: _, ...x }) => x));
        rb.forEach((x, i) => expect(Math.abs(x.score - (ra[i]?.score ?? 0))).toBeLessThan(1e-3));
      }
    }
    const wm = async (m: TestMemloom) => (await fetch(`${m.url}/v1/working-memory?user_id=u-1`, { headers: auth(A) })).text();
    expect(await wm(dst)).toBe(await wm(src));
  });

  it('keeps the version chain and provenance of a corrected memory', async () => {
    const { body } = await getJson(`${dst.url}/v1/memories?user_id=u-1&q=PostgreSQL%2017`, auth(A));
    const current = body.memories[0];
    const detail = (await getJson(`${dst.url}/v1/memories/${current.id}`, auth(A))).body;
    expect(detail.versions.map((v: { status: string }) => v.status)).toEqual(['superseded', 'active']);
    expect(detail.provenance.events.length).toBeGreaterThan(0);
  });

  it('twice adds nothing', async () => {
    const before = await counts(dst, A);
    const r = await importText(dst, A, file);
    expect(r.status).toBe(200);
    expect(Object.values(r.body.imported).every((n) => n === 0)).toBe(true);
    expect(r.body.existing.event).toBe(before.events);
    expect(await counts(dst, A)).toEqual(before);
  });

  it('into another tenant of the same instance leaves the source tenant untouched', async () => {
    const acmeBefore = await counts(src, A);
    const globexBefore = await counts(src, B);
    const r = await importText(src, B, file);
    expect(r.body.rejected).toBe(0);
    expect(await counts(src, A)).toEqual(acmeBefore);
    expect((await counts(src, B)).events).toBe(globexBefore.events + acmeBefore.events);
  });

  it('rejects bad lines one by one and refuses a body that is not an export', async () => {
    const lines = file.trim().split('\n');
    const broken = [lines[0], '{"record":"event","id":"nope"}', 'not json', ...lines.slice(1, -1)].join('\n');
    const r = await importText(dst, A, broken);
    expect(r.status).toBe(200);
    expect(r.body.rejected).toBe(2);
    expect(r.body.complete).toBe(false);
    expect(r.body.rejections.map((x: { line: number }) => x.line)).toEqual([2, 3]);
    const notExport = await importText(dst, A, '{"hello":"world"}\n');
    expect(notExport.status).toBe(400);
    expect(notExport.body.error.code).toBe('IMPORT_NOT_AN_EXPORT');
  });
});
