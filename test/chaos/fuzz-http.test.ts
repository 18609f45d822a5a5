import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { rawRequest, type RawRequest } from '../support/raw-http.js';
import { sql } from '../support/pipeline.js';
import { hostileRequest, templatedRequest } from './hostile.js';

/**
 * Property: whatever arrives, on whatever route (enumerated from Fastify's registered routes, so
 * routes added later are covered without touching this file), in path, query string, headers or
 * body, the answer is never a 5xx, and the server keeps answering good requests. The chaos run
 * (npm run test:chaos) sets FUZZ_REQUESTS to 10,000 or more; the count is printed with the seed.
 */
const RUNS = Number(process.env.FUZZ_REQUESTS ?? 1500);
const KEYS = { alpha: 'key-alpha', beta: 'key-beta' };
const ADMIN = 'key-admin';

describe('hostile HTTP input', () => {
  let m: TestMemloom;
  let port: number;
  const ids: string[] = [];
  beforeAll(async () => {
    m = await startTestMemloom({
      env: { MEMLOOM_API_KEYS: `${KEYS.alpha}:alpha,${KEYS.beta}:beta`, MEMLOOM_ADMIN_KEYS: ADMIN, EXTRACT_DEBOUNCE_MS: '100', INGEST_RATE_PER_SEC: '1000000' },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing'] },
    });
    port = Number(new URL(m.url).port);
    // Real ids for path parameters, so hostile bodies also reach handlers past the id lookup.
    const auth = { authorization: `Bearer ${KEYS.alpha}` };
    const posted = await postJson(
      `${m.url}/v1/events`,
      {
        events: [
          { session_id: 'fz-1', user_id: 'u-fz', role: 'user', content: 'We decided to run PostgreSQL 16 with pgvector for the memory store.' },
          { session_id: 'fz-1', user_id: 'u-fz', role: 'user', content: 'Alice prefers Grafana dashboards; Redis holds the queues.' },
        ],
      },
      auth,
    );
    expect(posted.status).toBe(202);
    ids.push(...(posted.body.ids as string[]));
    await waitFor(async () => (await apiStats2(m.url, auth)).pending_events === 0, { timeoutMs: 120_000, what: 'the seed events to be extracted' });
    const recall = await postJson(`${m.url}/v1/recall`, { query: 'PostgreSQL', user_id: 'u-fz' }, auth);
    ids.push(recall.body.recall_id as string, ...(recall.body.results as Array<{ id: string }>).map((r) => r.id));
    const entities = await getJson(`${m.url}/v1/graph/entities?q=postgresql`, auth);
    ids.push(...(entities.body.entities as Array<{ id: string }>).map((e) => e.id));
  });
  afterAll(async () => m?.close());

  it(`answers ${RUNS} generated hostile requests over every registered route without a 5xx`, async () => {
    const routes = m.app?.registeredRoutes ?? [];
    expect(routes.length).toBeGreaterThan(15);
    const statuses = new Map<number, number>();
    const failures: Array<{ status: number; req: string; body: string }> = [];
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    const keys = [...Object.values(KEYS), ADMIN];
    const requests = fc.oneof(hostileRequest(routes, keys, ids), templatedRequest(Object.values(KEYS)));
    const property = fc.asyncProperty(requests, async (req: RawRequest) => {
      const res = await rawRequest(port, req);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status < 100 || res.status >= 500) failures.push({ status: res.status, req: describeRequest(req), body: res.body.slice(0, 300) });
      return res.status >= 100 && res.status < 500;
    });
    const result = await fc.check(property, { numRuns: RUNS, seed, endOnFailure: true });
    const summary = Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]));
    // A figure for the chaos report, not an assertion on it.
    process.stderr.write(`fuzz-http: ${RUNS} requests over ${routes.length} routes, seed ${seed}, statuses ${JSON.stringify(summary)}\n`);
    expect(failures, `seed ${seed}: ${JSON.stringify(failures.slice(0, 5), null, 1)}`).toEqual([]);
    expect(result.failed, result.counterexample ? describeRequest(result.counterexample[0] as RawRequest) : '').toBe(false);
    // Still serving, and still storing good events after everything above.
    const good = await postJson(`${m.url}/v1/events`, { content: 'after the storm', user_id: 'u-after' }, { authorization: `Bearer ${KEYS.beta}` });
    expect(good.status).toBe(202);
    expect((await sql(m.deps.db, 'SELECT 1 FROM events WHERE id = $1', [good.body.ids[0]], 'beta')).length).toBe(1);
  }, 1_800_000);

  it('answers 401 without a key and 403 with a tenant key on Bull Board, /metrics and the doctor, 200 with the admin key', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues?activeQueue=triage&status=completed', '/metrics', '/admin/doctor']) {
      expect((await rawRequest(port, { method: 'GET', target: path })).status, path).toBe(401);
      expect((await rawRequest(port, { method: 'GET', target: path, headers: [['authorization', 'Bearer nope']] })).status, path).toBe(401);
      expect((await rawRequest(port, { method: 'GET', target: path, headers: [['authorization', `Bearer ${KEYS.alpha}`]] })).status, path).toBe(403);
      expect((await rawRequest(port, { method: 'GET', target: path, headers: [['x-api-key', ADMIN]] })).status, path).toBe(200);
    }
    // Tenant routes do not take the admin key: it names no tenant.
    expect((await rawRequest(port, { method: 'GET', target: '/v1/stats', headers: [['authorization', `Bearer ${ADMIN}`]] })).status).toBe(401);
  });

  it('names no tenant in /metrics by default', async () => {
    const text = (await rawRequest(port, { method: 'GET', target: '/metrics', headers: [['authorization', `Bearer ${ADMIN}`]] })).body;
    expect(text).toContain('memloom_budget_remaining_tokens');
    expect(text).not.toMatch(/tenant="(alpha|beta|default)"/);
  });
});

async function apiStats2(url: string, headers: Record<string, string>): Promise<{ pending_events: number }> {
  const r = await getJson(`${url}/v1/stats`, headers);
  return r.body as { pending_events: number };
}

function describeRequest(req: RawRequest): string {
  const target = Buffer.isBuffer(req.target) ? req.target.toString('latin1') : req.target;
  const body = req.body === undefined ? '' : (Buffer.isBuffer(req.body) ? req.body.toString('latin1') : req.body).slice(0, 200);
  return `${req.method} ${target.slice(0, 200)} headers=${JSON.stringify((req.headers ?? []).map(([k, v]) => [k, String(v).slice(0, 60)]))} body=${JSON.stringify(body)}`;
}
