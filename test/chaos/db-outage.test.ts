import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { createScratchDatabase, CuttableProxy, OwnRedis, type ScratchDatabase } from '../support/server-mode.js';

/**
 * The database goes away (every connection dropped, new ones refused) and comes back. Meanwhile
 * writes answer 503 (never 202 without a durable write), reads 503, /readyz 503, nothing 500; once
 * it is back, the same requests succeed and the pipeline finishes what it had.
 */
describe('database unavailable, then back', () => {
  let redis: OwnRedis;
  let db: ScratchDatabase;
  let proxy: CuttableProxy;
  let m: TestMemloom;
  beforeAll(async () => {
    redis = await OwnRedis.start();
    db = await createScratchDatabase();
    const u = new URL(db.url);
    proxy = await CuttableProxy.start({ host: u.hostname, port: Number(u.port || 5432) });
    m = await startTestMemloom({
      env: { DATABASE_URL: proxy.urlFor(db.url), REDIS_URL: redis.url, EXTRACT_DEBOUNCE_MS: '100' },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'maintenance'], scheduler: true },
    });
  });
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await m?.close();
    await proxy?.cut();
    await redis?.kill();
    await db?.drop();
  });

  it('answers 503 while it is gone and recovers without a restart', async () => {
    const first = await postJson(`${m.url}/v1/events`, { content: 'before the outage: we decided to use PostgreSQL.', session_id: 'o1', user_id: 'u' });
    expect(first.status).toBe(202);
    await proxy.cut();
    const during = [
      await postJson(`${m.url}/v1/events`, { content: 'during the outage', session_id: 'o1', user_id: 'u' }),
      await postJson(`${m.url}/v1/events`, { events: [{ content: 'a' }, { content: 'b' }] }),
      await postJson(`${m.url}/v1/recall`, { query: 'PostgreSQL' }),
      await getJson(`${m.url}/v1/memories`),
      await getJson(`${m.url}/v1/stats`),
      await getJson(`${m.url}/v1/graph/entities?q=postgres`),
      await getJson(`${m.url}/v1/dead-letters`),
      await getJson(`${m.url}/v1/working-memory?user_id=u`),
    ];
    expect(during.map((r) => r.status)).toEqual(during.map(() => 503));
    for (const r of during) expect(r.body.error.code).toBe('DATABASE_UNAVAILABLE');
    expect((await getJson(`${m.url}/readyz`)).status).toBe(503);
    expect((await getJson(`${m.url}/healthz`)).status).toBe(200);

    await proxy.restore();
    await waitFor(async () => (await getJson(`${m.url}/readyz`)).status === 200, { timeoutMs: 60_000, what: '/readyz to answer 200 again' });
    const after = await postJson(`${m.url}/v1/events`, { content: 'after the outage: Alice prefers Grafana.', session_id: 'o1', user_id: 'u' });
    expect(after.status).toBe(202);
    await waitFor(async () => ((await getJson(`${m.url}/v1/stats`)).body as { pending_events: number }).pending_events === 0, {
      timeoutMs: 120_000,
      what: 'the pipeline to finish',
    });
    const stats = (await getJson(`${m.url}/v1/stats`)).body as { objects: { events: number } };
    expect(stats.objects.events).toBe(2); // the two accepted; nothing from the outage was half-stored
    expect((await postJson(`${m.url}/v1/recall`, { query: 'Grafana', mode: 'chunks' })).status).toBe(200);
  }, 300_000);
});
