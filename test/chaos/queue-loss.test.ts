import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { sql } from '../support/pipeline.js';
import { createScratchDatabase, OwnRedis, type ScratchDatabase } from '../support/server-mode.js';

/**
 * Server mode (PostgreSQL + pgvector, BullMQ on Redis) losing its queue mid-run: Redis killed and
 * restarted without persistence, then flushed while running. Events keep being accepted (stored
 * first), and the requeue task queues again what the queue forgot, so every event ends done or
 * skipped. Reconcile and scheduler intervals are the defaults: the scheduler notices the lost job
 * schedulers within SCHEDULER_REFRESH_MS and requeues at once.
 */
const KEYS = { alpha: 'ql-alpha', beta: 'ql-beta' };

function events(tag: string, n: number): object[] {
  const lines = [
    'We decided to move the billing service to PostgreSQL 16 next month.',
    'Alice prefers Grafana dashboards for the queue metrics.',
    'The staging Redis cluster will be upgraded on Friday.',
    'Bob owns the incident runbook for the payment gateway.',
    'ok',
  ];
  return Array.from({ length: n }, (_, i) => ({
    session_id: `${tag}-s${i % 7}`,
    user_id: `${tag}-u${i % 3}`,
    role: i % 2 ? 'assistant' : 'user',
    content: `${lines[i % lines.length]} (${tag} ${i})`,
  }));
}

async function post(m: TestMemloom, key: string, batch: object[]): Promise<string[]> {
  const r = await postJson(`${m.url}/v1/events`, { events: batch }, { authorization: `Bearer ${key}` });
  expect(r.status).toBe(202);
  return r.body.ids as string[];
}

const pending = async (m: TestMemloom) => {
  let n = 0;
  for (const key of Object.values(KEYS))
    n += ((await getJson(`${m.url}/v1/stats`, { authorization: `Bearer ${key}` })).body as { pending_events: number }).pending_events;
  return n;
};

describe('queue loss in server mode: the queue is not the source of truth', () => {
  let redis: OwnRedis;
  let db: ScratchDatabase;
  let m: TestMemloom;
  beforeAll(async () => {
    redis = await OwnRedis.start();
    db = await createScratchDatabase();
    m = await startTestMemloom({
      env: {
        DATABASE_URL: db.url,
        REDIS_URL: redis.url,
        MEMLOOM_API_KEYS: `${KEYS.alpha}:alpha,${KEYS.beta}:beta`,
        REQUEUE_INTERVAL_MS: '30000',
        EXTRACT_DEBOUNCE_MS: '300',
        INGEST_RATE_PER_SEC: '1000000',
      },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing', 'maintenance'], scheduler: true },
    });
  });
  afterAll(async () => {
    if (redis && !redis.child) await redis.start().catch(() => undefined); // closing queues needs their Redis
    await m?.close();
    await redis?.kill();
    await db?.drop();
  });

  async function expectAllFinished(ids: Map<string, string[]>): Promise<void> {
    for (const [tenant, list] of ids) {
      const rows = await sql<{ status: string; n: number }>(
        m.deps.db,
        'SELECT status, count(*)::int AS n FROM events WHERE id = ANY($1::uuid[]) GROUP BY status',
        [list],
        tenant,
      );
      expect(
        rows.filter((r) => r.status !== 'done' && r.status !== 'skipped'),
        tenant,
      ).toEqual([]);
      expect(
        rows.reduce((n, r) => n + r.n, 0),
        tenant,
      ).toBe(list.length);
      // every kept event was chunked and embedded exactly once (chunks are unique per event and index)
      const missing = await sql(
        m.deps.db,
        `SELECT e.id FROM events e WHERE e.id = ANY($1::uuid[]) AND e.status = 'done' AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.event_id = e.id AND c.embedding IS NOT NULL)`,
        [list],
        tenant,
      );
      expect(missing, tenant).toEqual([]);
    }
  }

  it('Redis SIGKILLed mid-run and restarted empty: writes answer 202 meanwhile, pending_events returns to 0', async () => {
    const ids = new Map<string, string[]>([
      ['alpha', []],
      ['beta', []],
    ]);
    for (let i = 0; i < 6; i++) {
      ids.get('alpha')?.push(...(await post(m, KEYS.alpha, events(`a${i}`, 40))));
      ids.get('beta')?.push(...(await post(m, KEYS.beta, events(`b${i}`, 20))));
    }
    // Mid-run: some work done, much still queued.
    await waitFor(async () => (await sql(m.deps.db, `SELECT 1 FROM events WHERE status = 'done' LIMIT 1`, [], 'alpha')).length === 1, { timeoutMs: 120_000 });
    await redis.kill();
    for (let i = 0; i < 3; i++) ids.get('alpha')?.push(...(await post(m, KEYS.alpha, events(`outage${i}`, 30))));
    expect(await pending(m)).toBeGreaterThan(0);
    await redis.start(); // empty: --save '' --appendonly no
    const back = Date.now();
    await waitFor(async () => (await pending(m)) === 0, { timeoutMs: 180_000, intervalMs: 500, what: 'pending_events to return to 0 after the restart' });
    process.stderr.write(
      `queue-loss: pending_events 0 ${((Date.now() - back) / 1000).toFixed(1)} s after Redis came back empty (${ids.get('alpha')?.length} + ${ids.get('beta')?.length} events)\n`,
    );
    await expectAllFinished(ids);
  }, 600_000);

  it('Redis flushed while running: the requeue task queues the forgotten work again', async () => {
    const ids = new Map<string, string[]>([
      ['alpha', []],
      ['beta', []],
    ]);
    for (let i = 0; i < 4; i++) {
      ids.get('alpha')?.push(...(await post(m, KEYS.alpha, events(`fa${i}`, 40))));
      ids.get('beta')?.push(...(await post(m, KEYS.beta, events(`fb${i}`, 40))));
    }
    await redis.flush();
    const flushed = Date.now();
    await waitFor(async () => (await pending(m)) === 0, { timeoutMs: 180_000, intervalMs: 500, what: 'pending_events to return to 0 after FLUSHALL' });
    process.stderr.write(`queue-loss: pending_events 0 ${((Date.now() - flushed) / 1000).toFixed(1)} s after FLUSHALL\n`);
    await expectAllFinished(ids);
  }, 600_000);
});
