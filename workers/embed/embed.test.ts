import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromVectorSql } from '../../src/db/sql/vector.js';
import { enqueueNext, startWorkers, type RunningWorkers } from '../../src/queue/runner.js';
import { CATALOG } from '../catalog.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { callsTo, deadLettersOf, ingest, runStage, sql, stubProviderEnv, TENANT, waitForDeadLetter, waitForJob } from '../../test/support/pipeline.js';
import { startProviderStub, stubEmbedding, type ProviderStub } from '../../test/support/provider-stub.js';
import { chunk } from '../chunk/handler.js';
import { triage } from '../triage/handler.js';
import { embed } from './handler.js';
import { embedKey } from './schema.js';

const EMB = '/v1/embeddings';
const DIMS = 384;

interface ChunkVector {
  event_id: string;
  content: string;
  embedding: string | null;
  /** The chunk's own vector; `embedding` is its key vector, which carries session neighbours. */
  own_embedding: string | null;
  embedding_model: string | null;
  embedding_dims: number | null;
}

describe.each([{ redis: false }, { redis: true }])('embed stage with an OpenAI-compatible provider (redis: $redis)', ({ redis }) => {
  let stub: ProviderStub;
  let m: TestMemloom;
  let workers: RunningWorkers | undefined;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: DIMS });
    m = await startTestMemloom({ redis, env: stubProviderEnv(stub, DIMS), roles: { api: false, workers: [] } });
  });
  afterAll(async () => {
    await workers?.close();
    await m?.close();
    await stub?.close();
  });
  beforeEach(async () => {
    await workers?.close();
    workers = undefined;
    stub.reset();
  });

  /** Stores events and brings them to `chunked` with the triage and chunk handlers. */
  async function chunked(events: object[]): Promise<string[]> {
    const ids = await ingest(m.deps, events);
    await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids });
    return ids;
  }
  const vectorsOf = (ids: string[]) =>
    sql<ChunkVector>(
      m.deps.db,
      'SELECT event_id, content, embedding::text AS embedding, own_embedding::text AS own_embedding, embedding_model, embedding_dims FROM chunks WHERE event_id = ANY($1::uuid[]) ORDER BY event_id, idx',
      [ids],
    );
  const statusOf = async (id: string) => (await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [id]))[0]?.status;

  it('embeds every chunk of a batch in one provider call, stores model and dimensions, and hands sessions to extraction', async () => {
    const ids = await chunked([
      { session_id: 'emb-1', content: 'We decided to use PostgreSQL with pgvector.' },
      { session_id: 'emb-1', content: 'Redis carries the queues.' },
      { session_id: 'emb-2', content: 'We decided to use PostgreSQL with pgvector.' }, // same text, another session
    ]);
    const { result, next } = await runStage(m.deps, embed, { tenantId: TENANT, eventIds: ids });
    expect(result.embedded).toBe(3);
    const calls = callsTo(stub, EMB);
    expect(calls).toHaveLength(1);
    // Identical texts are sent once: the cache is keyed by model + text hash.
    expect([...calls[0]!.body.input].sort()).toEqual(['Redis carries the queues.', 'We decided to use PostgreSQL with pgvector.']);
    expect(calls[0]?.body).toMatchObject({ model: 'stub-embed', dimensions: DIMS, encoding_format: 'float' });
    for (const row of await vectorsOf(ids)) {
      expect(row).toMatchObject({ embedding_model: 'stub-embed', embedding_dims: DIMS });
      const v = fromVectorSql(row.own_embedding as string);
      const expected = stubEmbedding(row.content, DIMS);
      expect(v).toHaveLength(DIMS);
      v.forEach((x, i) => expect(x).toBeCloseTo(expected[i] as number, 5));
    }
    for (const id of ids) expect(await statusOf(id)).toBe('embedded');
    expect(next.map((n) => n.input.extractKey).sort()).toEqual(['session:emb-1', 'session:emb-2']);
    expect(next.every((n) => n.stage === 'extract' && n.opts?.deduplication !== undefined)).toBe(true);
  });

  it('writes a long session in several transactions with the key vectors of one: own + 0.5 previous + 0.3 next', async () => {
    // 75 turns: more than two of the embed stage's transactions, so neighbours cross their boundaries.
    const ids = await chunked(
      Array.from({ length: 75 }, (_, i) => ({ session_id: 'emb-long', content: `Turn ${i}: the runbook step ${i} is about shard ${i % 7}.` })),
    );
    const { result } = await runStage(m.deps, embed, { tenantId: TENANT, eventIds: ids });
    expect(result.embedded).toBe(75);
    const rows = await sql<{ own: string; key: string }>(
      m.deps.db,
      `SELECT own_embedding::text AS own, embedding::text AS key FROM chunks WHERE event_id = ANY($1::uuid[]) ORDER BY occurred_at, event_seq, idx`,
      [ids],
    );
    expect(rows).toHaveLength(75);
    const own = rows.map((r) => fromVectorSql(r.own));
    const off: number[] = [];
    rows.forEach((r, i) => {
      const key = fromVectorSql(r.key);
      const want = own[i]!.map((x, d) => x + 0.5 * (own[i - 1]?.[d] ?? 0) + 0.3 * (own[i + 1]?.[d] ?? 0));
      if (key.some((x, d) => Math.abs(x - (want[d] as number)) > 1e-4)) off.push(i);
    });
    expect(off).toEqual([]);
    for (const id of ids) expect(await statusOf(id)).toBe('embedded');
  });

  it('is a no-op on replay: a second run, or a completed job re-added under a new id, makes zero provider calls and writes nothing', async () => {
    const ids = await chunked([{ session_id: 'emb-3', content: 'The cluster runs in Frankfurt.' }]);
    await runStage(m.deps, embed, { tenantId: TENANT, eventIds: ids });
    const before = await vectorsOf(ids);
    const since = stub.calls.length;
    const again = await runStage(m.deps, embed, { tenantId: TENANT, eventIds: ids });
    expect(again.result.embedded).toBe(0);
    workers = startWorkers(m.deps, CATALOG, ['embed']);
    const queue = m.deps.queues.get('embed');
    await queue.add('embed', { tenantId: TENANT, eventIds: ids }, { jobId: `replay-${ids[0]}` });
    const { state } = await waitForJob(queue, `replay-${ids[0]}`, ['completed', 'failed']);
    expect(state).toBe('completed');
    expect(callsTo(stub, EMB, since)).toHaveLength(0);
    expect(await vectorsOf(ids)).toEqual(before);
    // Text seen before (by any event) is never embedded again either.
    const same = await chunked([{ session_id: 'emb-4', content: 'The cluster runs in Frankfurt.' }]);
    await runStage(m.deps, embed, { tenantId: TENANT, eventIds: same });
    expect(callsTo(stub, EMB, since)).toHaveLength(0);
    expect((await vectorsOf(same))[0]?.embedding).toBe(before[0]?.embedding);
  });

  it('makes one provider call when two jobs embed the same chunks at the same time', async () => {
    const ids = await chunked([
      { session_id: 'emb-8', content: 'The on-call rota changes every Monday.' },
      { session_id: 'emb-8', content: 'Backups run at two in the morning.' },
    ]);
    stub.script(EMB, [{ delayMs: 300 }]); // the first job is still waiting for the provider when the second asks
    const [a, b] = await Promise.all([
      runStage(m.deps, embed, { tenantId: TENANT, eventIds: ids }),
      runStage(m.deps, embed, { tenantId: TENANT, eventIds: [...ids].reverse() }),
    ]);
    expect(a.result.embedded + b.result.embedded).toBeGreaterThanOrEqual(2);
    expect(callsTo(stub, EMB)).toHaveLength(1);
    const rows = await vectorsOf(ids);
    expect(rows.every((r) => r.embedding !== null)).toBe(true);
    for (const id of ids) expect(await statusOf(id)).toBe('embedded');
  });

  it('fails an invalid payload permanently, without retries, and records a dead letter', async () => {
    workers = startWorkers(m.deps, CATALOG, ['embed']);
    const queue = m.deps.queues.get('embed');
    await queue.add(
      'embed',
      { tenantId: TENANT, eventIds: ['not-a-uuid'] },
      { jobId: 'embed-bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } },
    );
    const { job, state } = await waitForJob(queue, 'embed-bad-payload', ['failed', 'completed']);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/^INPUT_INVALID: eventIds/);
    expect((await waitForDeadLetter(m.deps.db, 'embed', 'embed-bad-payload')).code).toBe('INPUT_INVALID');
    expect(callsTo(stub, EMB)).toHaveLength(0);
  });

  it('retries after a provider 500 and succeeds, paying for one failed and one good call', async () => {
    const ids = await chunked([{ session_id: 'emb-5', content: 'Grafana shows the p95 latency of recall.' }]);
    stub.script(EMB, [{ status: 500 }]);
    workers = startWorkers(m.deps, CATALOG, ['embed']);
    const input = { tenantId: TENANT, eventIds: ids };
    await enqueueNext(m.deps, CATALOG, [{ stage: 'embed', input }]);
    const { job, state } = await waitForJob(m.deps.queues.get('embed'), embedKey(input), ['completed', 'failed']);
    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(2); // the failed attempt and the one that succeeded
    expect(callsTo(stub, EMB).map((c) => c.status)).toEqual([500, 200]);
    expect(await statusOf(ids[0] as string)).toBe('embedded');
    expect((await vectorsOf(ids))[0]?.embedding_model).toBe('stub-embed');
  });

  it('on a 429 with retry-after rate-limits the queue without using an attempt, then completes', async () => {
    const clean = await chunked([{ session_id: 'emb-6', content: 'Terraform owns the network.' }]);
    const limited = await chunked([{ session_id: 'emb-7', content: 'Kafka is not used any more.' }]);
    workers = startWorkers(m.deps, CATALOG, ['embed']);
    const queue = m.deps.queues.get('embed');
    const cleanInput = { tenantId: TENANT, eventIds: clean };
    await enqueueNext(m.deps, CATALOG, [{ stage: 'embed', input: cleanInput }]);
    const cleanRun = await waitForJob(queue, embedKey(cleanInput), ['completed', 'failed']);
    expect(cleanRun.state).toBe('completed');

    stub.reset();
    stub.script(EMB, [{ status: 429, retryAfter: 1 }]);
    const input = { tenantId: TENANT, eventIds: limited };
    await enqueueNext(m.deps, CATALOG, [{ stage: 'embed', input }]);
    const { job, state } = await waitForJob(queue, embedKey(input), ['completed', 'failed']);
    expect(state).toBe('completed');
    expect(callsTo(stub, EMB).map((c) => c.status)).toEqual([429, 200]);
    // The 429 cost no attempt: the job used as many as one that was never limited.
    expect(job.attemptsMade).toBe(cleanRun.job.attemptsMade);
    expect(await statusOf(limited[0] as string)).toBe('embedded');
    // …but it was started once more than that job: the limited run went back to the queue.
    expect(job.attemptsStarted).toBe(cleanRun.job.attemptsStarted + 1);
    expect(await deadLettersOf(m.deps.db, 'embed', embedKey(input))).toEqual([]);
  });
});

describe('embed stage coalescing concurrent jobs (paid provider)', () => {
  let stub: ProviderStub;
  let m: TestMemloom;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: DIMS });
    // A window far longer than two jobs need to reach the provider, so the test does not hang on timing.
    m = await startTestMemloom({ env: { ...stubProviderEnv(stub, DIMS), EMBEDDINGS_COALESCE_MS: '2000' }, roles: { api: false, workers: [] } });
  });
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });

  it('sends the texts of concurrent jobs over different events in one provider request', async () => {
    const chunked = async (events: object[]) => {
      const ids = await ingest(m.deps, events);
      await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
      await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids });
      return ids;
    };
    const first = await chunked([{ session_id: 'emb-9', content: 'The staging cluster runs in Frankfurt.' }]);
    const second = await chunked([{ session_id: 'emb-10', content: 'Invoices are sent on the first of the month.' }]);
    stub.reset();
    const [a, b] = await Promise.all([
      runStage(m.deps, embed, { tenantId: TENANT, eventIds: first }),
      runStage(m.deps, embed, { tenantId: TENANT, eventIds: second }),
    ]);
    expect(a.result.embedded + b.result.embedded).toBe(2);
    const calls = callsTo(stub, EMB);
    expect(calls).toHaveLength(1);
    expect([...calls[0]!.body.input].sort()).toEqual(['Invoices are sent on the first of the month.', 'The staging cluster runs in Frankfurt.']);
  });
});
