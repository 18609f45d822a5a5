import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/pool.js';
import { getJson, startTestMemloom, waitFor, type TestMemloom } from '../../test/support/memloom.js';
import { createMemloom, type MemloomClient, type MemloomClientOptions, type MemloomError } from './index.js';
import { backoffMs } from './transport.js';
import { retryAfterMs } from './http.js';

/** A scripted stand-in for the API, for the answers a healthy memloom does not give on demand (503, 429, 413). */
interface Scripted {
  url: string;
  requests: Array<{ at: number; ids: string[]; contents: string[] }>;
  close(): Promise<void>;
}

type Reply = { status: number; headers?: Record<string, string>; body?: unknown };

async function scriptedApi(answer: (n: number, events: Array<{ id: string; content: string }>) => Reply): Promise<Scripted> {
  const requests: Scripted['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const events = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: Array<{ id: string; content: string }> }).events;
      requests.push({ at: Date.now(), ids: events.map((e) => e.id), contents: events.map((e) => e.content) });
      const r = answer(requests.length, events);
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(
        JSON.stringify(
          r.body ??
            (r.status === 202
              ? { accepted: events.length, duplicates: 0, ids: events.map((e) => e.id) }
              : { error: { code: `HTTP_${r.status}`, message: 'scripted' } }),
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const clients: MemloomClient[] = [];
let spillRoot: string;

/** Every client of this file spills into a temporary events directory and is closed after its test. */
function client(opts: MemloomClientOptions): MemloomClient {
  const c = createMemloom({ eventsDir: spillRoot, flushOnExit: false, ...opts });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  spillRoot = await mkdtemp(path.join(os.tmpdir(), 'memloom-client-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await rm(spillRoot, { recursive: true, force: true });
});

describe('client against a real memloom', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom();
  });
  afterAll(async () => m?.close());

  const events = async () => (await getJson(`${m.url}/v1/stats`)).body.objects.events as number;

  it('sends N events in ceil(N / batchSize) requests and stores each once', async () => {
    const before = await events();
    let requests = 0;
    const c = client({
      url: m.url,
      batchSize: 100,
      flushIntervalMs: 60_000,
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    const ids = Array.from({ length: 250 }, (_, i) => c.event({ content: `batching event ${i}`, session_id: 's-batch' }));
    await c.flush();
    expect(requests).toBe(Math.ceil(250 / 100));
    expect(new Set(ids).size).toBe(250);
    expect(await events()).toBe(before + 250);
    expect(c.stats()).toMatchObject({ accepted: 250, duplicates: 0, buffered: 0, inFlight: 0, spilled: 0 });
  });

  it('sends a partial batch after flushIntervalMs without a flush() call', async () => {
    const before = await events();
    const c = client({ url: m.url, batchSize: 100, flushIntervalMs: 20 });
    c.event({ content: 'timer one' });
    c.event({ content: 'timer two' });
    await waitFor(async () => (await events()) === before + 2, { what: 'the timer flush' });
    expect(c.stats().requests).toBe(1);
  });

  it('event() returns an id and never throws, whatever it is given', async () => {
    const errors: MemloomError[] = [];
    const c = client({ url: m.url, onError: (e) => errors.push(e) });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const garbage: unknown[] = [
      undefined,
      null,
      42,
      'text',
      [],
      {},
      { content: '' },
      { content: '   ' },
      { content: 5 },
      { id: 7, content: 'x' },
      { id: 'x'.repeat(201), content: 'x' },
      { content: 'cycle', metadata: circular },
      { content: 'big', metadata: { n: 10n } },
      proxy,
      Object.defineProperty({}, 'content', {
        enumerable: true,
        get: () => {
          throw new Error('getter');
        },
      }),
    ];
    for (const g of garbage) expect(typeof c.event(g as never)).toBe('string');
    expect(errors).toHaveLength(garbage.length);
    expect(errors.every((e) => e.code === 'EVENT_INVALID')).toBe(true);
    // A throwing onError is contained too.
    const d = client({
      url: m.url,
      onError: () => {
        throw new Error('handler');
      },
    });
    expect(() => d.event(null as never)).not.toThrow();
    expect(c.stats().invalid).toBe(garbage.length);
  });

  it('reports events the API rejects and stores the rest of the batch', async () => {
    const before = await events();
    const errors: MemloomError[] = [];
    const c = client({ url: m.url, onError: (e) => errors.push(e) });
    c.event({ content: 'fine one' });
    const bad = c.event({ content: 'bad type', type: 'bogus' as never });
    c.event({ content: 'fine two' });
    await c.flush();
    expect(await events()).toBe(before + 2);
    expect(errors.map((e) => [e.code, e.details?.eventId])).toEqual([['EVENT_REJECTED', bad]]);
    expect(c.stats()).toMatchObject({ accepted: 2, rejected: 1 });
  });

  it('keeps the same id through a resend: the second copy is a duplicate', async () => {
    const before = await events();
    const c = client({ url: m.url });
    const id = c.event({ content: 'once only' });
    await c.flush();
    c.event({ id, content: 'once only' });
    await c.flush();
    expect(await events()).toBe(before + 1);
    expect(c.stats()).toMatchObject({ duplicates: 1 });
  });

  it('applies defaults and flushes on close()', async () => {
    const before = await events();
    const c = createMemloom({
      url: m.url,
      eventsDir: spillRoot,
      flushOnExit: false,
      flushIntervalMs: 60_000,
      defaults: { user_id: 'u-close', dataset: 'ds-close' },
    });
    for (let i = 0; i < 5; i++) c.event({ content: `closing ${i}` });
    await c.close();
    expect(await events()).toBe(before + 5);
    const { rows } = await withTenant(m.deps.db, 'default', (tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE user_id = 'u-close' AND dataset = 'ds-close'`),
    );
    expect(rows[0]?.n).toBe(5);
    const errors: MemloomError[] = [];
    const late = createMemloom({ url: m.url, eventsDir: spillRoot, flushOnExit: false, onError: (e) => errors.push(e) });
    await late.close();
    late.event({ content: 'too late' });
    expect(errors.map((e) => e.code)).toEqual(['CLIENT_CLOSED']);
  });
});

describe('client against scripted answers', () => {
  let api: Scripted | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('retries a 503 with backoff, then succeeds without spilling', async () => {
    api = await scriptedApi((n) => (n <= 2 ? { status: 503 } : { status: 202 }));
    const errors: MemloomError[] = [];
    const c = client({ url: api.url, backoff: { baseMs: 5, capMs: 20 }, onError: (e) => errors.push(e) });
    const ids = [c.event({ content: 'a' }), c.event({ content: 'b' })];
    await c.flush();
    expect(api.requests).toHaveLength(3);
    expect(api.requests.every((r) => JSON.stringify(r.ids) === JSON.stringify(ids))).toBe(true);
    expect(c.stats()).toMatchObject({ accepted: 2, retries: 2, spilled: 0 });
    expect(errors).toEqual([]);
  });

  it('waits for Retry-After after a 429 before the next request', async () => {
    api = await scriptedApi((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 202 }));
    // No backoff at all: only Retry-After can hold the second request back.
    const c = client({ url: api.url, backoff: { baseMs: 0, capMs: 0 } });
    c.event({ content: 'rate limited' });
    const flushed = c.flush();
    await waitFor(() => api?.requests.length === 1, { what: 'the first request' });
    await new Promise((r) => setTimeout(r, 300));
    expect(api.requests).toHaveLength(1);
    await flushed;
    expect(api.requests).toHaveLength(2);
    const [first, second] = api.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(c.stats()).toMatchObject({ accepted: 1, retries: 1 });
  });

  it('drops only the events a 400 names and resends the others', async () => {
    api = await scriptedApi((n) =>
      n === 1
        ? {
            status: 400,
            body: {
              error: {
                code: 'INPUT_INVALID',
                message: 'bad',
                details: [
                  { index: 1, path: 'type', message: 'nope' },
                  { index: 3, path: 'ttl', message: 'nope' },
                ],
              },
            },
          }
        : { status: 202 },
    );
    const errors: MemloomError[] = [];
    const c = client({ url: api.url, onError: (e) => errors.push(e) });
    const ids = ['e0', 'e1', 'e2', 'e3', 'e4'].map((id) => c.event({ id, content: id }));
    await c.flush();
    expect(api.requests.map((r) => r.ids)).toEqual([ids, ['e0', 'e2', 'e4']]);
    expect(errors.map((e) => [e.code, e.details?.eventId, e.details?.path])).toEqual([
      ['EVENT_REJECTED', 'e1', 'type'],
      ['EVENT_REJECTED', 'e3', 'ttl'],
    ]);
    expect(c.stats()).toMatchObject({ accepted: 3, rejected: 2 });
  });

  it('splits a batch on 413 and drops a single event that is too large by itself', async () => {
    api = await scriptedApi((_n, events) => (events.length > 2 || events.some((e) => e.content === 'TOO BIG') ? { status: 413 } : { status: 202 }));
    const errors: MemloomError[] = [];
    const c = client({ url: api.url, batchSize: 8, onError: (e) => errors.push(e) });
    const contents = ['c0', 'c1', 'c2', 'TOO BIG', 'c4', 'c5', 'c6', 'c7'];
    const ids = contents.map((content) => c.event({ content }));
    await c.flush();
    const delivered = api.requests.filter((r) => r.ids.length <= 2 && !r.contents.includes('TOO BIG')).flatMap((r) => r.ids);
    expect(delivered).toEqual(ids.filter((_, i) => i !== 3)); // in order, each once
    expect(errors.map((e) => [e.code, e.details?.eventId])).toEqual([['EVENT_TOO_LARGE', ids[3]]]);
    expect(c.stats()).toMatchObject({ accepted: 7, rejected: 1, spilled: 0 });
  });

  it('sends one request at a time, so a client’s batches arrive in order', async () => {
    let open = 0;
    let maxOpen = 0;
    api = await scriptedApi(() => ({ status: 202 }));
    const url = api.url;
    const c = client({
      url,
      batchSize: 10,
      fetch: async (input, init) => {
        maxOpen = Math.max(maxOpen, ++open);
        try {
          return await fetch(input, init);
        } finally {
          open--;
        }
      },
    });
    const ids = Array.from({ length: 95 }, (_, i) => c.event({ content: `ordered ${i}` }));
    await c.flush();
    expect(maxOpen).toBe(1);
    expect(api.requests.flatMap((r) => r.ids)).toEqual(ids);
  });
});

describe('backoff and Retry-After parsing', () => {
  it('draws full jitter below min(cap, base·2^attempt)', () => {
    expect(backoffMs(0, 200, 10_000, () => 0.999)).toBeLessThan(200);
    expect(backoffMs(3, 200, 10_000, () => 0.5)).toBe(800);
    expect(backoffMs(20, 200, 10_000, () => 0.999)).toBeLessThan(10_000);
    expect(backoffMs(5, 200, 10_000, () => 0)).toBe(0);
  });

  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
