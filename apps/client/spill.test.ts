import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/pool.js';
import { getOffset } from '../../src/db/sql/watcher-offsets.js';
import { getJson, startTestMemloom, waitFor, type TestMemloom } from '../../test/support/memloom.js';
import { createMemloom, type MemloomError } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const started: TestMemloom[] = [];
let eventsDir: string;

beforeEach(async () => {
  eventsDir = await mkdtemp(path.join(os.tmpdir(), 'memloom-spill-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((m) => m.close()));
  await rm(eventsDir, { recursive: true, force: true });
});

async function start(roles: { api: boolean; watcher: boolean }): Promise<TestMemloom> {
  const m = await startTestMemloom({ roles, env: { EVENTS_DIR: eventsDir } });
  started.push(m);
  return m;
}

/** A URL where nothing listens (a port that was free a moment ago). */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function spillLines(): Promise<Array<{ id: string; content: string }>> {
  const dir = path.join(eventsDir, '_spill');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
  const text = (await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')))).join('');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; content: string });
}

const stats = async (m: TestMemloom) => (await getJson(`${m.url}/v1/stats`)).body.objects as { events: number; dead_letters: number };

/** Waits until the watcher has read every spill file to its end (its stored offset is the file size). */
async function watcherDone(m: TestMemloom): Promise<void> {
  const dir = path.join(eventsDir, '_spill');
  for (const f of await readdir(dir)) {
    const size = (await stat(path.join(dir, f))).size;
    await waitFor(async () => (await getOffset(m.deps.db, path.join('_spill', f)))?.byte_offset === size, { what: `the watcher to read ${f}` });
  }
}

describe('spilling to the events directory', () => {
  it('spills when the API is unreachable; a memloom with the watcher then stores every event once', async () => {
    const errors: MemloomError[] = [];
    const c = createMemloom({
      url: await deadUrl(),
      eventsDir,
      batchSize: 10,
      maxRetries: 1,
      backoff: { baseMs: 5 },
      flushOnExit: false,
      onError: (e) => errors.push(e),
    });
    const ids = Array.from({ length: 30 }, (_, i) => c.event({ content: `offline event ${i}`, session_id: 's-offline' }));
    await c.close();
    expect(errors.map((e) => e.code)).toEqual(['EVENTS_SPILLED', 'EVENTS_SPILLED', 'EVENTS_SPILLED']);
    expect(c.stats()).toMatchObject({ spilled: 30, accepted: 0, buffered: 0 });
    const lines = await spillLines();
    expect(lines.map((l) => l.id)).toEqual(ids);

    const m = await start({ api: true, watcher: true });
    await waitFor(async () => (await stats(m)).events === 30, { what: '30 events from the spill file' });
    await watcherDone(m);
    expect(await stats(m)).toMatchObject({ events: 30, dead_letters: 0 });
  });

  it('stores an event once when it reached the API and was also spilled', async () => {
    const m = await start({ api: true, watcher: true });
    // A proxy that loses answers: the first batch reaches memloom but the client sees 503 (a
    // timeout in real life); the second never gets through.
    let forwarded = 0;
    const proxy: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const lose = () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"LOST","message":"answer lost"}}');
        if ((JSON.parse(body.toString()) as { events: Array<{ content: string }> }).events[0]?.content.startsWith('second')) return lose();
        forwarded++;
        const up = request(`${m.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => r.resume().on('end', lose));
        up.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const c = createMemloom({ url, eventsDir, batchSize: 10, maxRetries: 1, backoff: { baseMs: 5 }, flushOnExit: false, onError: () => undefined });
      const ids = [
        ...Array.from({ length: 10 }, (_, i) => c.event({ content: `first ${i}` })),
        ...Array.from({ length: 10 }, (_, i) => c.event({ content: `second ${i}` })),
      ];
      await c.close();
      expect(forwarded).toBe(2); // the first batch, twice (first try and retry): stored once, then a duplicate
      expect((await spillLines()).map((l) => l.id)).toEqual(ids);

      await waitFor(async () => (await stats(m)).events === 20, { what: '20 events' });
      await watcherDone(m);
      expect(await stats(m)).toMatchObject({ events: 20, dead_letters: 0 });
      const { rows } = await withTenant(m.deps.db, 'default', (tx) =>
        tx.query<{ source: string; n: number }>('SELECT source, count(*)::int AS n FROM events GROUP BY source ORDER BY source'),
      );
      expect(rows).toEqual([
        { source: 'file', n: 10 },
        { source: 'http', n: 10 },
      ]);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('spills the oldest events when the buffer would overflow', async () => {
    const errors: MemloomError[] = [];
    // A never-answering API keeps the first batch in flight; the rest piles up in the buffer.
    const hang = createServer(() => undefined);
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const c = createMemloom({
      url: `http://127.0.0.1:${(hang.address() as { port: number }).port}`,
      eventsDir,
      batchSize: 5,
      maxBufferEvents: 20,
      maxRetries: 0,
      timeoutMs: 300,
      flushOnExit: false,
      onError: (e) => errors.push(e),
    });
    try {
      const ids = Array.from({ length: 40 }, (_, i) => c.event({ content: `overflow ${i}` }));
      await c.close();
      expect(errors.some((e) => e.details?.reason === 'BUFFER_FULL')).toBe(true);
      expect(c.stats()).toMatchObject({ spilled: 40, buffered: 0 });
      expect(new Set((await spillLines()).map((l) => l.id))).toEqual(new Set(ids));
    } finally {
      hang.closeAllConnections();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
    }
  });
});

describe('flush on process exit', () => {
  /** Runs a small agent script in a child process with the client (TypeScript through tsx). */
  async function agent(body: string, env: Record<string, string>, onStdout?: (text: string, child: ReturnType<typeof spawn>) => void) {
    const file = path.join(eventsDir, 'agent.ts');
    await writeFile(file, `import { createMemloom } from ${JSON.stringify(path.join(repo, 'apps/client/index.ts'))};\n${body}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => onStdout?.(d.toString(), child));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    return { code, signal, stderr };
  }

  it('delivers buffered events on beforeExit when the agent simply ends', async () => {
    const m = await start({ api: true, watcher: false });
    const r = await agent(
      `const c = createMemloom({ url: process.env.URL, flushIntervalMs: 60000 });\nfor (let i = 0; i < 3; i++) c.event({ content: 'bye ' + i });`,
      { URL: m.url, EVENTS_DIR: eventsDir },
    );
    expect(r).toMatchObject({ code: 0, signal: null });
    expect((await stats(m)).events).toBe(3);
  });

  it('spills synchronously on process.exit()', async () => {
    const r = await agent(
      `const c = createMemloom({ url: ${JSON.stringify(await deadUrl())}, flushIntervalMs: 60000 });\nfor (let i = 0; i < 3; i++) c.event({ id: 'exit-' + i, content: 'exit ' + i });\nprocess.exit(0);`,
      { EVENTS_DIR: eventsDir },
    );
    expect(r).toMatchObject({ code: 0 });
    expect((await spillLines()).map((l) => l.id)).toEqual(['exit-0', 'exit-1', 'exit-2']);
  });

  it('spills on SIGTERM and still dies by the signal', async () => {
    const script = `const c = createMemloom({ url: ${JSON.stringify(await deadUrl())}, maxRetries: 50, backoff: { baseMs: 10000, capMs: 10000 } });\nfor (let i = 0; i < 3; i++) c.event({ id: 'sig-' + i, content: 'sig ' + i });\nsetInterval(() => undefined, 1000);\nsetTimeout(() => console.log('ready'), 300);`;
    const r = await agent(script, { EVENTS_DIR: eventsDir }, (text, child) => {
      if (text.includes('ready')) child.kill('SIGTERM');
    });
    expect(r.signal).toBe('SIGTERM');
    expect((await spillLines()).map((l) => l.id).sort()).toEqual(['sig-0', 'sig-1', 'sig-2']);
  });
});
