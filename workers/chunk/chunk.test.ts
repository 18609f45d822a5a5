import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/domain/tokens.js';
import { startWorkers } from '../../src/queue/runner.js';
import { CATALOG } from '../catalog.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { ingest, runStage, sql, TENANT, waitForDeadLetter, waitForJob } from '../../test/support/pipeline.js';
import { triage } from '../triage/handler.js';
import { CHUNKS_PER_TRANSACTION, EVENTS_PER_TRANSACTION, chunk } from './handler.js';
import { CHUNK_MAX_TOKENS } from './schema.js';

interface ChunkRow {
  id: string;
  event_id: string;
  idx: number;
  content: string;
  start_offset: number;
  end_offset: number;
  tokens: number;
  session_id: string | null;
  run_id: string | null;
}

const ENGLISH_DOC = Array.from(
  { length: 30 },
  (_, i) =>
    `Step ${i + 1} of the runbook. Check the Redis memory graph before the deploy, then restart PostgreSQL replica ${i} when its lag exceeds ten seconds. Write the outcome into the incident log so the next on-call engineer knows what happened.`,
).join('\n\n');
const CHINESE_DOC = Array.from(
  { length: 40 },
  (_, i) => `第${i + 1}步：部署之前先检查Redis的内存曲线，如果PostgreSQL副本的延迟超过十秒就重启它，然后把结果写进事故日志。`,
).join('\n');

describe.each([{ redis: false }, { redis: true }])('chunk stage (redis: $redis)', ({ redis }) => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ redis, roles: { api: false, workers: [] } });
  });
  afterAll(async () => m?.close());

  const chunksOf = (ids: string[]) =>
    sql<ChunkRow>(
      m.deps.db,
      'SELECT id, event_id, idx, content, start_offset, end_offset, tokens, session_id, run_id FROM chunks WHERE event_id = ANY($1::uuid[]) ORDER BY event_id, idx',
      [ids],
    );
  const contentOf = async (id: string) => (await sql<{ content: string }>(m.deps.db, 'SELECT content FROM events WHERE id = $1', [id]))[0]?.content as string;

  async function triaged(events: object[]): Promise<string[]> {
    const ids = await ingest(m.deps, events);
    await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    return ids;
  }

  it('cuts long documents (English, Chinese) into bounded chunks whose offsets slice the event exactly; a short message stays one chunk', async () => {
    const ids = await triaged([
      { type: 'document', content: ENGLISH_DOC },
      { type: 'document', content: CHINESE_DOC },
      { session_id: 'ch-1', content: 'We decided to use PostgreSQL 16 with pgvector 0.8.' },
    ]);
    const { result, next } = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids });
    const rows = await chunksOf(ids);
    expect(result.chunks).toBe(rows.length);
    for (const id of ids) {
      const content = await contentOf(id);
      const own = rows.filter((r) => r.event_id === id);
      expect(own.map((r) => r.idx)).toEqual(own.map((_, i) => i));
      for (const [i, c] of own.entries()) {
        expect(c.content).toBe(content.slice(c.start_offset, c.end_offset));
        expect(c.content.trim().length).toBeGreaterThan(0);
        expect(c.tokens).toBe(countTokens(c.content));
        expect(c.tokens).toBeLessThanOrEqual(CHUNK_MAX_TOKENS);
        expect(c.run_id).not.toBeNull();
        if (i > 0) expect(c.start_offset).toBeGreaterThan((own[i - 1] as ChunkRow).start_offset);
      }
      // Chunks cover the text: nothing but whitespace falls between or around them.
      let covered = 0;
      for (const c of own) {
        expect(content.slice(covered, c.start_offset).trim()).toBe('');
        covered = Math.max(covered, c.end_offset);
      }
      expect(content.slice(covered).trim()).toBe('');
    }
    const perEvent = ids.map((id) => rows.filter((r) => r.event_id === id).length);
    expect(perEvent[0]).toBeGreaterThanOrEqual(3);
    expect(perEvent[1]).toBeGreaterThanOrEqual(2);
    expect(perEvent[2]).toBe(1);
    expect(rows.find((r) => r.event_id === ids[2])?.session_id).toBe('ch-1');
    const statuses = await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = ANY($1::uuid[])', [ids]);
    expect(statuses.every((s) => s.status === 'chunked')).toBe(true);
    expect(next).toEqual([{ stage: 'embed', input: { tenantId: TENANT, eventIds: ids } }]);
  });

  it('is a no-op on replay: no new chunk rows; a retry still moves its events on, an overlapping job leaves them to their chunker', async () => {
    const ids = await triaged([
      { type: 'document', content: ENGLISH_DOC.slice(0, 3000) },
      { session_id: 'ch-2', content: 'Alice prefers tea over coffee.' },
    ]);
    const first = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids }, 'chunk-job-1');
    const before = await chunksOf(ids);
    const retry = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids }, 'chunk-job-1');
    const other = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: [ids[1] as string] }, 'chunk-job-2');
    expect(retry.result.chunks).toBe(0);
    expect(other.result.chunks).toBe(0);
    expect(await chunksOf(ids)).toEqual(before);
    expect(first.next).toEqual([{ stage: 'embed', input: { tenantId: TENANT, eventIds: ids } }]);
    expect(retry.next).toEqual(first.next); // the same job after a committed write: from stored state
    expect(other.next).toEqual([]); // no second embed job (and paid call) for the same chunks
  });

  it('writes a long session in several transactions, with the keys a single write would give', async () => {
    const turns = Array.from({ length: 70 }, (_, i) => ({
      session_id: 'ch-long',
      user_id: 'u-long',
      content: `Turn ${i}: the ${['ferry', 'harbour', 'museum', 'tram'][i % 4]} plan number ${i} changed again.`,
      occurred_at: new Date(Date.UTC(2026, 10, 2, 10, 0, i)).toISOString(),
    }));
    const ids = await triaged(turns);
    const done = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids }, 'chunk-job-long');
    expect(done.result.chunks).toBe(70);
    expect(done.next).toEqual([{ stage: 'embed', input: { tenantId: TENANT, eventIds: ids } }]);
    // one run per transaction of EVENTS_PER_TRANSACTION events
    const runs = await sql<{ n: number }>(m.deps.db, `SELECT count(DISTINCT run_id)::int AS n FROM chunks WHERE event_id = ANY($1::uuid[])`, [ids]);
    expect(runs[0]?.n).toBe(Math.ceil(70 / EVENTS_PER_TRANSACTION));
    expect(runs[0]?.n).toBeGreaterThan(1);
    // Keys across the slices' seams carry both neighbours: a full rebuild changes none.
    const keys = () => sql<{ id: string; f: string }>(m.deps.db, 'SELECT id, fts::text AS f FROM chunks WHERE event_id = ANY($1::uuid[]) ORDER BY id', [ids]);
    const before = await keys();
    await sql(m.deps.db, `SELECT memloom_refresh_chunk_keys(array_agg(id), 'fts') FROM chunks WHERE event_id = ANY($1::uuid[])`, [ids]);
    expect(await keys()).toEqual(before);
    const seam = await sql<{ f: string }>(m.deps.db, `SELECT c.fts::text AS f FROM chunks c JOIN events e ON e.id = c.event_id WHERE e.id = $1`, [ids[31]]);
    expect(seam[0]?.f).toMatch(/'30':[0-9]+C/); // the previous turn, in the same transaction
    expect(seam[0]?.f).toMatch(/'32':[0-9]+B/); // the next turn, written by the next transaction
  });

  it('writes a large event in pieces of bounded size, resumable after a crash between them, with the keys a single write would give', async () => {
    // ~120 kB: more than one section of chunkSections, and many pieces.
    const big = Array.from(
      { length: 1800 },
      (_, i) => `Sentence ${i} says the ${['ferry', 'harbour', 'museum', 'tram'][i % 4]} timetable changed ${i} times this year.${i % 3 === 2 ? '\n\n' : ' '}`,
    ).join('');
    const at = (s: number) => new Date(Date.UTC(2026, 10, 3, 10, 0, s)).toISOString();
    const ids = await triaged([
      { session_id: 'ch-big', user_id: 'u-big', content: 'Before the big paste.', occurred_at: at(0) },
      { session_id: 'ch-big', user_id: 'u-big', type: 'document', content: big, occurred_at: at(1) },
      { session_id: 'ch-big', user_id: 'u-big', content: 'After the big paste.', occurred_at: at(2) },
    ]);
    const bigId = ids[1] as string;
    const done = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: ids }, 'chunk-job-big');
    const total = (await chunksOf([bigId])).length;
    expect(total).toBeGreaterThan(3 * CHUNKS_PER_TRANSACTION);
    expect(done.result.chunks).toBe(total + 2);
    // No transaction wrote more than CHUNKS_PER_TRANSACTION chunks (one run row per transaction).
    const perRun = await sql<{ n: number }>(m.deps.db, 'SELECT count(*)::int AS n FROM chunks WHERE event_id = ANY($1::uuid[]) GROUP BY run_id', [ids]);
    expect(Math.max(...perRun.map((r) => r.n))).toBeLessThanOrEqual(CHUNKS_PER_TRANSACTION);
    // (by position: the replay below writes new rows)
    const keys = () =>
      sql<{ f: string }>(
        m.deps.db,
        'SELECT c.fts::text AS f FROM chunks c JOIN events e ON e.id = c.event_id WHERE e.id = ANY($1::uuid[]) ORDER BY e.seq, c.idx',
        [ids],
      );
    const before = await keys();
    await sql(m.deps.db, `SELECT memloom_refresh_chunk_keys(array_agg(id), 'fts') FROM chunks WHERE event_id = ANY($1::uuid[])`, [ids]);
    expect(await keys()).toEqual(before);

    // A crash after the first pieces: the event is still triaged with only its first chunks.
    const spans = await sql<{ idx: number; start_offset: number; end_offset: number; content: string }>(
      m.deps.db,
      'SELECT idx, start_offset, end_offset, content FROM chunks WHERE event_id = $1 ORDER BY idx',
      [bigId],
    );
    await sql(m.deps.db, `DELETE FROM chunks WHERE event_id = $1 AND idx >= $2`, [bigId, 2 * CHUNKS_PER_TRANSACTION]);
    await sql(m.deps.db, `UPDATE events SET status = 'triaged' WHERE id = $1`, [bigId]);
    const replay = await runStage(m.deps, chunk, { tenantId: TENANT, eventIds: [bigId] }, 'chunk-job-big-replay');
    expect(replay.result.chunks).toBe(total - 2 * CHUNKS_PER_TRANSACTION);
    expect(replay.next).toEqual([{ stage: 'embed', input: { tenantId: TENANT, eventIds: [bigId] } }]);
    expect(await sql(m.deps.db, 'SELECT idx, start_offset, end_offset, content FROM chunks WHERE event_id = $1 ORDER BY idx', [bigId])).toEqual(spans);
    expect(await keys()).toEqual(before);
    expect((await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [bigId]))[0]?.status).toBe('chunked');
  });

  it('fails an invalid payload permanently, without retries, and records a dead letter', async () => {
    const workers = startWorkers(m.deps, CATALOG, ['chunk']);
    try {
      const queue = m.deps.queues.get('chunk');
      await queue.add('chunk', { tenantId: TENANT, eventIds: [] }, { jobId: 'chunk-bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } });
      const { job, state } = await waitForJob(queue, 'chunk-bad-payload', ['failed', 'completed']);
      expect(state).toBe('failed');
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toMatch(/^INPUT_INVALID: eventIds/);
      expect((await waitForDeadLetter(m.deps.db, 'chunk', 'chunk-bad-payload')).code).toBe('INPUT_INVALID');
    } finally {
      await workers.close();
    }
  });
});
