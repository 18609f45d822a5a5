import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobOptions } from '../../src/queue/enqueue.js';
import { startWorkers, type RunningWorkers } from '../../src/queue/runner.js';
import { CATALOG } from '../catalog.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import {
  callsTo,
  deadLettersOf,
  ingest,
  perMessageExtractor,
  promptLines,
  rowCounts,
  runStage,
  sql,
  stubProviderEnv,
  TENANT,
  throughEmbed,
  waitForDeadLetter,
  waitForJob,
} from '../../test/support/pipeline.js';
import { startProviderStub, type ProviderStub } from '../../test/support/provider-stub.js';
import { extract } from './handler.js';
import { extractLeaseMs } from './schema.js';

const CHAT = '/v1/chat/completions';
const EMB = '/v1/embeddings';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

function session(id: string, lines: Array<[speaker: string, content: string]>): object[] {
  return lines.map(([speaker, content]) => ({ session_id: id, user_id: 'u-ext', role: 'user', content, metadata: { speaker } }));
}

describe.each([{ redis: false }, { redis: true }])('extract stage with an OpenAI-compatible provider (redis: $redis)', ({ redis }) => {
  let stub: ProviderStub;
  let m: TestMemloom;
  let workers: RunningWorkers | undefined;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 384 });
    // No quiet period: these tests run passes right after embedding (test/debounce.test.ts covers the wait).
    m = await startTestMemloom({
      redis,
      env: { ...stubProviderEnv(stub), EXTRACT_DEBOUNCE_MS: '0', TTL_DEFAULTS: 'plan:P90D' },
      roles: { api: false, workers: [] },
    });
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
    stub.onChat(perMessageExtractor());
  });

  /** Stores a session and brings it to `embedded`; returns event ids in order. */
  async function embedded(id: string, lines: Array<[string, string]>): Promise<string[]> {
    const ids = await ingest(m.deps, session(id, lines));
    await throughEmbed(m.deps, ids);
    return ids;
  }
  const provenance = (type: string, objectId: string) =>
    sql<{ event_id: string }>(m.deps.db, 'SELECT event_id FROM provenance WHERE object_type = $1 AND object_id = $2 ORDER BY event_id', [type, objectId]).then(
      (r) => r.map((x) => x.event_id),
    );

  it('extracts a session in one call into memories, entities and triplets, each with provenance to its events and run', async () => {
    const ids = await embedded('ext-1', [
      ['Alice', 'We decided to use PostgreSQL with pgvector.'],
      ['Bob', 'I prefer TypeScript for services.'],
      ['Alice', 'Next sprint we will move the queue to Redis.'],
    ]);
    const since = stub.calls.length;
    const { result, next } = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-1' });
    expect(result).toMatchObject({ events: 3, memories_added: 3, edges: 4 });
    const chats = callsTo(stub, CHAT, since);
    expect(chats).toHaveLength(1);
    const prompt = JSON.stringify(chats[0]?.body.messages);
    expect(prompt).not.toMatch(UUID); // messages are numbered, never named by id
    expect(promptLines(chats[0]?.body).map((l) => [l.index, l.speaker])).toEqual([
      [0, 'Alice'],
      [1, 'Bob'],
      [2, 'Alice'],
    ]);
    // Entity names and memory texts are embedded together, in one call.
    expect(callsTo(stub, EMB, since)).toHaveLength(1);

    const memories = await sql<{ id: string; kind: string; content: string; session_id: string; user_id: string; run_id: string }>(
      m.deps.db,
      `SELECT id, kind, content, session_id, user_id, run_id FROM memories WHERE session_id = 'ext-1' ORDER BY content`,
    );
    expect(memories.map((x) => [x.kind, x.content])).toEqual([
      ['plan', 'Alice said: Next sprint we will move the queue to Redis.'],
      ['decision', 'Alice said: We decided to use PostgreSQL with pgvector.'],
      ['preference', 'Bob said: I prefer TypeScript for services.'],
    ]);
    expect(await provenance('memory', memories[0]?.id as string)).toEqual([ids[2]]);
    expect(await provenance('memory', memories[1]?.id as string)).toEqual([ids[0]]);
    expect(await provenance('memory', memories[2]?.id as string)).toEqual([ids[1]]);

    const entities = await sql<{ id: string; normalized_name: string; type: string }>(
      m.deps.db,
      'SELECT id, normalized_name, type FROM entities ORDER BY normalized_name',
    );
    expect(entities.map((e) => `${e.normalized_name}/${e.type}`)).toEqual([
      'alice/person',
      'bob/person',
      'pgvector/technology',
      'postgresql/technology',
      'redis/technology',
      'typescript/technology',
    ]);
    const alice = entities.find((e) => e.normalized_name === 'alice')?.id as string;
    expect(await provenance('entity', alice)).toEqual([ids[0], ids[2]].sort());

    const edges = await sql<{ id: string; s: string; relation: string; t: string }>(
      m.deps.db,
      `SELECT e.id, s.normalized_name AS s, e.relation, t.normalized_name AS t FROM edges e
       JOIN entities s ON s.id = e.source_entity_id JOIN entities t ON t.id = e.target_entity_id ORDER BY t.normalized_name`,
    );
    expect(edges.map((e) => `${e.s} ${e.relation} ${e.t}`)).toEqual([
      'alice mentions pgvector',
      'alice mentions postgresql',
      'alice mentions redis',
      'bob mentions typescript',
    ]);
    expect(await provenance('edge', edges.find((e) => e.t === 'redis')?.id as string)).toEqual([ids[2]]);

    const [run] = await sql<{ id: string; stage: string; provider: string; model: string; finished: boolean }>(
      m.deps.db,
      'SELECT id, stage, provider, model, finished_at IS NOT NULL AS finished FROM pipeline_runs WHERE id = $1',
      [memories[0]?.run_id],
    );
    expect(run).toMatchObject({ stage: 'extract', provider: 'openai', model: 'stub-chat', finished: true });
    const runs = await sql<{ run_id: string }>(m.deps.db, `SELECT DISTINCT run_id FROM provenance WHERE event_id = ANY($1::uuid[])`, [ids]);
    expect(runs.map((r) => r.run_id)).toEqual([run?.id]);
    const events = await sql<{ status: string; extract_pending: boolean }>(m.deps.db, 'SELECT status, extract_pending FROM events WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    expect(events.every((e) => e.status === 'done' && !e.extract_pending)).toBe(true);
    // Nothing left in the session: no follow-up pass (the working-memory refresh may follow).
    expect(next.filter((n) => n.stage === 'extract')).toEqual([]);
  });

  it('is a no-op on replay: a second run, or a completed job re-added under a new id, makes zero provider calls and adds no rows', async () => {
    await embedded('ext-2', [['Chen Wei', 'The Kubernetes cluster runs on three nodes.']]);
    await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-2' });
    const before = await rowCounts(m.deps.db);
    const since = stub.calls.length;
    const again = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-2' });
    expect(again.result).toEqual({ events: 0 });
    workers = startWorkers(m.deps, CATALOG, ['extract']);
    const queue = m.deps.queues.get('extract');
    await queue.add('extract', { tenantId: TENANT, extractKey: 'session:ext-2' }, jobOptions('extract-replay-ext-2'));
    expect((await waitForJob(queue, 'extract-replay-ext-2', ['completed', 'failed'])).state).toBe('completed');
    expect(paidCalls(since)).toEqual([]);
    expect(await rowCounts(m.deps.db)).toEqual(before);
  });

  it('pays once when a job fails after the model answered, even if other sessions changed the known entities before the retry', async () => {
    const ids = await embedded('ext-3', [
      ['Dana', 'Grafana shows the p95 latency of recall.'],
      ['Dana', 'We decided to keep Terraform for the network.'],
    ]);
    const since = stub.calls.length;
    stub.script(EMB, [{ status: 500 }]); // the model answers, then embedding its output fails
    await expect(runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-3' })).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      retryable: true,
    });
    expect(callsTo(stub, CHAT, since)).toHaveLength(1);
    expect(await sql(m.deps.db, 'SELECT 1 FROM memories WHERE session_id = $1', ['ext-3'])).toEqual([]);

    // Meanwhile another session brings new entities (the prompt lists known entities).
    await embedded('ext-4', [['Erin', 'I prefer Kafka for event streams.']]);
    await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-4' });
    const afterOther = stub.calls.length;

    const retry = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-3' });
    expect(retry.result).toMatchObject({ events: 2, memories_added: 2 });
    expect(callsTo(stub, CHAT, afterOther)).toHaveLength(0); // the stored answer is reused
    const memories = await sql<{ id: string }>(m.deps.db, 'SELECT id FROM memories WHERE session_id = $1', ['ext-3']);
    expect(memories).toHaveLength(2);
    expect((await sql(m.deps.db, 'SELECT 1 FROM provenance WHERE event_id = ANY($1::uuid[])', [ids])).length).toBeGreaterThan(0);
  });

  it('sends a session to the model once when two passes over it run at the same time', async () => {
    const ids = await embedded('ext-9', [
      ['Alice', 'We decided to archive logs after ninety days.'],
      ['Bob', 'I prefer Grafana for dashboards.'],
    ]);
    const since = stub.calls.length;
    stub.script(CHAT, [{ delayMs: 300 }]); // the first pass is still waiting for the model when the second starts
    const [a, b] = await Promise.all([
      runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-9' }),
      runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-9' }),
    ]);
    expect([a.result.events, b.result.events].sort()).toEqual([0, 2]);
    // One extraction request (Bob's preference is near an earlier one, so a reconcile question may follow it).
    expect(callsTo(stub, CHAT, since).filter((c) => String(c.body?.messages?.[0]?.content).startsWith('You extract long-term memory'))).toHaveLength(1);
    expect(await sql(m.deps.db, 'SELECT 1 FROM memories WHERE session_id = $1', ['ext-9'])).toHaveLength(2);
    const events = await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = ANY($1::uuid[])', [ids]);
    expect(events.map((e) => e.status)).toEqual(['done', 'done']);
  });

  it('takes over the claim of a pass that died once its lease has expired, and schedules a pass for a live claim', async () => {
    const ids = await embedded('ext-10', [['Dana', 'Next week we will rotate the database credentials.']]);
    // A pass that died mid-call left its claim (status extracting) a moment ago…
    await sql(m.deps.db, `UPDATE events SET status = 'extracting', processed_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
    const blocked = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-10' });
    expect(blocked.result).toEqual({ events: 0 });
    // …so this job leaves the events alone but comes back when the claim would expire.
    const lease = extractLeaseMs(m.deps.config);
    expect(blocked.next).toHaveLength(1);
    expect(blocked.next[0]).toMatchObject({ stage: 'extract', input: { extractKey: 'session:ext-10' } });
    expect(blocked.next[0]?.opts?.delay).toBeGreaterThan(lease - 60_000);
    expect(blocked.next[0]?.opts?.delay).toBeLessThanOrEqual(lease + 1000);
    // Once the lease is over, the next pass takes the events.
    await sql(m.deps.db, `UPDATE events SET processed_at = now() - $2::int * interval '1 millisecond' - interval '1 second' WHERE id = ANY($1::uuid[])`, [
      ids,
      lease,
    ]);
    const taken = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-10' });
    expect(taken.result).toMatchObject({ events: 1, memories_added: 1 });
    expect(taken.next.every((n) => n.stage !== 'extract')).toBe(true);
  });

  it('fails an invalid payload permanently, without retries, and records a dead letter', async () => {
    workers = startWorkers(m.deps, CATALOG, ['extract']);
    const queue = m.deps.queues.get('extract');
    await queue.add('extract', { tenantId: TENANT }, jobOptions('extract-bad-payload'));
    const { job, state } = await waitForJob(queue, 'extract-bad-payload', ['failed', 'completed']);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/^INPUT_INVALID: extractKey/);
    expect((await waitForDeadLetter(m.deps.db, 'extract', 'extract-bad-payload')).code).toBe('INPUT_INVALID');
    expect(callsTo(stub, CHAT)).toHaveLength(0);
  });

  it('fails permanently when the model answers an invalid extraction twice (one corrective turn, no retries)', async () => {
    await embedded('ext-5', [['Alice', 'The staging database is PostgreSQL 16.']]);
    const since = stub.calls.length;
    stub.script(CHAT, [{ json: chatAnswer('not json at all') }, { json: chatAnswer('{"memories": "nope"}') }]);
    workers = startWorkers(m.deps, CATALOG, ['extract']);
    const queue = m.deps.queues.get('extract');
    await queue.add('extract', { tenantId: TENANT, extractKey: 'session:ext-5' }, jobOptions('extract-invalid-answer'));
    const { job, state } = await waitForJob(queue, 'extract-invalid-answer', ['failed', 'completed']);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(callsTo(stub, CHAT, since)).toHaveLength(2);
    expect((await waitForDeadLetter(m.deps.db, 'extract', 'extract-invalid-answer')).code).toBe('EXTRACTION_INVALID');
  });

  it('retries after a provider 500 and succeeds with one failed and one good call', async () => {
    const ids = await embedded('ext-6', [['Bob', 'We decided to page the on-call engineer after two failed deploys.']]);
    const since = stub.calls.length;
    stub.script(CHAT, [{ status: 500 }]);
    workers = startWorkers(m.deps, CATALOG, ['extract']);
    const queue = m.deps.queues.get('extract');
    await queue.add('extract', { tenantId: TENANT, extractKey: 'session:ext-6' }, jobOptions('extract-500'));
    const { job, state } = await waitForJob(queue, 'extract-500', ['completed', 'failed']);
    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(2);
    expect(callsTo(stub, CHAT, since).map((c) => c.status)).toEqual([500, 200]);
    expect(await provenanceCount(ids)).toBeGreaterThan(0);
  });

  it('on a 429 with retry-after rate-limits the queue for every worker without using an attempt, then completes', async () => {
    await embedded('ext-7', [['Chen Wei', 'Next month we will upgrade the Redis cluster.']]);
    workers = startWorkers(m.deps, CATALOG, ['extract']);
    // The workers of a second process on the same queue: the pause holds for them too, so the job
    // is not started again (and bounced by the provider's cooldown) before the Retry-After ends.
    const second = startWorkers(m.deps, CATALOG, ['extract']);
    try {
      const queue = m.deps.queues.get('extract');
      await queue.add('extract', { tenantId: TENANT, extractKey: 'session:ext-7' }, jobOptions('extract-clean'));
      const clean = await waitForJob(queue, 'extract-clean', ['completed', 'failed']);
      expect(clean.state).toBe('completed');
      // Stored after the first pass, which would otherwise have taken this small session along (coalesce.ts).
      await embedded('ext-8', [['Chen Wei', 'I prefer Python for notebooks.']]);

      const since = stub.calls.length;
      stub.script(CHAT, [{ status: 429, retryAfter: 1 }]);
      await queue.add('extract', { tenantId: TENANT, extractKey: 'session:ext-8' }, jobOptions('extract-429'));
      const { job, state } = await waitForJob(queue, 'extract-429', ['completed', 'failed']);
      expect(state).toBe('completed');
      expect(callsTo(stub, CHAT, since).map((c) => c.status)).toEqual([429, 200]);
      expect(job.attemptsMade).toBe(clean.job.attemptsMade);
      expect(job.attemptsStarted).toBe(clean.job.attemptsStarted + 1);
      expect(await deadLettersOf(m.deps.db, 'extract', 'extract-429')).toEqual([]);
    } finally {
      await second.close();
    }
  });

  /** Model and embedding calls (readiness probes of GET /v1/models are free). */
  const paidCalls = (since: number) => stub.calls.slice(since).filter((c) => c.path === CHAT || c.path === EMB);
  const provenanceCount = async (ids: string[]) =>
    (await sql<{ n: number }>(m.deps.db, 'SELECT count(*)::int AS n FROM provenance WHERE event_id = ANY($1::uuid[])', [ids]))[0]?.n ?? 0;

  // Last: its memories and entities would change the exact counts the tests above assert.
  it("sets expires_at at insert from the kind's TTL default (plans here), and leaves kinds without one unexpiring", async () => {
    await embedded('ext-ttl', [
      ['Dana', 'Next quarter we will migrate the billing jobs to Kafka.'],
      ['Dana', 'I prefer Go for command-line tools.'],
    ]);
    await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:ext-ttl' });
    const rows = await sql<{ kind: string; days: number | null }>(
      m.deps.db,
      `SELECT kind, extract(epoch FROM expires_at - occurred_at) / 86400 AS days FROM memories WHERE session_id = 'ext-ttl' ORDER BY kind`,
    );
    expect(rows.map((r) => [r.kind, r.days === null ? null : Number(r.days)])).toEqual([
      ['plan', 90],
      ['preference', null],
    ]);
  });
});

/** A well-formed chat completion whose content is `content` (for scripted bad answers). */
function chatAnswer(content: string) {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 0,
    model: 'stub-chat',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
