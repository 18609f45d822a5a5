import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../src/db/pool.js';
import { REDIS_URL, startTestMemloom } from './support/memloom.js';
import {
  callsTo,
  conversation,
  duplicateGroups,
  embeddedTexts,
  extractedMessageCount,
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
import { QUEUE_BACKENDS } from './support/server-db.js';
import { freePort, spawnMemloom, waitReady, type MemloomProcess } from './support/process.js';
import { startProviderStub, type ProviderStub } from './support/provider-stub.js';

const PIPELINE = ['triage', 'chunk', 'embed', 'extract'] as const;
const EVENTS = conversation('mp', 8, 6);

/**
 * Two `memloom worker` processes consume the same queues of one external database (a PGlite
 * server in this process, reached only through DATABASE_URL), fed by a `memloom api` process.
 * The extraction model answers per message, so the rows do not depend on how events are grouped
 * into passes: they must equal those of an uninterrupted single-process run, with no duplicates.
 */
describe.each(QUEUE_BACKENDS)('two worker processes on one database (redis: $redis)', ({ redis }) => {
  let stub: ProviderStub;
  let baseline: { counts: RowCounts; extracted: number };
  const procs: MemloomProcess[] = [];
  let external: ExternalDatabase | undefined;
  let pool: Db | undefined;

  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 384 });
    // Episodes (as in pipeline-crash.test.ts): which near-duplicate wording becomes the stored row
    // and which version of a fact a pass compares with follow the order passes run in, which two
    // processes change; what this test compares must not depend on it.
    stub.onChat(perMessageExtractor({ kind: 'episode' }));
    // The reference: one process, every pipeline worker, same input and providers.
    const since = stub.calls.length;
    const m = await startTestMemloom({ redis, env: stubProviderEnv(stub), roles: { api: true, workers: PIPELINE } });
    try {
      await postEvents(m.url, EVENTS);
      await waitDrained(m.url, EVENTS.length);
      baseline = { counts: await rowCounts(m.deps.db), extracted: extractedMessageCount(stub, since) };
      // One process never embeds a text twice (cache + in-flight sharing).
      const texts = embeddedTexts(stub, since);
      expect(texts.sent).toBe(texts.distinct);
    } finally {
      await m.close();
    }
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
    await pool?.end();
    await external?.stop();
  });
  afterAll(async () => stub?.close());

  it('produce the rows of a single-worker run: no duplicate chunk, memory, entity, edge or provenance, each message extracted once', async () => {
    external = await startExternalDatabase(384);
    const env = {
      ...stubProviderEnv(stub),
      DATABASE_URL: external.url,
      ...(redis ? { REDIS_URL, QUEUE_PREFIX: `mp-${randomUUID().slice(0, 8)}` } : {}),
      EXTRACT_DEBOUNCE_MS: '200',
      LOG_LEVEL: 'info',
    };
    const api = spawnMemloom(['api'], { ...env, PORT: String(await freePort()) });
    procs.push(api);
    await waitReady(api);
    const workers = [0, 1].map(() => spawnMemloom(['worker', '--queues', PIPELINE.join(',')], { ...env, PORT: '0' }));
    procs.push(...workers);
    for (const w of workers) await waitForOutput(w, '"msg":"workers started"');

    const since = stub.calls.length;
    await postEvents(api.url, EVENTS);
    await waitDrained(api.url, EVENTS.length, 180_000);

    pool = createPool(external.url, { setRole: true, max: 2 });
    expect(await rowCounts(pool)).toEqual(baseline.counts);
    expect(await duplicateGroups(pool)).toEqual(NO_DUPLICATES);
    // Each message reached the model exactly once (extraction passes claim their events)…
    expect(extractedMessageCount(stub, since)).toBe(baseline.extracted);
    // …and each text was embedded at most once per process: two processes may both embed a text
    // that neither had cached yet (in this input: entity names of the first sessions).
    const perText = new Map<string, number>();
    for (const c of callsTo(stub, '/v1/embeddings', since))
      if (c.status === 200) for (const t of c.body.input as string[]) perText.set(t, (perText.get(t) ?? 0) + 1);
    expect(Math.max(...perText.values())).toBeLessThanOrEqual(workers.length);
    for (const w of workers) expect(w.output()).not.toMatch(/"level":50/); // no error logged by either worker
  }, 300_000);
});
