import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTENT_BYTES } from '../../src/events/constants.js';
import { CHUNKS_PER_TRANSACTION } from '../../workers/chunk/handler.js';
import { PIECE_LIMITS } from '../../workers/extract/pieces.js';
import { postJson, startTestMemloom, waitFor, type TestMemloom } from '../support/memloom.js';
import { megabyte } from '../support/megabyte.js';
import { apiStats, sql } from '../support/pipeline.js';

/**
 * A valid event of 1 MiB goes through every stage (offline providers) while recalls keep being
 * answered: no transaction writes more than its stage's bound (a 925 KB event used to be chunked
 * in one statement and extracted in one transaction, which then failed with `vectorList: 12000
 * vectors in one statement`), and recalls complete between the stages' transactions, not only
 * after them. Bounds are on rows per transaction and on what recalls saw, never on time.
 */

describe('a 1 MiB event through the whole pipeline', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ env: { EXTRACT_DEBOUNCE_MS: '100' }, roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing'] } });
  });
  afterAll(async () => m?.close());

  it('ends done with no failed job, in transactions of bounded size, with recalls answered between them', async () => {
    const content = megabyte();
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(Buffer.byteLength(content)).toBeGreaterThan(MAX_CONTENT_BYTES - 1000);
    const warm = await postJson(`${m.url}/v1/events`, { user_id: 'u-big', session_id: 's-warm', content: 'We decided to use PostgreSQL for memory.' });
    expect(warm.status).toBe(202);
    await waitFor(async () => (await apiStats(m.url)).pending_events === 0, { timeoutMs: 60_000, what: 'the first event' });

    const post = await postJson(`${m.url}/v1/events`, { user_id: 'u-big', session_id: 's-big', content });
    expect(post.status).toBe(202);
    const id = post.body.ids[0] as string;

    // Recalls all along; after each, what the big event's stages had written when it was answered.
    const seen: Array<{ status: number; event: string; chunks: number; pieces: number }> = [];
    let done = false;
    const recalls = (async () => {
      while (!done) {
        const r = await postJson(`${m.url}/v1/recall`, { user_id: 'u-big', query: 'which database did we pick?', limit: 5 });
        const [state] = await sql<{ event: string; chunks: number; pieces: number }>(
          m.deps.db,
          `SELECT e.status AS event, (SELECT count(*) FROM chunks c WHERE c.event_id = e.id)::int AS chunks,
                  (SELECT count(*) FROM pipeline_runs r WHERE r.piece_key IS NOT NULL)::int AS pieces
           FROM events e WHERE e.id = $1`,
          [id],
        );
        seen.push({ status: r.status, ...(state as { event: string; chunks: number; pieces: number }) });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      await waitFor(async () => (await apiStats(m.url)).pending_events === 0, { timeoutMs: 900_000, intervalMs: 500, what: 'the 1 MiB event to be processed' });
    } finally {
      done = true;
      await recalls;
    }

    const stats = await apiStats(m.url);
    expect(stats.objects.events_failed).toBe(0);
    expect((await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [id]))[0]?.status).toBe('done');
    expect(await sql(m.deps.db, `SELECT queue, code FROM dead_letters`)).toEqual([]);
    const failed = await Promise.all(
      (['triage', 'chunk', 'embed', 'extract', 'briefing'] as const).map(async (q) => (await m.deps.queues.get(q).getJobCounts('failed')).failed),
    );
    expect(failed).toEqual([0, 0, 0, 0, 0]);

    // Everything was written, and no transaction wrote more than its bound.
    const [rows] = await sql<{ chunks: number; embedded: number; memories: number; entities: number; pieces: number }>(
      m.deps.db,
      `SELECT (SELECT count(*) FROM chunks WHERE event_id = $1)::int AS chunks,
              (SELECT count(*) FROM chunks WHERE event_id = $1 AND embedding IS NOT NULL)::int AS embedded,
              (SELECT count(*) FROM provenance WHERE event_id = $1 AND object_type = 'memory')::int AS memories,
              (SELECT count(*) FROM provenance WHERE event_id = $1 AND object_type = 'entity')::int AS entities,
              (SELECT count(*) FROM pipeline_runs WHERE piece_key IS NOT NULL)::int AS pieces`,
      [id],
    );
    expect(rows?.chunks).toBeGreaterThan(1000);
    expect(rows?.embedded).toBe(rows?.chunks);
    expect(rows?.memories).toBeGreaterThan(500);
    expect(rows?.entities).toBeGreaterThan(1000);
    const [perRun] = await sql<{ chunks: number; memories: number; entities: number; edges: number }>(
      m.deps.db,
      `SELECT (SELECT max(n) FROM (SELECT count(*)::int AS n FROM chunks WHERE event_id = $1 GROUP BY run_id) c) AS chunks,
              (SELECT max(n) FROM (SELECT count(*)::int AS n FROM memories WHERE run_id IS NOT NULL GROUP BY run_id) c) AS memories,
              (SELECT max(n) FROM (SELECT count(*)::int AS n FROM provenance WHERE object_type = 'entity' GROUP BY run_id) c) AS entities,
              (SELECT max(n) FROM (SELECT count(*)::int AS n FROM provenance WHERE object_type = 'edge' GROUP BY run_id) c) AS edges`,
      [id],
    );
    expect(perRun?.chunks).toBeLessThanOrEqual(CHUNKS_PER_TRANSACTION);
    expect(perRun?.memories).toBeLessThanOrEqual(PIECE_LIMITS.memories);
    expect(perRun?.entities).toBeLessThanOrEqual(PIECE_LIMITS.entities);
    expect(perRun?.edges).toBeLessThanOrEqual(PIECE_LIMITS.triplets);
    // A chunk row was last written by the embed transaction of its vector (8 chunks) or of a neighbour's.
    const [vectors] = await sql<{ n: number }>(
      m.deps.db,
      `SELECT max(n)::int AS n FROM (SELECT count(*) AS n FROM chunks WHERE event_id = $1 GROUP BY xmin::text) x`,
      [id],
    );
    expect(vectors?.n).toBeLessThanOrEqual(8 + 2);

    // Recalls were answered while the stages were part-way through the event, not only around them.
    expect(seen.filter((s) => s.status !== 200)).toEqual([]);
    expect(seen.some((s) => s.event === 'triaged' && s.chunks > 0 && s.chunks < (rows?.chunks ?? 0))).toBe(true);
    expect(seen.some((s) => s.event === 'extracting' && s.pieces > 0 && s.pieces < (rows?.pieces ?? 0))).toBe(true);
  }, 900_000);
});
