import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
});
afterAll(async () => m?.close());

describe('pipeline smoke', () => {
  it('turns a conversation into memories', async () => {
    const events = [
      { session_id: 's1', user_id: 'u1', role: 'user', content: 'We decided to use PostgreSQL with pgvector for the memory store.', metadata: { speaker: 'Alice' } },
      { session_id: 's1', user_id: 'u1', role: 'user', content: 'ok thanks' },
      { session_id: 's1', user_id: 'u1', role: 'user', content: 'I prefer TypeScript over Python for services.', metadata: { speaker: 'Alice' } },
      { session_id: 's1', user_id: 'u1', role: 'user', content: '我们决定使用PostgreSQL作为数据库', metadata: { speaker: 'Alice' } },
    ];
    const r = await postJson(`${m.url}/v1/events`, { events });
    expect(r.status).toBe(202);
    const stats = await waitFor(async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.pending_events === 0 && s.objects.events === 4 ? s : undefined;
    }, { timeoutMs: 60_000, what: 'pipeline to finish' });
    console.log(JSON.stringify(stats.objects));
    expect(stats.objects.memories).toBeGreaterThan(0);
  });
});
