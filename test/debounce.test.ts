import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueNext } from '../src/queue/runner.js';
import { CATALOG } from '../workers/catalog.js';
import { extractJob } from '../workers/extract/schema.js';
import { startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { postEvents, promptLines, sql, stubProviderEnv, waitDrained } from './support/pipeline.js';
import { startProviderStub, type ProviderStub, type RecordedCall } from './support/provider-stub.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PIPELINE = ['triage', 'chunk', 'embed', 'extract'] as const;

function isExtraction(c: RecordedCall): boolean {
  return c.path === '/v1/chat/completions' && String(c.body?.messages?.[0]?.content ?? '').startsWith('You extract long-term memory');
}

function notes(prefix: string, n: number): Array<Record<string, string>> {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    session_id: `${prefix}-session`,
    user_id: `u-${prefix}`,
    role: 'user',
    content: `Note ${prefix} ${i}: the deployment of service ${i} moved to the Frankfurt region last week.`,
  }));
}

async function debouncedCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^memloom_debounced_jobs_total\{queue="extract"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

describe('debounce', () => {
  let stub: ProviderStub;
  let m: TestMemloom | undefined;
  beforeAll(async () => {
    stub = await startProviderStub();
  });
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });

  it('100 events in one session with a 1 s debounce give exactly one extraction call, covering all 100', async () => {
    m = await startTestMemloom({
      env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub-chat', EXTRACT_DEBOUNCE_MS: '1000' },
      roles: { api: true, workers: PIPELINE },
    });
    const url = m.url;
    const events = notes('deb', 100);
    // A burst: ten requests at once.
    await Promise.all(Array.from({ length: 10 }, (_, i) => postEvents(url, events.slice(i * 10, i * 10 + 10), 10)));
    await waitDrained(url, 100);
    await sleep(1500); // a second, late extraction would show up here
    const extractions = stub.calls.filter(isExtraction);
    expect(extractions).toHaveLength(1);
    expect(
      promptLines((extractions[0] as RecordedCall).body)
        .map((l) => l.content)
        .sort(),
    ).toEqual(events.map((e) => e.content).sort());
  }, 180_000);

  it('merges repeated enqueues of one session into one job that runs a quiet period after the last, and counts the merged ones', async () => {
    const deps = (m as TestMemloom).deps;
    const before = await debouncedCount((m as TestMemloom).url);
    const key = `s:deb-quiet-${randomUUID().slice(0, 8)}`;
    let lastAdd = 0;
    for (let i = 0; i < 5; i++) {
      await enqueueNext(deps, CATALOG, [extractJob(deps.config, 'default', key, new Date())]);
      lastAdd = Date.now();
      await sleep(300);
    }
    const queue = deps.queues.get('extract');
    const job = await waitFor(async () => (await queue.getJobs(['completed'], 0, 1000)).find((j) => j.data.extractKey === key), {
      what: 'the debounced job to run',
    });
    expect((await queue.getJobs(['completed', 'delayed', 'waiting', 'active'], 0, 1000)).filter((j) => j.data.extractKey === key)).toHaveLength(1);
    expect((job.processedOn ?? 0) - lastAdd).toBeGreaterThanOrEqual(1000 - 50);
    expect((await debouncedCount((m as TestMemloom).url)) - before).toBe(4);
  }, 60_000);
});

describe('debounce while the pipeline lags behind a session', () => {
  let stub: ProviderStub;
  let m: TestMemloom | undefined;
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });

  it('waits for the session events still upstream instead of extracting the session in two passes', async () => {
    // Every provider call takes 1.5 s, so the second request's events are still being embedded
    // when the first request's debounced extraction (1 s after its events were embedded) is due.
    stub = await startProviderStub({ latencyMs: 1500 });
    m = await startTestMemloom({ env: { ...stubProviderEnv(stub), EXTRACT_DEBOUNCE_MS: '1000' }, roles: { api: true, workers: PIPELINE } });
    const first = notes('lag', 10);
    const second = notes('lag', 20).slice(10);
    await postEvents(m.url, first, 10);
    const deps = m.deps;
    await waitFor(
      async () => {
        const rows = await sql<{ n: number }>(
          deps.db,
          `SELECT count(*)::int AS n FROM events WHERE session_id = 'lag-session' AND status IN ('embedded', 'extracting', 'done')`,
        );
        return rows[0]?.n === 10 ? true : undefined;
      },
      { what: 'the first request to be embedded' },
    );
    await postEvents(m.url, second, 10);
    await waitDrained(m.url, 20);
    await sleep(2500); // a late second pass would show up here
    const extractions = stub.calls.filter(isExtraction);
    expect(extractions).toHaveLength(1);
    expect(
      promptLines((extractions[0] as RecordedCall).body)
        .map((l) => l.content)
        .sort(),
    ).toEqual([...first, ...second].map((e) => e.content).sort());
  }, 180_000);
});

describe.each([{ redis: false }, { redis: true }])('debounce under a backlog (redis: $redis)', ({ redis }) => {
  let m: TestMemloom | undefined;
  afterAll(async () => {
    await m?.close();
  });

  it('keeps one pending job per key while it waits for a worker, however long it waits', async () => {
    // No extract worker: every job stays where the queue put it, as behind a long backlog.
    m = await startTestMemloom({ redis, roles: { api: false, workers: [] } });
    const deps = m.deps;
    const key = `s:deb-backlog-${randomUUID().slice(0, 8)}`;
    const other = `s:deb-backlog-other-${randomUUID().slice(0, 8)}`;
    // The oldest event has waited past EXTRACT_MAX_WAIT_MS: each job is due at once (delay 0).
    const overdue = () => new Date(Date.now() - deps.config.EXTRACT_MAX_WAIT_MS - 1000);
    for (let i = 0; i < 5; i++) {
      await enqueueNext(deps, CATALOG, [extractJob(deps.config, 'default', key, overdue()), extractJob(deps.config, 'default', other, overdue())]);
      await sleep(50); // longer than the debounce TTL of a job due at once
    }
    const queue = deps.queues.get('extract');
    const pending = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active'], 0, 1000);
    expect(pending.filter((j) => j.data.extractKey === key)).toHaveLength(1);
    expect(pending.filter((j) => j.data.extractKey === other)).toHaveLength(1);
  }, 60_000);
});
