import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
const USER = 'corr';

async function patch(id: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${m.url}/v1/memories/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
const rows = (text: string, params: unknown[] = []) => withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows);
const recallIds = async (body: Record<string, unknown>) => {
  const r = await postJson(`${m.url}/v1/recall`, { user_id: USER, limit: 20, mode: 'memories', ...body });
  expect(r.status).toBe(200);
  return (r.body.results as Array<{ id: string }>).map((x) => x.id);
};

let original: { id: string; content: string };

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const events = [
    { user_id: USER, session_id: 'c1', occurred_at: at(10), content: 'The staging database runs on port 5433 behind the VPN.' },
    { user_id: USER, session_id: 'c1', occurred_at: at(10), content: 'We decided to ship the mobile app in March.' },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.objects.events === events.length && s.pending_events === 0;
    },
    { timeoutMs: 240_000, what: 'pipeline' },
  );
  const list = await getJson(`${m.url}/v1/memories?user_id=${USER}`);
  original = list.body.memories.find((x: { content: string }) => /5433/.test(x.content));
  expect(original).toBeDefined();
}, 300_000);
afterAll(async () => m?.close());

describe('PATCH /v1/memories/:id (correction)', () => {
  let v2: string;

  it('inserts a new version that supersedes the old one, keeping its provenance and scope', async () => {
    const r = await patch(original.id, { content: 'The staging database runs on port 6543 behind the VPN.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ previous_id: original.id, version: 2, status: 'active' });
    v2 = r.body.id;
    const [oldRow, newRow] = await Promise.all([
      rows('SELECT status, superseded_by, superseded_at, valid_from, content, user_id, session_id FROM memories WHERE id = $1', [original.id]),
      rows('SELECT status, version, valid_from, content, user_id, session_id, embedding IS NOT NULL AS embedded, run_id FROM memories WHERE id = $1', [v2]),
    ]);
    expect(oldRow[0]).toMatchObject({ status: 'superseded', superseded_by: v2, content: original.content });
    expect(newRow[0]).toMatchObject({ status: 'active', version: 2, user_id: USER, session_id: 'c1', embedded: true });
    expect((oldRow[0]!.superseded_at as Date).getTime()).toBe((newRow[0]!.valid_from as Date).getTime());

    const detail = (await getJson(`${m.url}/v1/memories/${v2}`)).body;
    const oldDetail = (await getJson(`${m.url}/v1/memories/${original.id}`)).body;
    expect(detail.provenance.events.map((e: { id: string }) => e.id)).toEqual(oldDetail.provenance.events.map((e: { id: string }) => e.id));
    expect(detail.provenance.events.length).toBeGreaterThan(0);
    expect(detail.provenance.runs.map((x: { stage: string }) => x.stage)).toContain('correct');
    expect(detail.versions.map((x: { id: string }) => x.id)).toEqual([original.id, v2]);
    expect(detail.relations).toContainEqual(
      expect.objectContaining({ relation: 'replaces', direction: 'out', other_memory_id: original.id, is_progression: true }),
    );
  });

  it('keeps the old version out of default recall and answers it through as_of', async () => {
    const now = await recallIds({ query: 'staging database port' });
    expect(now).toContain(v2);
    expect(now).not.toContain(original.id);
    const before = await recallIds({ query: 'staging database port', as_of: at(5) });
    expect(before).toContain(original.id);
    expect(before).not.toContain(v2);
  });

  it('chains further corrections and may change only kind or importance', async () => {
    const r3 = await patch(v2, { content: 'The staging database runs on port 7777 behind the VPN.', kind: 'fact' });
    expect(r3.body.version).toBe(3);
    const r4 = await patch(r3.body.id, { content: 'The staging database runs on port 7777 behind the VPN.', importance: 9 });
    expect(r4.status).toBe(200);
    expect(r4.body).toMatchObject({ version: 4, importance: 9 });
    const chain = (await getJson(`${m.url}/v1/memories/${original.id}`)).body.versions.map((x: { id: string; status: string }) => [x.id, x.status]);
    expect(chain).toEqual([
      [original.id, 'superseded'],
      [v2, 'superseded'],
      [r3.body.id, 'superseded'],
      [r4.body.id, 'active'],
    ]);
    const active = await rows(`SELECT count(*)::int AS n FROM memories WHERE user_id = $1 AND status = 'active' AND content LIKE 'The staging database%'`, [
      USER,
    ]);
    expect(active[0]!.n).toBe(1);
  });

  it('answers 409 for a version that is no longer active, 404 for an unknown id, 400 for bad input', async () => {
    const before = await rows('SELECT count(*)::int AS n FROM memories');
    expect((await patch(original.id, { content: 'The staging database runs on port 1 instead.' })).status).toBe(409);
    expect((await patch('00000000-0000-4000-8000-000000000000', { content: 'Anything at all here.' })).status).toBe(404);
    expect((await patch('not-a-uuid', { content: 'Anything at all here.' })).status).toBe(400);
    expect((await patch(v2, { content: '   ' })).status).toBe(400);
    expect((await patch(v2, { content: 'x', color: 'red' })).status).toBe(400);
    expect(await rows('SELECT count(*)::int AS n FROM memories')).toEqual(before);
  });

  it('refuses (409) a correction that repeats another active memory of the scope, and changes nothing', async () => {
    const list = (await getJson(`${m.url}/v1/memories?user_id=${USER}`)).body.memories as Array<{ id: string; content: string }>;
    const ship = list.find((x) => /mobile app/.test(x.content))!;
    const port = list.find((x) => /7777/.test(x.content))!;
    const before = await rows('SELECT id, status, content FROM memories ORDER BY id');
    const r = await patch(ship.id, { content: port.content });
    expect(r.status).toBe(409);
    expect(r.body.error.details.existing_id).toBe(port.id);
    expect(await rows('SELECT id, status, content FROM memories ORDER BY id')).toEqual(before);
  });
});
