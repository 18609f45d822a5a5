import { access, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { workingMemoryPath } from '../src/memories/working-memory.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { briefing } from '../workers/briefing/handler.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { ingest, runStage, TENANT } from './support/pipeline.js';
import { FORGET_BATCH } from '../src/forget/index.js';
import { runDoctor } from '../src/doctor.js';
import { seedSession } from './support/seed.js';

/**
 * Forget is exact (issue 19): a session is identified within its user, and the working memory
 * (API answer and file) stops carrying forgotten words at once, not at the next refresh.
 */
let m: TestMemloom;
const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  withTenant(m.deps.db, TENANT, async (tx) => (await tx.query(text, params)).rows as T[]);
const settled = () => waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 240_000, what: 'pipeline' });
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

async function userCounts(user: string): Promise<{ events: number; memories: number; chunks: number }> {
  const [r] = await rows<{ events: number; memories: number; chunks: number }>(
    `SELECT (SELECT count(*) FROM events WHERE user_id = $1)::int AS events, (SELECT count(*) FROM memories WHERE user_id = $1)::int AS memories,
            (SELECT count(*) FROM chunks WHERE user_id = $1)::int AS chunks`,
    [user],
  );
  return r!;
}

async function workingMemory(user: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${m.url}/v1/working-memory?user_id=${user}`);
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  // The scheduled and debounced refreshes are far away: only forget itself can refresh the digest here.
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES }, env: { BRIEFING_DEBOUNCE_MS: '3600000' } });
  // Two users with a session of the same name and the same words.
  const events = [
    ...seedSession('chat-1', 'alice'),
    ...seedSession('chat-1', 'bob'),
    { user_id: 'bob', session_id: 'chat-2', role: 'user', content: 'We decided to deploy the billing service on Fridays only.' },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await settled();
  for (const userId of ['alice', 'bob']) await runStage(m.deps, briefing, { tenantId: TENANT, userId });
}, 300_000);
afterAll(async () => m?.close());

describe('forget is exact', () => {
  it('refuses a session id that several users have, removing nothing', async () => {
    const before = [await userCounts('alice'), await userCounts('bob')];
    const r = await postJson(`${m.url}/v1/forget`, { session_id: 'chat-1' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('SESSION_AMBIGUOUS');
    expect([await userCounts('alice'), await userCounts('bob')]).toEqual(before);
  });

  it('forgets one user\u2019s session only, and that user\u2019s working memory goes with it at once', async () => {
    const bobBefore = await userCounts('bob');
    const bobMemories = await rows<{ id: string }>(`SELECT id FROM memories WHERE user_id = 'bob' ORDER BY id`);
    const alice = await workingMemory('alice');
    expect(alice.status).toBe(200);
    expect(alice.text).toMatch(/PostgreSQL|Grafana|Redis/);
    const aliceFile = workingMemoryPath(m.home, TENANT, 'alice');
    expect(await exists(aliceFile)).toBe(true);

    const r = await postJson(`${m.url}/v1/forget`, { session_id: 'chat-1', user_id: 'alice' });
    expect(r.status).toBe(200);
    expect(r.body.removed.events).toBe(3);
    expect(r.body.working_memory_refreshed).toEqual(['alice']);

    expect(await userCounts('alice')).toEqual({ events: 0, memories: 0, chunks: 0 });
    expect(await userCounts('bob')).toEqual(bobBefore);
    expect(await rows<{ id: string }>(`SELECT id FROM memories WHERE user_id = 'bob' ORDER BY id`)).toEqual(bobMemories);
    // Alice has nothing left to say: no digest and no file, without waiting for a refresh.
    expect((await workingMemory('alice')).status).toBe(404);
    expect(await exists(aliceFile)).toBe(false);
    // Her session was the only one of that name left: the id alone is no longer ambiguous.
    const again = await postJson(`${m.url}/v1/forget`, { session_id: 'chat-1', user_id: 'alice' });
    expect(again.body.nothing_to_forget).toBe(true);
  });

  it('DELETE /v1/memories/:id rewrites the working memory and takes the feedback events quoting the memory', async () => {
    const recall = await postJson(`${m.url}/v1/recall`, { query: 'deploy billing service Fridays', user_id: 'bob', mode: 'memories', limit: 3 });
    const hit = (recall.body.results as Array<{ id: string; content: string }>).find((x) => /Fridays/.test(x.content));
    expect(hit).toBeDefined();
    const fb = await postJson(`${m.url}/v1/feedback`, { recall_id: recall.body.recall_id, score: 5 });
    expect(fb.status).toBe(201);
    const feedbackEventId = fb.body.event_id as string;
    await settled();
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'bob' });
    expect((await workingMemory('bob')).text).toContain('Fridays');

    const res = await fetch(`${m.url}/v1/memories/${hit!.id}`, { method: 'DELETE' });
    const body = (await res.json()) as { removed: Record<string, number>; working_memory_refreshed: string[] };
    expect(res.status).toBe(200);
    expect(body.removed.feedback_events).toBe(1);
    expect(body.working_memory_refreshed).toEqual(['bob']);
    expect(await rows('SELECT id FROM events WHERE id = $1', [feedbackEventId])).toEqual([]);
    expect(await rows('SELECT id FROM memories WHERE id = $1', [hit!.id])).toEqual([]);
    // The API and the file say the same, and neither quotes the deleted memory.
    const wm = await workingMemory('bob');
    const file = await readFile(workingMemoryPath(m.home, TENANT, 'bob'), 'utf8').catch(() => null);
    if (wm.status === 200) expect(file).toBe(wm.text);
    else expect(file).toBeNull();
    expect(wm.text).not.toContain('Fridays');
  });

  it('forgets a user with more events than one transaction takes, in several short ones, completely', async () => {
    const n = FORGET_BATCH * 2 + 7;
    await ingest(
      m.deps,
      Array.from({ length: n }, (_, i) => ({ user_id: 'many', session_id: `m-${i % 9}`, content: `note number ${i} of many` })),
    );
    const r = await postJson(`${m.url}/v1/forget`, { user_id: 'many' });
    expect(r.status).toBe(200);
    expect(r.body.removed.events).toBe(n);
    expect(await userCounts('many')).toEqual({ events: 0, memories: 0, chunks: 0 });
    expect((await runDoctor(m.deps)).violations).toBe(0);
  });
});
