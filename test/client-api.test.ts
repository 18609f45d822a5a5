import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemloom, MemloomError, type MemloomClient } from '../apps/client/index.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
// @ts-expect-error a plain .mjs script without declarations
import { buildClient } from '../scripts/build-client.mjs';

/** The TypeScript client against a real memloom: every API call typed and answered, errors with the API's codes. */
const ROOT = path.resolve(import.meta.dirname, '..');
const KEY = 'k-client';
let m: TestMemloom;
let client: MemloomClient;
let eventsDir: string;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES }, env: { MEMLOOM_API_KEYS: `${KEY}:clients`, BRIEFING_DEBOUNCE_MS: '200' } });
  eventsDir = await mkdtemp(path.join(os.tmpdir(), 'memloom-client-'));
  client = createMemloom({ url: m.url, apiKey: KEY, eventsDir, flushOnExit: false, defaults: { user_id: 'u-c', agent_id: 'client-test' } });
});
afterAll(async () => {
  await client?.close();
  await m?.close();
  await rm(eventsDir, { recursive: true, force: true });
});

describe('client against a running memloom', () => {
  it('sends events fire-and-forget and awaited, then reads them back as memory', async () => {
    client.event({ session_id: 'c-1', content: 'We decided to use PostgreSQL with pgvector for the memory store.', type: 'decision' });
    client.event({ session_id: 'c-1', content: 'Alice works at Acme Corp in Berlin.' });
    await client.flush();
    expect(client.stats()).toMatchObject({ accepted: 2, spilled: 0, rejected: 0 });
    const sent = await client.sendEvents([{ session_id: 'c-2', user_id: 'u-c', content: 'I prefer TypeScript over Python for backend services.' }]);
    expect(sent).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(sent.ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(async () => (await client.serverStats()).pending_events === 0, { timeoutMs: 60_000, what: 'processing' });
    const stats = await client.serverStats();
    expect(stats.objects.events).toBe(3);
    expect(Object.keys(stats.queues)).toContain('extract');

    const answer = await client.recall({ query: 'which database did we choose', user_id: 'u-c', mode: 'memories' });
    expect(answer.results[0]?.content).toContain('PostgreSQL');
    expect(answer.recall_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.feedback({ recall_id: answer.recall_id, score: 5 })).duplicate).toBe(false);
    expect((await client.feedback({ recall_id: answer.recall_id, score: 5 })).duplicate).toBe(true);
  });

  it('lists, reads, corrects and deletes memories', async () => {
    const page = await client.memories.list({ user_id: 'u-c', kind: ['decision', 'preference'], limit: 10 });
    expect(page.memories.length).toBeGreaterThan(0);
    const decision = page.memories.find((x) => x.content.includes('PostgreSQL'));
    expect(decision).toBeDefined();
    const detail = await client.memories.get(decision!.id);
    expect(detail.provenance.events.length).toBeGreaterThan(0);
    const corrected = (await client.memories.update(decision!.id, { content: 'We decided to use PostgreSQL 17 with pgvector for the memory store.' })) as {
      id: string;
    };
    expect((await client.memories.get(decision!.id)).status).toBe('superseded');
    expect((await client.memories.get(corrected.id)).versions).toHaveLength(2);
    const removed = await client.memories.delete(corrected.id);
    expect(removed.removed.memories).toBe(1);
    const err = await client.memories.get(corrected.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemloomError);
    expect((err as MemloomError).kind).toBe('not_found');
    await expect(client.memories.get('not-a-uuid')).rejects.toMatchObject({ code: 'INPUT_INVALID', kind: 'input' });
  });

  it('reads the working memory, the graph, the schema and dead letters', async () => {
    const md = await waitFor(() => client.workingMemory('u-c'), { timeoutMs: 60_000, what: 'the working memory' });
    expect(md).toMatch(/^# Working memory/);
    expect(await client.workingMemory('nobody-here')).toBeNull();
    const { entities } = await client.graph.search('Acme');
    expect(entities.map((e) => e.name)).toContain('Acme Corp');
    expect((await client.graph.entity(entities[0]!.id, 2)).entity).toBeDefined();
    expect(await client.graph.schema()).toBeTypeOf('object');
    expect((await client.deadLetters({ limit: 5 })).dead_letters).toEqual([]);
  });

  it('exports and imports (the same tenant: everything is already there)', async () => {
    const stream = await client.exportStream({ user_id: 'u-c' });
    const text = await new Response(stream).text();
    expect(text.split('\n')[0]).toContain('"record":"header"');
    const result = await client.importData(text);
    expect(result.complete).toBe(true);
    expect(result.imported.event).toBe(0);
    expect(result.existing.event).toBeGreaterThan(0);
  });

  it('forgets a session and reports the API\u2019s error codes', async () => {
    const f = await client.forget({ session_id: 'c-2' });
    // The session's event, and any feedback event that quoted what it gave a recall.
    expect((f.removed.events ?? 0) - (f.removed.feedback_events ?? 0)).toBe(1);
    expect((await client.forget({ session_id: 'c-2' })).nothing_to_forget).toBe(true);
    const wrongKey = createMemloom({ url: m.url, apiKey: 'nope', flushOnExit: false, eventsDir });
    await expect(wrongKey.recall({ query: 'x' })).rejects.toMatchObject({ code: 'UNAUTHORIZED', kind: 'unauthorized' });
    const away = createMemloom({ url: 'http://127.0.0.1:9', flushOnExit: false, eventsDir });
    await expect(away.serverStats()).rejects.toMatchObject({ code: 'API_UNREACHABLE' });
    await wrongKey.close();
    await away.close();
  });
});

describe('the published package', () => {
  it('plain Node imports memloom/client (compiled JavaScript + declarations, no tsx) and calls the API', async () => {
    buildClient();
    const types = await readFile(path.join(ROOT, 'dist/client/apps/client/index.d.ts'), 'utf8');
    expect(types).toContain('createMemloom');
    const script = `const { createMemloom } = await import('memloom/client');
      const c = createMemloom({ url: process.env.U, apiKey: process.env.K, flushOnExit: false });
      const s = await c.serverStats();
      process.stdout.write(JSON.stringify({ events: s.objects.events, recall: typeof c.recall }));
      await c.close();`;
    const env = { PATH: process.env.PATH ?? '', U: m.url, K: KEY };
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env });
    const out = JSON.parse(stdout) as { events: number; recall: string };
    expect(out.recall).toBe('function');
    expect(out.events).toBe((await client.serverStats()).objects.events);
  });
});
