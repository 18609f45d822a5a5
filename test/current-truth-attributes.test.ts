/**
 * A statement of several things goes stale for the thing that changed, not for the rest (embedded
 * PGlite here, PostgreSQL in the server suite): after sprints go from two weeks to one, "how long
 * is a sprint?" gets one week, and "what day is planning?" still gets the statement that names
 * the planning day, as current.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const at = (d: number, h = 10) => new Date(Date.UTC(2025, 9, d, h)).toISOString();

interface Result {
  content: string;
  current: boolean;
}
async function recall(query: string): Promise<Result[]> {
  const r = await postJson(`${m.url}/v1/recall`, { user_id: 'ivo', query, limit: 5 });
  expect(r.status).toBe(200);
  return r.body.results;
}

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const turn = (session: string, when: string, role: string, content: string) => ({ user_id: 'ivo', session_id: session, occurred_at: when, role, content });
  const events = [
    turn('s1', at(1), 'user', 'I just became scrum master, help me plan the ceremonies'),
    turn('s1', at(1, 11), 'assistant', 'Congrats! How long are your sprints?'),
    turn('s1', at(1, 12), 'user', 'two-week sprints, planning on Monday mornings, retro on the last Friday'),
    turn('s2', at(8), 'user', "any retro formats that aren't boring"),
    turn('s2', at(8, 11), 'assistant', 'Try sailboat, or start/stop/continue.'),
    turn('s3', at(20), 'user', 'new year change: leadership wants faster feedback, so we are trying one-week sprints this quarter'),
    turn('s3', at(20, 11), 'user', 'yep'),
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline idle' });
}, 180_000);

afterAll(async () => m?.close());

describe('an attribute that did not change', () => {
  it('gets the new value for what changed', async () => {
    const [top] = await recall('How long is an iteration for our team?');
    expect(top?.content).toContain('one-week');
  });

  it('gets the statement that still holds for what did not change, as current', async () => {
    const [top] = await recall('What day do we hold planning?');
    expect(top?.content).toContain('Monday');
    expect(top?.current).toBe(true);
  });
});
