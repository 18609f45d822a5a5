import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js';
import { withTenant } from '../src/db/pool.js';
import { EventWriter, toEventRow } from '../src/events/ingest.js';
import { EventInput } from '../src/events/schema.js';
import { createLogger } from '../src/logger.js';
import { triageJobId } from '../src/queue/triage-jobs.js';
import { postJson, startTestMemloom, type TestMemloom } from './support/memloom.js';
import { triageJobsHolding } from './support/pipeline.js';

const KEYS = { default: 'key-default', acme: 'key-acme', beta: 'key-beta' } as const;
const auth = (tenant: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[tenant]}` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function rows<T = Record<string, unknown>>(m: TestMemloom, tenant: string, sql: string, params: unknown[] = []): Promise<T[]> {
  return withTenant(m.deps.db, tenant, async (tx) => (await tx.query(sql, params)).rows as T[]);
}

/** Sends raw bytes (fetch with a Buffer body), for bodies JSON.stringify cannot produce. */
async function postRaw(url: string, body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

describe('POST /v1/events with API keys, Redis queues', () => {
  let m: TestMemloom;
  let post: (body: unknown, tenant?: keyof typeof KEYS) => ReturnType<typeof postJson>;
  beforeAll(async () => {
    m = await startTestMemloom({
      redis: true,
      env: {
        MEMLOOM_API_KEYS: Object.entries(KEYS)
          .map(([t, k]) => `${k}:${t}`)
          .join(','),
      },
      roles: { api: true, workers: [] },
    });
    post = (body, tenant = 'default') => postJson(`${m.url}/v1/events`, body, auth(tenant));
  });
  afterAll(async () => m?.close());

  it('answers 202 for one event, stores it as received and queues one triage job for it', async () => {
    const r = await post({ content: 'we chose PostgreSQL', user_id: 'u-1', metadata: { k: [1, { a: 'b' }] } });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ accepted: 1, duplicates: 0, ids: [expect.stringMatching(UUID)] });
    const id = r.body.ids[0] as string;
    const [row] = await rows<{ content: string; status: string; user_id: string; metadata: unknown }>(
      m,
      'default',
      'SELECT content, status, user_id, metadata FROM events WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ content: 'we chose PostgreSQL', status: 'received', user_id: 'u-1', metadata: { k: [1, { a: 'b' }] } });
    await m.deps.dispatcher.flush();
    const jobs = await triageJobsHolding(m.deps, id);
    expect(jobs.map((j) => j.data)).toEqual([{ tenantId: 'default', eventIds: [id] }]);
    expect(jobs[0]?.id).toBe(triageJobId({ tenantId: 'default', eventIds: [id] }));
    // handed to the queue: no longer listed as waiting for it
    expect(await rows(m, 'default', 'SELECT event_id FROM events_unqueued WHERE event_id = $1', [id])).toEqual([]);
  });

  it('answers 202 for a batch with the ids in request order', async () => {
    const contents = ['first', 'second', 'third', 'fourth'];
    const r = await post({ events: contents.map((content) => ({ content, type: 'note' })) });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(4);
    expect(r.body.ids).toHaveLength(4);
    const stored = await rows<{ id: string; content: string }>(m, 'default', 'SELECT id, content FROM events WHERE id = ANY($1::uuid[])', [r.body.ids]);
    const byId = new Map(stored.map((s) => [s.id, s.content]));
    expect(r.body.ids.map((id: string) => byId.get(id))).toEqual(contents);
    await m.deps.dispatcher.flush();
    // one job holds the whole batch (the dispatcher coalesces a flush into one job per tenant)
    const jobs = await triageJobsHolding(m.deps, r.body.ids[0]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.data.eventIds).toEqual(expect.arrayContaining(r.body.ids));
  });

  it('holds new events while the batch handed on last is not searchable, then hands them on in one job (at most 2 s)', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const id = async (content: string) => (await post({ content, user_id: 'u-hold' })).body.ids[0] as string;
    const a = await id('hold: first');
    await m.deps.dispatcher.flush(); // a is in flight, and stays `received`: no worker runs here
    const b = await id('hold: second');
    await sleep(400);
    const c = await id('hold: third');
    expect(await triageJobsHolding(m.deps, b)).toEqual([]);
    await rows(m, 'default', `UPDATE events SET status = 'done' WHERE id = $1`, [a]);
    await vi.waitFor(async () => expect((await triageJobsHolding(m.deps, b)).map((j) => j.data.eventIds)).toEqual([[b, c]]), { timeout: 1_500 });
    // b and c stay `received`: d waits for them, but no longer than the hold's bound
    const d = await id('hold: fourth');
    await sleep(1_000);
    expect(await triageJobsHolding(m.deps, d)).toEqual([]);
    await vi.waitFor(async () => expect(await triageJobsHolding(m.deps, d)).toHaveLength(1), { timeout: 2_000 });
  });

  it('stores one event per idempotency key and answers the stored id for duplicates', async () => {
    const first = await post({ id: 'idem-1', content: 'once' });
    const again = await post({ id: 'idem-1', content: 'once, sent again' });
    const inBatch = await post({
      events: [
        { id: 'idem-2', content: 'a' },
        { id: 'idem-1', content: 'b' },
        { id: 'idem-2', content: 'c' },
      ],
    });
    expect(first.body).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ accepted: 0, duplicates: 1, ids: first.body.ids });
    expect(inBatch.body.accepted).toBe(1);
    expect(inBatch.body.duplicates).toBe(2);
    expect(inBatch.body.ids[1]).toBe(first.body.ids[0]);
    expect(inBatch.body.ids[2]).toBe(inBatch.body.ids[0]);
    const stored = await rows<{ idem_key: string; content: string }>(
      m,
      'default',
      `SELECT idem_key, content FROM events WHERE idem_key IN ('idem-1', 'idem-2') ORDER BY idem_key`,
    );
    expect(stored).toEqual([
      { idem_key: 'idem-1', content: 'once' },
      { idem_key: 'idem-2', content: 'a' },
    ]);
  });

  it('keeps idempotency keys per tenant: the same id in two tenants stores two events', async () => {
    const a = await post({ id: 'shared-key', content: 'acme says' }, 'acme');
    const b = await post({ id: 'shared-key', content: 'beta says' }, 'beta');
    const b2 = await post({ id: 'shared-key', content: 'beta again' }, 'beta');
    expect([a.body.accepted, b.body.accepted, b2.body.duplicates]).toEqual([1, 1, 1]);
    expect(a.body.ids[0]).not.toBe(b.body.ids[0]);
    expect(await rows(m, 'acme', `SELECT content FROM events WHERE idem_key = 'shared-key'`)).toEqual([{ content: 'acme says' }]);
    expect(await rows(m, 'beta', `SELECT content FROM events WHERE idem_key = 'shared-key'`)).toEqual([{ content: 'beta says' }]);
    await m.deps.dispatcher.flush();
    expect((await triageJobsHolding(m.deps, b.body.ids[0])).map((j) => j.data)).toEqual([{ tenantId: 'beta', eventIds: [b.body.ids[0]] }]);
  });

  it('stores valid edge values (offsets, fractions, long durations, year 9999)', async () => {
    const r = await post({
      events: [
        { content: 'a', occurred_at: '2026-11-29T10:00:00.123456789+05:30', ttl: 'P1Y2M3W4DT5H6M7.5S', importance: 10 },
        { content: 'b', occurred_at: '9999-12-31T23:59:59Z', ttl: 'P9999999D', importance: 1 },
      ],
    });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(2);
    const stored = await rows<{ at: string; ttl: string }>(
      m,
      'default',
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at, ttl::text FROM events WHERE id = ANY($1::uuid[]) ORDER BY content`,
      [r.body.ids],
    );
    expect(stored[0]).toEqual({ at: '2026-11-29 04:30:00.123457', ttl: '1 year 2 mons 25 days 05:06:07.5' });
    expect(stored[1]?.at).toBe('9999-12-31 23:59:59.000000');
  });

  it('writes concurrent requests together and still answers each with its own ids', async () => {
    const contents = Array.from({ length: 40 }, (_, i) => `concurrent ${i}`);
    const answers = await Promise.all(contents.map((content, i) => post({ content }, i % 3 === 0 ? 'acme' : 'default')));
    expect(answers.every((a) => a.status === 202 && a.body.accepted === 1)).toBe(true);
    for (const [i, a] of answers.entries()) {
      const tenant = i % 3 === 0 ? 'acme' : 'default';
      expect(await rows(m, tenant, 'SELECT content FROM events WHERE id = $1', [a.body.ids[0]])).toEqual([{ content: contents[i] }]);
    }
  });

  it('stores one event when many concurrent requests carry the same id', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ id: 'race-1', content: `racer ${i}` })));
    expect(answers.map((a) => a.status).every((s) => s === 202)).toBe(true);
    expect(answers.reduce((n, a) => n + a.body.accepted, 0)).toBe(1);
    expect(answers.reduce((n, a) => n + a.body.duplicates, 0)).toBe(19);
    expect(new Set(answers.map((a) => a.body.ids[0])).size).toBe(1);
    expect(await rows(m, 'default', `SELECT count(*)::int AS n FROM events WHERE idem_key = 'race-1'`)).toEqual([{ n: 1 }]);
  });

  it('fails only the request whose rows the database refuses when requests share a write', async () => {
    const writer = new EventWriter(m.deps.db);
    const row = (key: string, importance: number | null) => ({ ...toEventRow(EventInput.parse({ content: key }), key, 'http', undefined), importance });
    const [good, bad, alsoGood] = await Promise.allSettled([
      writer.write('default', [row('grouped-ok-1', 3)]),
      writer.write('default', [row('grouped-bad', 11)]), // violates the CHECK (1..10): validation never lets this through
      writer.write('acme', [row('grouped-ok-2', null)]),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(alsoGood.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    expect(await rows(m, 'default', `SELECT idem_key FROM events WHERE idem_key LIKE 'grouped-%'`)).toEqual([{ idem_key: 'grouped-ok-1' }]);
    expect(await rows(m, 'acme', `SELECT idem_key FROM events WHERE idem_key LIKE 'grouped-%'`)).toEqual([{ idem_key: 'grouped-ok-2' }]);
  });

  it.each([
    ['missing content', { type: 'note' }, 'content'],
    ['content of the wrong type', { content: 42 }, 'content'],
    ['empty content', { content: '   ' }, 'content'],
    ['importance of the wrong type', { content: 'x', importance: 'high' }, 'importance'],
    ['an unknown type', { content: 'x', type: 'shout' }, 'type'],
    ['an unknown field', { content: 'x', colour: 'red' }, 'colour'],
    ['a bad occurred_at', { content: 'x', occurred_at: 'yesterday' }, 'occurred_at'],
    ['an occurred_at without a zone', { content: 'x', occurred_at: '2026-11-29T10:00:00' }, 'occurred_at'],
    ['an occurred_at in year 0', { content: 'x', occurred_at: '0000-06-01T00:00:00Z' }, 'occurred_at'],
    ['a bad ttl', { content: 'x', ttl: '30 days' }, 'ttl'],
    ['a ttl beyond any interval', { content: 'x', ttl: 'P99999999999999999999D' }, 'ttl'],
    ['an id over 200 characters', { id: 'k'.repeat(201), content: 'x' }, 'id'],
    ['metadata that is not an object', { content: 'x', metadata: [1] }, 'metadata'],
  ])('answers 400 naming index and path for %s', async (_what, event, path) => {
    const before = await rows<{ n: number }>(m, 'default', 'SELECT count(*)::int AS n FROM events');
    const r = await post(event);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INPUT_INVALID');
    expect(r.body.error.details).toContainEqual({ index: 0, path, message: expect.any(String) });
    expect(await rows(m, 'default', 'SELECT count(*)::int AS n FROM events')).toEqual(before);
  });

  it('accepts the good events of a partial batch and names the rejected ones', async () => {
    const r = await post({ events: [{ content: 'good 0' }, { content: 7 }, { content: 'good 2' }, { content: 'x', colour: 'red' }, 'not an object'] });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(2);
    expect(r.body.ids.map((id: string | null) => (id === null ? null : 'id'))).toEqual(['id', null, 'id', null, null]);
    expect(r.body.error.code).toBe('INPUT_INVALID');
    expect(r.body.error.details).toEqual([
      { index: 1, path: 'content', message: expect.any(String) },
      { index: 3, path: 'colour', message: 'unknown field' },
      { index: 4, path: '', message: 'an event must be a JSON object' },
    ]);
    const stored = await rows<{ content: string }>(m, 'default', 'SELECT content FROM events WHERE id = ANY($1::uuid[]) ORDER BY content', [
      [r.body.ids[0], r.body.ids[2]],
    ]);
    expect(stored.map((s) => s.content)).toEqual(['good 0', 'good 2']);
  });

  it('answers 400 when no event of a batch is valid', async () => {
    const r = await post({ events: [{ content: 1 }, {}] });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { index: number }) => d.index)).toEqual([0, 1]);
  });

  it('answers 400 for a body that is not valid UTF-8', async () => {
    const bytes = Buffer.concat([Buffer.from('{"content":"caf'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const r = await postRaw(`${m.url}/v1/events`, bytes, auth('default'));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_UTF8');
  });

  it('answers 400 for NUL characters and unpaired surrogates anywhere they would be stored', async () => {
    for (const [body, path] of [
      ['{"content":"a\\u0000b"}', 'content'],
      ['{"content":"x","user_id":"u\\u0000"}', 'user_id'],
      ['{"content":"x","metadata":{"k":"v\\u0000"}}', 'metadata'],
      ['{"content":"x","metadata":{"k\\u0000":1}}', 'metadata'],
      ['{"content":"half a pair \\ud800"}', 'content'],
    ] as const) {
      const r = await postRaw(`${m.url}/v1/events`, body, auth('default'));
      expect(r.status, body).toBe(400);
      expect(r.body.error.details[0], body).toMatchObject({ index: 0, path });
    }
    const paired = await post({ content: 'a real pair 😀' });
    expect(paired.status).toBe(202);
  });

  it('answers 400 naming metadata when it nests too deeply, even 100,000 levels deep', async () => {
    let moderate: unknown = 'leaf';
    for (let i = 0; i < 12; i++) moderate = { d: moderate };
    const r1 = await post({ content: 'x', metadata: moderate });
    expect(r1.status).toBe(400);
    expect(r1.body.error.details).toEqual([{ index: 0, path: 'metadata', message: expect.stringMatching(/nest/) }]);

    const absurd = `{"content":"x","metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const r2 = await postRaw(`${m.url}/v1/events`, absurd, auth('default'));
    expect(r2.status).toBe(400);
    expect(r2.body.error.details).toEqual([{ index: 0, path: 'metadata', message: expect.stringMatching(/nest/) }]);

    const deepBody = await postRaw(`${m.url}/v1/events`, `${'['.repeat(100_000)}${']'.repeat(100_000)}`, auth('default'));
    expect(deepBody.status).toBe(400);
    const deepObject = await postRaw(`${m.url}/v1/events`, `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, auth('default'));
    expect(deepObject.status).toBe(400);
  });

  it('answers 400 for metadata with a huge flat array instead of overflowing', async () => {
    const r = await post({ content: 'x', metadata: { a: Array.from({ length: 300_000 }, () => 1) } });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ index: 0, path: 'metadata' });
  });

  it.each([
    ['a string', '"str"'],
    ['a number', '42'],
    ['an array', '[1]'],
    ['null', 'null'],
    ['an empty body', ''],
    ['invalid JSON', '{"content":'],
  ])('answers 400 for %s as the body', async (_what, body) => {
    const r = await postRaw(`${m.url}/v1/events`, body, auth('default'));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it('answers 413 for content over 1 MiB, and rejects only that event in a batch', async () => {
    const big = 'é'.repeat(512 * 1024 + 1); // 1 MiB + 2 bytes of UTF-8, 512 Ki characters
    const single = await post({ content: big });
    expect(single.status).toBe(413);
    expect(single.body.error.code).toBe('CONTENT_TOO_LARGE');
    const batch = await post({ events: [{ content: 'small' }, { content: big }] });
    expect(batch.status).toBe(202);
    expect(batch.body.ids[1]).toBeNull();
    expect(batch.body.error.details).toEqual([{ index: 1, path: 'content', message: expect.stringMatching(/1 MiB/) }]);
  });

  it('answers 413 for more than 1,000 events in one request, storing none', async () => {
    const before = await rows(m, 'default', 'SELECT count(*)::int AS n FROM events');
    const r = await post({ events: Array.from({ length: 1001 }, (_, i) => ({ content: `e${i}` })) });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('BATCH_TOO_LARGE');
    expect(await rows(m, 'default', 'SELECT count(*)::int AS n FROM events')).toEqual(before);
    const ok = await post({ events: Array.from({ length: 1000 }, (_, i) => ({ content: `e${i}` })) });
    expect(ok.body.accepted).toBe(1000);
  });

  it('answers 401 without a key or with a wrong one', async () => {
    const none = await postJson(`${m.url}/v1/events`, { content: 'x' });
    const wrong = await postJson(`${m.url}/v1/events`, { content: 'x' }, { authorization: 'Bearer nope' });
    const header = await postJson(`${m.url}/v1/events`, { content: 'via x-api-key' }, { 'x-api-key': KEYS.acme });
    expect([none.status, wrong.status, header.status]).toEqual([401, 401, 202]);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect(await rows(m, 'acme', `SELECT count(*)::int AS n FROM events WHERE content = 'via x-api-key'`)).toEqual([{ n: 1 }]);
  });
});

describe('POST /v1/events limits', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { BODY_LIMIT_BYTES: '4096', INGEST_RATE_PER_SEC: '2' }, roles: { api: true, workers: [] } });
  });
  afterAll(async () => m?.close());

  it('answers 413 for a body over BODY_LIMIT_BYTES', async () => {
    const r = await postJson(`${m.url}/v1/events`, { content: 'x'.repeat(5000) });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('BODY_TOO_LARGE');
  });

  it('answers 429 with Retry-After over the tenant ingest rate', async () => {
    // 5 events at 2/s: let through from a full bucket, which is then 3 events in debt
    const ok = await postJson(`${m.url}/v1/events`, { events: Array.from({ length: 5 }, (_, i) => ({ content: `r${i}` })) });
    expect(ok.status).toBe(202);
    const limited = await postJson(`${m.url}/v1/events`, { events: [{ content: 'one too many' }, { content: 'and another' }] });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const stored = await rows(m, 'default', `SELECT count(*)::int AS n FROM events WHERE content IN ('one too many', 'and another')`);
    expect(stored).toEqual([{ n: 0 }]);
  });
});

describe('POST /v1/events when the database is unreachable', () => {
  let external: EmbeddedDatabase | undefined;
  let m: TestMemloom;
  beforeAll(async () => {
    external = await startEmbeddedDatabase({
      home: '',
      port: 0,
      inMemory: true,
      log: createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr),
    });
    m = await startTestMemloom({ redis: true, env: { DATABASE_URL: external.url }, roles: { api: true, workers: [] } });
  });
  afterAll(async () => {
    await m?.close();
    await external?.stop().catch(() => undefined);
  });

  it('answers 503, never 202, once the database stops', async () => {
    const before = await postJson(`${m.url}/v1/events`, { content: 'while up' });
    expect(before.status).toBe(202);
    await m.deps.dispatcher.flush();
    await external?.stop();
    external = undefined;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => postJson(`${m.url}/v1/events`, { events: [{ content: `while down ${i}` }] })));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 503));
    expect(answers[0]?.body.error.code).toBe('DATABASE_UNAVAILABLE');
  });
});
