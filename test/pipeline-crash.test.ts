import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../src/db/pool.js';
import { REDIS_URL, startTestMemloom, waitFor } from './support/memloom.js';
import {
  apiStats,
  conversation,
  duplicateGroups,
  NO_DUPLICATES,
  perMessageExtractor,
  postEvents,
  rowCounts,
  startExternalDatabase,
  stubProviderEnv,
  waitDrained,
  waitForOutput,
  type ExternalDatabase,
  type RowCounts,
} from './support/pipeline.js';
import { SERVER_MODE } from './support/server-db.js';
import { freePort, spawnMemloom, waitReady, type MemloomProcess } from './support/process.js';
import { startProviderStub, type ProviderStub } from './support/provider-stub.js';

const PIPELINE = ['triage', 'chunk', 'embed', 'extract'] as const;
const CHAT = '/v1/chat/completions';
const EVENTS = conversation('crash', 6, 6);
const FIRST = EVENTS.slice(0, 20);
const REST = EVENTS.slice(20);
const WORKER_QUEUES = [...PIPELINE, 'maintenance'].join(',');
/** The watcher's way in: REST as lines of a file in EVENTS_DIR. */
async function writeRest(eventsDir: string): Promise<void> {
  await mkdir(eventsDir, { recursive: true });
  await writeFile(path.join(eventsDir, 'rest.jsonl'), REST.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/**
 * SIGKILL while an extraction call is in flight (other events still on their way through triage,
 * chunking and embedding), then a restart: the rows must be exactly those of an uninterrupted run.
 * The killed pass's claim on its events expires after its lease (4 × LLM_TIMEOUT_MS + 60 s), so the
 * model timeout is short here. The extraction model answers per message, so rows do not depend on
 * how events are grouped into passes.
 */
const COMMON_ENV = {
  EXTRACT_DEBOUNCE_MS: '200',
  LLM_TIMEOUT_MS: '2000',
  REQUEUE_INTERVAL_MS: '1000',
  // No consolidation during the test: the reference run has none either.
  DREAM_SESSIONS: '100000',
  DREAM_MEMORIES: '100000',
  LOG_LEVEL: 'info',
};

describe('SIGKILL mid-pipeline, then restart', () => {
  let stub: ProviderStub;
  let expected: RowCounts;
  const procs: MemloomProcess[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 384 });
    // Episodes: what happened, never a newer value of something. Which of two versions of a fact is
    // current is decided by event time, but which near-duplicate wording becomes the stored row
    // (the others confirm it) follows the order passes run in, and a crash changes that order; the
    // rows compared here are what a crash must not change.
    stub.onChat(perMessageExtractor({ kind: 'episode' }));
    const m = await startTestMemloom({
      env: { ...stubProviderEnv(stub), ...COMMON_ENV, LOG_LEVEL: 'silent' },
      roles: { api: true, watcher: true, workers: [...PIPELINE, 'maintenance'], scheduler: true },
    });
    try {
      // As in the runs below: the first events over HTTP, the rest from a file in EVENTS_DIR.
      await postEvents(m.url, FIRST);
      await writeRest(m.eventsDir);
      await waitDrained(m.url, EVENTS.length);
      expected = await rowCounts(m.deps.db);
    } finally {
      await m.close();
    }
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => stub?.close());

  /** Starts the first extraction call and holds it, so the kill lands while the model is being asked. */
  async function holdFirstExtraction(): Promise<void> {
    stub.script(CHAT, [{ delayMs: 15_000 }]);
  }
  const inFlightChat = (since: number) => stub.calls.slice(since).some((c) => c.path === CHAT && c.status === 0);

  async function expectSameRows(db: Db): Promise<void> {
    expect(await rowCounts(db)).toEqual(expected);
    expect(await duplicateGroups(db)).toEqual(NO_DUPLICATES);
  }

  // Redis queues, as deployed at scale: PostgreSQL 15 in the server suite, a PGlite server in the
  // embedded suite. Not with BullMQ's PostgreSQL backend: five processes with a queue connection
  // per queue and worker took more than the server's 100 connections while another file ran
  // (the server suite's two backends run the other multi-process files on it).
  it.runIf(SERVER_MODE !== 'postgres')(
    `split processes (api, two workers, scheduler, watcher) on ${SERVER_MODE ? 'PostgreSQL' : 'a PGlite server'} with Redis queues: a worker SIGKILLed mid-extraction is restarted and the rows match an uninterrupted run`,
    async () => {
      const external: ExternalDatabase = await startExternalDatabase(384);
      cleanups.push(() => external.stop());
      const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-split-'));
      cleanups.push(() => rm(home, { recursive: true, force: true }));
      const eventsDir = path.join(home, 'events');
      await mkdir(eventsDir, { recursive: true });
      const env = {
        ...stubProviderEnv(stub),
        ...COMMON_ENV,
        DATABASE_URL: external.url,
        MEMLOOM_HOME: home,
        EVENTS_DIR: eventsDir,
        REDIS_URL,
        QUEUE_PREFIX: `crash-${randomUUID().slice(0, 8)}`,
      };
      const api = spawnMemloom(['api'], { ...env, PORT: String(await freePort()) });
      procs.push(api);
      await waitReady(api);
      const scheduler = spawnMemloom(['scheduler'], { ...env, PORT: '0' });
      const watcher = spawnMemloom(['watcher'], { ...env, PORT: '0' });
      const worker = () => spawnMemloom(['worker', '--queues', WORKER_QUEUES], { ...env, PORT: '0' });
      const first = worker();
      procs.push(scheduler, watcher, first);
      await waitForOutput(scheduler, '"msg":"schedules registered"');
      await waitForOutput(watcher, '"msg":"watching events directory"');
      await waitForOutput(first, '"msg":"workers started"');

      // The first worker alone takes the first extraction and is held in it; the second starts
      // then, and both work on the rest (triage, chunks, embeddings, the other sessions).
      const since = stub.calls.length;
      await holdFirstExtraction();
      await postEvents(api.url, FIRST);
      await waitFor(() => inFlightChat(since), { timeoutMs: 60_000, what: 'an extraction call in flight' });
      const second = worker();
      procs.push(second);
      await waitForOutput(second, '"msg":"workers started"');
      await writeRest(eventsDir);
      await waitFor(async () => ((await apiStats(api.url)).objects.events ?? 0) > FIRST.length, {
        timeoutMs: 60_000,
        what: 'the watcher to store events from the file',
      });
      // The held call is still unanswered: the kill lands mid-extraction.
      expect(stub.calls.slice(since).find((c) => c.path === CHAT)?.status).toBe(0);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      expect((await apiStats(api.url)).pending_events).toBeGreaterThan(0);

      const restarted = worker();
      procs.push(restarted);
      await waitDrained(api.url, EVENTS.length, 240_000);
      const pool = createPool(external.url, { setRole: true, max: 2 });
      cleanups.push(() => pool.end());
      await expectSameRows(pool);
      for (const p of [api, scheduler, watcher, second, restarted]) {
        expect(p.child.exitCode).toBeNull(); // still running: nothing else crashed
        expect(p.output()).not.toMatch(/deadlock detected/);
      }
    },
    400_000,
  );

  // Embedded mode is what it tests: not part of the server suite (npm run test:server).
  it.runIf(!SERVER_MODE)(
    'embedded mode, PostgreSQL queues: a killed `memloom start` restarts on its data directory and the rows match an uninterrupted run',
    async () => {
      const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-crash-'));
      cleanups.push(() => rm(home, { recursive: true, force: true }));
      const env = {
        ...stubProviderEnv(stub),
        ...COMMON_ENV,
        MEMLOOM_HOME: home,
        EVENTS_DIR: path.join(home, 'events'),
        PORT: String(await freePort()),
        MEMLOOM_DB_PORT: String(await freePort()),
      };
      const first = spawnMemloom(['start'], env);
      procs.push(first);
      await waitReady(first);

      const since = stub.calls.length;
      await holdFirstExtraction();
      await postEvents(first.url, FIRST);
      await waitFor(() => inFlightChat(since), { timeoutMs: 60_000, what: 'an extraction call in flight' });
      await writeRest(env.EVENTS_DIR);
      const before = await apiStats(first.url);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(before.pending_events).toBeGreaterThan(0);

      const second = spawnMemloom(['start'], env);
      procs.push(second);
      await waitReady(second);
      await waitDrained(second.url, EVENTS.length, 240_000);
      const pool = createPool(`postgresql://postgres@127.0.0.1:${env.MEMLOOM_DB_PORT}/postgres`, { setRole: true, max: 2 });
      cleanups.push(() => pool.end());
      await expectSameRows(pool);
    },
    400_000,
  );
});
