import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type RunningWorkers } from '../src/queue/runner.js';
import { CATALOG } from '../workers/catalog.js';
import { QUEUE_BACKENDS } from './support/server-db.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { duplicateGroups, NO_DUPLICATES, sql } from './support/pipeline.js';

/**
 * A conversation over three sessions, English and Chinese, with speaker names, through the real
 * HTTP API and the offline providers (heuristic extraction, hashing embeddings). Events are posted
 * while no worker runs, then the stages are started one after another, so `pending_events` can be
 * checked exactly at each step.
 */
const CONVERSATION = [
  {
    session_id: 'e2e-a',
    occurred_at: '2026-01-05T10:00:00Z',
    metadata: { speaker: 'Alice' },
    content: 'We decided to use PostgreSQL with pgvector for the memory store.',
  },
  { session_id: 'e2e-a', occurred_at: '2026-01-05T10:00:10Z', metadata: { speaker: 'Bob' }, content: 'ok thanks' },
  {
    session_id: 'e2e-a',
    occurred_at: '2026-01-05T10:00:20Z',
    metadata: { speaker: 'Alice' },
    content: 'I prefer TypeScript over Python for backend services.',
  },
  {
    session_id: 'e2e-a',
    occurred_at: '2026-01-05T10:00:30Z',
    metadata: { speaker: 'Bob' },
    content: 'Next quarter we will migrate the billing service to Kubernetes.',
  },
  { session_id: 'e2e-a', occurred_at: '2026-01-05T10:00:40Z', metadata: { speaker: 'Bob' }, content: 'Alice works at Acme Corp in Berlin.' },
  { session_id: 'e2e-b', occurred_at: '2026-01-06T09:00:00Z', metadata: { speaker: '王芳' }, content: '我们决定使用PostgreSQL作为数据库。' },
  { session_id: 'e2e-b', occurred_at: '2026-01-06T09:00:10Z', metadata: { speaker: '王芳' }, content: '我喜欢用Python写数据分析脚本。' },
  { session_id: 'e2e-b', occurred_at: '2026-01-06T09:00:20Z', metadata: { speaker: '王芳' }, content: '下个月我们计划把服务迁移到阿里云。' },
  { session_id: 'e2e-b', occurred_at: '2026-01-06T09:00:30Z', metadata: { speaker: '王芳' }, content: '好的' },
  {
    session_id: 'e2e-c',
    occurred_at: '2026-01-09T15:00:00Z',
    metadata: { speaker: 'Alice' },
    content: 'To deploy the API, run npm run build and then kubectl apply -f infra/k8s.',
  },
  {
    session_id: 'e2e-c',
    occurred_at: '2026-01-09T15:00:10Z',
    metadata: { speaker: 'Alice' },
    content: 'We decided to use PostgreSQL with pgvector for the memory store.',
  },
  {
    session_id: 'e2e-c',
    occurred_at: '2026-01-09T15:00:20Z',
    metadata: { speaker: 'Alice' },
    content: 'To deploy the API, run npm run build and then kubectl apply -f infra/k8s.',
  },
].map((e, i) => ({ id: `e2e-${i}`, user_id: 'u-e2e', role: 'user', ...e }));
const SKIPPED: Record<number, string> = { 1: 'ack', 8: 'ack', 11: 'duplicate' };
const KEPT = CONVERSATION.length - Object.keys(SKIPPED).length;

describe.each(QUEUE_BACKENDS)('pipeline end to end over HTTP (redis: $redis)', ({ redis }) => {
  let m: TestMemloom;
  const running: RunningWorkers[] = [];
  let ids: string[] = [];
  beforeAll(async () => {
    m = await startTestMemloom({ redis, roles: { api: true, workers: [] } });
  });
  afterAll(async () => {
    for (const w of running) await w.close();
    await m?.close();
  });

  const stats = async () => (await getJson(`${m.url}/v1/stats`)).body as { objects: Record<string, number>; pending_events: number };
  const statusCounts = async () =>
    Object.fromEntries(
      (await sql<{ status: string; n: number }>(m.deps.db, 'SELECT status, count(*)::int AS n FROM events GROUP BY status')).map((r) => [r.status, r.n]),
    );
  const provenanceOf = async (type: string, id: string) =>
    (await sql<{ event_id: string }>(m.deps.db, 'SELECT event_id FROM provenance WHERE object_type = $1 AND object_id = $2', [type, id]))
      .map((r) => r.event_id)
      .sort();
  const idsOf = (...indexes: number[]) => indexes.map((i) => ids[i] as string).sort();

  it('counts every stored event as pending right after ingest', async () => {
    const r = await postJson(`${m.url}/v1/events`, { events: CONVERSATION });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(CONVERSATION.length);
    ids = r.body.ids;
    const s = await stats();
    expect(s.objects.events).toBe(CONVERSATION.length);
    expect(s.pending_events).toBe(CONVERSATION.length);
  });

  it('triage: skips acknowledgements and a repeated message with reasons, and pending_events drops by exactly those', async () => {
    running.push(startWorkers(m.deps, CATALOG, ['triage']));
    await waitFor(async () => (await statusCounts()).received === undefined, { what: 'triage to finish' });
    const skipped = await sql<{ id: string; skip_reason: string }>(m.deps.db, `SELECT id, skip_reason FROM events WHERE status = 'skipped'`);
    expect(Object.fromEntries(skipped.map((s) => [ids.indexOf(s.id), s.skip_reason]))).toEqual(SKIPPED);
    expect((await stats()).pending_events).toBe(KEPT);
  });

  it('chunk and embed: one embedded chunk per message; events still pending while extraction waits', async () => {
    running.push(startWorkers(m.deps, CATALOG, ['chunk', 'embed']));
    await waitFor(async () => (await statusCounts()).embedded === KEPT, { what: 'chunking and embedding' });
    const s = await stats();
    expect(s.objects.chunks).toBe(KEPT);
    expect(s.pending_events).toBe(KEPT);
    const [c] = await sql<{ embedded: number; model: string }>(
      m.deps.db,
      'SELECT count(*)::int AS embedded, min(embedding_model) AS model FROM chunks WHERE embedding IS NOT NULL',
    );
    expect(c?.embedded).toBe(KEPT);
    expect(c?.model).toMatch(/^local-hashing/);
  });

  it('extract: memory kinds, entities and triplets with provenance to the right events; nothing pending at the end', async () => {
    running.push(startWorkers(m.deps, CATALOG, ['extract']));
    const s = await waitFor(
      async () => {
        const x = await stats();
        return x.pending_events === 0 ? x : undefined;
      },
      { timeoutMs: 60_000, what: 'pending_events to reach 0' },
    );
    expect(s.objects.events).toBe(CONVERSATION.length);
    expect(await statusCounts()).toEqual({ done: KEPT, skipped: Object.keys(SKIPPED).length });

    const memories = await sql<{ id: string; kind: string; content: string; session_id: string }>(
      m.deps.db,
      'SELECT id, kind, content, session_id FROM memories',
    );
    for (const kind of ['decision', 'preference', 'plan', 'procedure', 'fact']) expect(memories.map((x) => x.kind)).toContain(kind);
    const find = (kind: string, re: RegExp) => {
      const found = memories.find((x) => x.kind === kind && re.test(x.content));
      if (!found) throw new Error(`no ${kind} memory matching ${re}: ${JSON.stringify(memories.map((x) => [x.kind, x.content]))}`);
      return found;
    };
    // The same decision in two sessions is one memory supported by both events.
    expect(await provenanceOf('memory', find('decision', /PostgreSQL with pgvector/).id)).toEqual(idsOf(0, 10));
    expect(await provenanceOf('memory', find('preference', /TypeScript/).id)).toEqual(idsOf(2));
    expect(await provenanceOf('memory', find('plan', /Kubernetes/).id)).toEqual(idsOf(3));
    expect(await provenanceOf('memory', find('procedure', /npm run build/).id)).toEqual(idsOf(9));
    expect(await provenanceOf('memory', find('decision', /PostgreSQL.*数据库/).id)).toEqual(idsOf(5));
    expect(await provenanceOf('memory', find('preference', /数据分析/).id)).toEqual(idsOf(6));
    expect(await provenanceOf('memory', find('plan', /阿里云|迁移/).id)).toEqual(idsOf(7));

    const entities = await sql<{ id: string; normalized_name: string; type: string }>(m.deps.db, 'SELECT id, normalized_name, type FROM entities');
    const entity = (name: string, type: string) => {
      const found = entities.find((e) => e.normalized_name === name && e.type === type);
      if (!found) throw new Error(`no entity ${name}/${type}: ${JSON.stringify(entities.map((e) => `${e.normalized_name}/${e.type}`))}`);
      return found;
    };
    // One PostgreSQL across languages and sessions, supported by each event that names it.
    expect(entities.filter((e) => e.normalized_name === 'postgresql')).toHaveLength(1);
    expect(await provenanceOf('entity', entity('postgresql', 'technology').id)).toEqual(idsOf(0, 5, 10));
    expect(await provenanceOf('entity', entity('王芳', 'person').id)).toEqual(idsOf(5, 6, 7));
    expect(await provenanceOf('entity', entity('acme corp', 'organization').id)).toEqual(idsOf(4));
    expect(await provenanceOf('entity', entity('alice', 'person').id)).toEqual(expect.arrayContaining(idsOf(0, 2, 4, 9, 10)));

    const edges = await sql<{ id: string; triplet: string }>(
      m.deps.db,
      `SELECT e.id, s.normalized_name || ' ' || e.relation || ' ' || t.normalized_name AS triplet FROM edges e
       JOIN entities s ON s.id = e.source_entity_id JOIN entities t ON t.id = e.target_entity_id`,
    );
    const edge = (triplet: string) => {
      const found = edges.find((e) => e.triplet === triplet);
      if (!found) throw new Error(`no triplet "${triplet}": ${JSON.stringify(edges.map((e) => e.triplet))}`);
      return found;
    };
    expect(await provenanceOf('edge', edge('alice decided_to_use postgresql').id)).toEqual(idsOf(0, 10));
    expect(await provenanceOf('edge', edge('王芳 decided_to_use postgresql').id)).toEqual(idsOf(5));
    expect(await provenanceOf('edge', edge('alice works_at acme corp').id)).toEqual(idsOf(4));

    // Skipped events support nothing and have no chunks; every object has provenance; no duplicates.
    const skippedIds = Object.keys(SKIPPED).map((i) => ids[Number(i)]);
    expect(await sql(m.deps.db, 'SELECT 1 FROM provenance WHERE event_id = ANY($1::uuid[])', [skippedIds])).toEqual([]);
    expect(await sql(m.deps.db, 'SELECT 1 FROM chunks WHERE event_id = ANY($1::uuid[])', [skippedIds])).toEqual([]);
    expect(await duplicateGroups(m.deps.db)).toEqual(NO_DUPLICATES);
  });
});
