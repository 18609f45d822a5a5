import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAnswer } from '../apps/cli/commands/recall.js';
import { withTenant } from '../src/db/pool.js';
import { vectorSearch } from '../src/db/sql/recall.js';
import { nearestMemoriesBatch } from '../src/db/sql/memories-write.js';
import { fromVectorSql } from '../src/db/sql/vector.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { reembed, reembedTick } from '../src/reembed/index.js';
import { sql } from './support/pipeline.js';
import { spawnMemloom } from './support/process.js';
import { startProviderStub, stubEmbedding, type ProviderStub } from './support/provider-stub.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

/*
 * A model change: the corpus is embedded by the offline hashing embedder (384 dimensions), then
 * memloom runs with an OpenAI-compatible provider (the stub) serving `stub-embed` at the same 384
 * dimensions. Until `memloom reembed`, vector search compares no old vector with a new one;
 * reembed (killed once mid-run, then run again) leaves every row with the new model, keys as a
 * clean build makes them, and vector recall back.
 */

const DIMS = 384;
const NEW_MODEL = 'stub-embed';
const TOPICS = ['PostgreSQL', 'Redis', 'Grafana', 'Kubernetes', 'Terraform', 'Kafka', 'Nginx', 'Prometheus'];
const EVENTS = Array.from({ length: 48 }, (_, i) => ({
  user_id: 'u-1',
  session_id: `s-${i % 4}`,
  role: 'user',
  content: `We decided to use ${TOPICS[i % TOPICS.length]} for service number ${i} because the team knows it well.`,
  metadata: { speaker: 'Alice' },
}));

let stub: ProviderStub;
let home: string;
let newEnv: Record<string, string>;
let before: { chunks: number; memories: number; entities: number };

const counts = async (m: TestMemloom) =>
  (
    await sql<{ chunks: number; memories: number; entities: number }>(
      m.deps.db,
      `SELECT (SELECT count(*) FROM chunks)::int AS chunks, (SELECT count(*) FROM memories)::int AS memories, (SELECT count(*) FROM entities)::int AS entities`,
    )
  )[0] as { chunks: number; memories: number; entities: number };

const models = async (m: TestMemloom) =>
  sql<{ t: string; model: string; n: number }>(
    m.deps.db,
    `SELECT 'chunks' AS t, embedding_model AS model, count(*)::int AS n FROM chunks WHERE embedding IS NOT NULL GROUP BY 2
     UNION ALL SELECT 'memories', embedding_model, count(*)::int FROM memories WHERE embedding IS NOT NULL GROUP BY 2
     UNION ALL SELECT 'entities', embedding_model, count(*)::int FROM entities WHERE embedding IS NOT NULL GROUP BY 2 ORDER BY 1, 2`,
  );

/** Vector search of both tables, as recall runs it, for a query vector of the configured model. */
const vectorHits = async (m: TestMemloom, text: string) => {
  const { model, dimensions } = m.deps.providers.embeddings;
  const [q] = (await m.deps.providers.embeddings.embed([text], 'query')).vectors as [number[]];
  return withTenant(m.deps.db, 'default', async (tx) => ({
    chunks: await vectorSearch(tx, 'chunks', { userId: 'u-1' }, q, { model, dims: dimensions }, 10),
    memories: await vectorSearch(tx, 'memories', { userId: 'u-1' }, q, { model, dims: dimensions }, 10),
    global: await vectorSearch(tx, 'chunks', {}, q, { model, dims: dimensions }, 10),
    neighbours: (await nearestMemoriesBatch(tx, { userId: 'u-1' }, [{ vector: q, hash: 'none' }], { model, dims: dimensions }, 5))[0] ?? [],
  }));
};

/** Runs `memloom reembed` as a child process on the home (embedded) or the test's database (server suite). */
const runCli = (args: string[], dbUrl: string | undefined) =>
  spawnMemloom(['reembed', ...args], { ...newEnv, MEMLOOM_HOME: home, LOG_LEVEL: 'warn', ...(dbUrl ? { DATABASE_URL: dbUrl } : {}) });

beforeAll(async () => {
  stub = await startProviderStub({ dimensions: DIMS });
  newEnv = {
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: stub.url,
    EMBEDDINGS_MODEL: NEW_MODEL,
    EMBEDDINGS_DIMENSIONS: String(DIMS),
    EMBEDDINGS_API_KEY: 'test-key',
  };
  home = await mkdtemp(path.join(os.tmpdir(), 'memloom-reembed-'));
  const m = await startTestMemloom({ home, roles: { api: true, workers: QUEUE_NAMES.filter((q) => q !== 'maintenance') } });
  try {
    expect((await postJson(`${m.url}/v1/events`, { events: EVENTS })).status).toBe(202);
    await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'the pipeline to settle' });
    before = await counts(m);
    expect(before.chunks).toBe(EVENTS.length);
    expect(before.memories).toBeGreaterThan(0);
    expect(before.entities).toBeGreaterThan(0);
  } finally {
    await m.close();
  }
}, 180_000);

afterAll(async () => {
  await stub?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('a change of embedding model', () => {
  it('compares no vector of the old model; keyword recall still finds the rows and recall says vectors are missing', async () => {
    const m = await startTestMemloom({ home, env: newEnv });
    try {
      expect(m.deps.providers.embeddings.model).toBe(NEW_MODEL);
      expect((await models(m)).map((r) => r.model)).not.toContain(NEW_MODEL);
      const hits = await vectorHits(m, 'We decided to use Redis for service number 1');
      expect(hits).toEqual({ chunks: [], memories: [], global: [], neighbours: [] });

      const { body } = await postJson(`${m.url}/v1/recall`, { query: 'Which service uses Kafka?', user_id: 'u-1' });
      expect(body.results.length).toBeGreaterThan(0);
      expect(body.results.some((r: { content: string }) => r.content.includes('Kafka'))).toBe(true);
      for (const r of body.results) expect(r.scores.vector ?? 0).toBe(0);
      expect(body.vectors).toEqual({ model: NEW_MODEL, missing: before.chunks + before.memories, capped: false });
      expect(formatAnswer(body)).toContain(`(${before.chunks + before.memories} rows have no vector of ${NEW_MODEL} yet`);

      const stats = (await getJson(`${m.url}/v1/stats`)).body;
      expect(stats.vectors.model).toBe(NEW_MODEL);
      expect(stats.vectors.other_model).toBe(before.chunks + before.memories + before.entities);

      // The embedded database is this memloom's: the command refuses to open it.
      if (!process.env.MEMLOOM_TEST_SERVER) {
        const refused = runCli([], undefined);
        expect((await refused.exited).code).toBe(1);
        expect(refused.output()).toContain('owns its embedded database');
      }

      // The background task: one bounded batch per tick.
      const tick = await reembed(m.deps, { maxBatches: 1, batch: 5 });
      expect(tick).toEqual({ reembedded: { chunks: 5, memories: 0, entities: 0 }, finished: false });
    } finally {
      await m.close();
    }
  }, 60_000);

  it('memloom reembed resumes after a kill, finishes as a clean run would and restores vector recall', async () => {
    const dbUrl = process.env.MEMLOOM_TEST_SERVER ? await serverUrl() : undefined;
    // Killed (SIGKILL) once its first batch has committed.
    const first = runCli(['--batch', '1'], dbUrl);
    await waitFor(() => /reembed chunks: [1-9]\d*\//.test(first.output()), { timeoutMs: 60_000, what: 'a committed batch' });
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = runCli(['--batch', '7'], dbUrl);
    const { code } = await second.exited;
    expect(code, second.output()).toBe(0);
    const printed = JSON.parse(
      second
        .output()
        .split('\n')
        .find((l) => l.startsWith('{"reembedded"')) as string,
    );
    const left = before.chunks + before.memories + before.entities - 5;
    const rerun = printed.reembedded.chunks + printed.reembedded.memories + printed.reembedded.entities;
    // The rerun continued: it wrote what the killed run had not, and not what it had.
    expect(rerun).toBeGreaterThan(0);
    expect(rerun).toBeLessThan(left);
    expect(printed.model).toBe(NEW_MODEL);

    // A third run finds nothing left.
    const third = runCli([], dbUrl);
    expect((await third.exited).code).toBe(0);
    expect(third.output()).toContain('"reembedded":{"chunks":0,"memories":0,"entities":0}');

    const m = await startTestMemloom({ home, env: newEnv });
    try {
      expect(await counts(m)).toEqual(before);
      expect((await models(m)).map((r) => `${r.t}:${r.model}`)).toEqual([`chunks:${NEW_MODEL}`, `entities:${NEW_MODEL}`, `memories:${NEW_MODEL}`]);
      // Each vector is the new model's vector of its text…
      const rows = await sql<{ text: string; v: string }>(
        m.deps.db,
        `SELECT content AS text, own_embedding::text AS v FROM chunks UNION ALL SELECT content, embedding::text FROM memories
         UNION ALL SELECT name, embedding::text FROM entities`,
      );
      for (const r of rows) {
        const want = stubEmbedding(r.text, DIMS);
        const got = fromVectorSql(r.v);
        expect(got.reduce((s, x, i) => s + x * (want[i] as number), 0)).toBeGreaterThan(0.9999);
      }
      // …and a full rebuild of the key vectors (as a clean embed makes them) changes none.
      const keyed = await sql<{ id: string; k: string }>(m.deps.db, 'SELECT id, embedding::text AS k FROM chunks ORDER BY id');
      await withTenant(m.deps.db, 'default', async (tx) => {
        await tx.query('SELECT memloom_lock_sessions(ARRAY(SELECT id FROM chunks))');
        await tx.query(`SELECT memloom_refresh_chunk_keys(ARRAY(SELECT id FROM chunks), 'vector')`);
      });
      expect(await sql<{ id: string; k: string }>(m.deps.db, 'SELECT id, embedding::text AS k FROM chunks ORDER BY id')).toEqual(keyed);
      // Vector recall is back, and recall no longer reports missing vectors.
      const hits = await vectorHits(m, 'We decided to use Redis for service number 1');
      expect(hits.chunks.length).toBe(10);
      expect(hits.memories.length).toBeGreaterThan(0);
      expect(hits.neighbours.length).toBeGreaterThan(0);
      const { body } = await postJson(`${m.url}/v1/recall`, { query: 'Which service uses Kafka?', user_id: 'u-1' });
      expect(body.vectors).toBeUndefined();
      expect(body.results.some((r: { scores: { vector?: number } }) => (r.scores.vector ?? 0) > 0)).toBe(true);
      expect((await getJson(`${m.url}/v1/stats`)).body.vectors.other_model).toBe(0);
    } finally {
      await m.close();
    }
  }, 120_000);
});

describe('the scheduled reembed task', () => {
  it('after a change back to the offline embedder, re-embeds every row one batch per tick', async () => {
    // The hashing embedder again (same 384 dimensions): every row is now of another model.
    const m = await startTestMemloom({ home, roles: { api: true, workers: ['maintenance'], scheduler: true }, env: { REEMBED_INTERVAL_MS: '200' } });
    try {
      const model = m.deps.providers.embeddings.model;
      expect(model).not.toBe(NEW_MODEL);
      await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.vectors.other_model === 0, { timeoutMs: 60_000, what: 'the reembed task' });
      expect(await counts(m)).toEqual(before);
      expect((await models(m)).map((r) => `${r.t}:${r.model}`)).toEqual([`chunks:${model}`, `entities:${model}`, `memories:${model}`]);
      const hits = await vectorHits(m, 'We decided to use Redis for service number 1');
      expect(hits.chunks.length).toBe(10);
      // Once a tick found nothing left, the next ones skip the scans.
      await waitFor(async () => (await reembedTick(m.deps)).skipped === true, { what: 'a skipped tick' });
    } finally {
      await m.close();
    }
  }, 90_000);
});

describe('a change of dimensions', () => {
  it('leaves the rows of the old dimensions out of vector search until reembed gives them the new ones', async () => {
    const m = await startTestMemloom({ home, env: { EMBEDDINGS_DIMENSIONS: '256' } });
    try {
      expect((await getJson(`${m.url}/v1/stats`)).body.vectors.other_model).toBe(before.chunks + before.memories + before.entities);
      expect(await vectorHits(m, 'We decided to use Redis for service number 1')).toEqual({ chunks: [], memories: [], global: [], neighbours: [] });
      const result = await reembed(m.deps);
      expect(result.reembedded).toEqual(before);
      const dims = await sql<{ d: number }>(
        m.deps.db,
        'SELECT DISTINCT embedding_dims AS d FROM chunks UNION SELECT embedding_dims FROM memories UNION SELECT embedding_dims FROM entities',
      );
      expect(dims).toEqual([{ d: 256 }]);
      expect((await vectorHits(m, 'We decided to use Redis for service number 1')).chunks.length).toBe(10);
    } finally {
      await m.close();
    }
  }, 90_000);
});

/** Server suite: the database startTestMemloom keeps for this home. */
async function serverUrl(): Promise<string> {
  const m = await startTestMemloom({ home, env: newEnv, roles: { api: false } });
  const url = m.config.DATABASE_URL as string;
  await m.close();
  return url;
}
