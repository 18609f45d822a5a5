import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { duplicateGroups, NO_DUPLICATES, rowCounts } from './support/pipeline.js';

let m: TestMemloom;
const USER = 'fb';
const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);
const settled = (events: number) =>
  waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.objects.events === events && s.pending_events === 0;
    },
    { timeoutMs: 240_000, what: 'pipeline' },
  );
const recall = async (query: string, limit = 3) => {
  const r = await postJson(`${m.url}/v1/recall`, { query, user_id: USER, limit, mode: 'memories' });
  expect(r.status).toBe(200);
  return r.body as { recall_id: string; results: Array<{ id: string; content: string; source: { event_ids: string[] } }> };
};
const feedback = (body: unknown) => postJson(`${m.url}/v1/feedback`, body);

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const events = [
    { user_id: USER, session_id: 'f1', role: 'user', content: 'We decided to use PostgreSQL with pgvector as the memory database.' },
    { user_id: USER, session_id: 'f1', role: 'user', content: 'Next week we will migrate the billing service to Kubernetes.' },
    { user_id: USER, session_id: 'f2', role: 'user', content: 'I prefer TypeScript for backend services.' },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await settled(events.length);
}, 300_000);
afterAll(async () => m?.close());

describe('POST /v1/feedback (improve)', () => {
  let positive: Awaited<ReturnType<typeof recall>>;
  let eventId: string;

  it('turns a positive score into a feedback event that reuses existing entities and adds provenance', async () => {
    positive = await recall('which database did we choose for memory?');
    expect(positive.results[0]?.content).toMatch(/PostgreSQL/);
    const before = await rowCounts(m.deps.db);
    const entitiesBefore = await rows<{ id: string; normalized_name: string }>('SELECT id, normalized_name FROM entities ORDER BY id');
    const r = await feedback({ recall_id: positive.recall_id, score: 5 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ duplicate: false, lowered: 0 });
    eventId = r.body.event_id;
    const [event] = await rows('SELECT idem_key, type, role, user_id, source, content FROM events WHERE id = $1', [eventId]);
    expect(event).toMatchObject({ idem_key: `feedback-${positive.recall_id}`, type: 'feedback', role: 'user', user_id: USER, source: 'feedback' });
    expect(event!.content).toMatch(/^Q: which database did we choose for memory\?\n/);
    expect(event!.content).toContain(positive.results[0]!.content);
    await settled(before.events + 1);

    const after = await rowCounts(m.deps.db);
    expect(await rows('SELECT id, normalized_name FROM entities ORDER BY id')).toEqual(entitiesBefore);
    expect(after.memories).toBe(before.memories);
    expect(after.provenance).toBeGreaterThan(before.provenance);
    expect(await duplicateGroups(m.deps.db)).toEqual(NO_DUPLICATES);
    const shared = await rows<{ normalized_name: string }>(
      `SELECT e.normalized_name FROM entities e JOIN provenance p ON p.object_type = 'entity' AND p.object_id = e.id WHERE p.event_id = $1`,
      [eventId],
    );
    expect(shared.map((s) => s.normalized_name)).toContain('postgresql');
  }, 300_000);

  it('makes the feedback event part of what recall returns', async () => {
    const again = await recall('which database did we choose for memory?');
    const top = again.results.find((x) => /PostgreSQL/.test(x.content));
    expect(top?.source.event_ids).toContain(eventId);
  });

  it('changes nothing when the same recall is rated again', async () => {
    const before = await rowCounts(m.deps.db);
    const r = await feedback({ recall_id: positive.recall_id, score: 4, text: 'Also we use Redis for caching everything.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ duplicate: true, event_id: eventId });
    await settled(before.events);
    expect(await rowCounts(m.deps.db)).toEqual(before);
    expect(await rows('SELECT count(*)::int AS n FROM feedback')).toEqual([{ n: 1 }]);
  }, 300_000);

  it('lowers only the ranking signal of what a low-rated recall returned, once', async () => {
    const low = await recall('billing service migration', 2);
    const ids = low.results.map((x) => x.id);
    const before = await rows('SELECT id, content, confidence, importance, rank_weight FROM memories WHERE id = ANY($1::uuid[]) ORDER BY id', [ids]);
    const r = await feedback({ recall_id: low.recall_id, score: 1, text: 'wrong answer' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ duplicate: false, event_id: null, lowered: ids.length });
    expect((await feedback({ recall_id: low.recall_id, score: 1 })).body.duplicate).toBe(true);
    const after = await rows('SELECT id, content, confidence, importance, rank_weight FROM memories WHERE id = ANY($1::uuid[]) ORDER BY id', [ids]);
    expect(after).toEqual(before.map((b) => ({ ...b, rank_weight: expect.closeTo((b.rank_weight as number) * 0.8, 5) })));
    const events = await rows('SELECT count(*)::int AS n FROM events');
    expect(events[0]!.n).toBe((await rowCounts(m.deps.db)).events);
  });

  it('stores a neutral score without side effects, and rejects unknown recalls and bad input', async () => {
    const neutral = await recall('TypeScript services', 1);
    const before = await rowCounts(m.deps.db);
    const r = await feedback({ recall_id: neutral.recall_id, score: 3 });
    expect(r.body).toMatchObject({ duplicate: false, event_id: null, lowered: 0 });
    expect(await rowCounts(m.deps.db)).toEqual(before);
    expect((await feedback({ recall_id: '00000000-0000-4000-8000-000000000000', score: 5 })).status).toBe(404);
    expect((await feedback({ recall_id: neutral.recall_id, score: 6 })).status).toBe(400);
    expect((await feedback({ recall_id: 'abc', score: 5 })).status).toBe(400);
  });
});
