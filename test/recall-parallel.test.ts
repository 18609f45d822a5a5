import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { recall, type RecallAnswer } from '../src/recall/index.js';
import { RecallInput } from '../src/recall/schema.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { createServerDatabase, SERVER_MODE, type ServerDatabase } from './support/server-db.js';

/**
 * On a PostgreSQL server, recall's retrievers (vector and BM25 over memories and chunks, entity
 * links, triplets) run in parallel, each in a tenant transaction of its own on its own pooled
 * connection; embedded PGlite has one session, so there they take turns in one transaction.
 * This file always runs on the local server (its own database when not in npm run test:server).
 */
let m: TestMemloom;
let own: ServerDatabase | undefined;
const AS_OF = '2099-01-01T00:00:00Z'; // one fixed "now" for both recalls, so freshness scores are equal

beforeAll(async () => {
  own = SERVER_MODE ? undefined : await createServerDatabase();
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES }, env: own ? { DATABASE_URL: own.url } : {} });
  const events = [
    { user_id: 'alice', session_id: 'p1', content: 'We decided to use PostgreSQL with pgvector as the memory database.', metadata: { speaker: 'Alice' } },
    { user_id: 'alice', session_id: 'p1', content: 'Alice prefers TypeScript for backend services and Python for notebooks.', metadata: { speaker: 'Alice' } },
    { user_id: 'alice', session_id: 'p2', content: 'Next week Bob will migrate the billing service to Kubernetes in Frankfurt.', metadata: { speaker: 'Bob' } },
    { user_id: 'alice', session_id: 'p2', content: 'The billing database runs on PostgreSQL 15 with three replicas.', metadata: { speaker: 'Bob' } },
  ];
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await getJson(`${m.url}/v1/stats`)).body;
      return s.objects.events === events.length && s.pending_events === 0 && s.objects.memories > 0;
    },
    { timeoutMs: 120_000, what: 'pipeline' },
  );
}, 180_000);
afterAll(async () => {
  await m?.close();
  await own?.drop();
});

const comparable = (a: RecallAnswer) => a.results.map((r) => ({ id: r.id, type: r.type, score: r.score, scores: r.scores }));

describe('recall on a PostgreSQL server', () => {
  it('runs its retrievers in parallel on separate connections, with the results of the one-transaction way', async () => {
    expect(m.deps.embedded).toBeUndefined();
    const input = RecallInput.parse({ query: 'Which database does billing use, and who migrates it?', user_id: 'alice', mode: 'auto', as_of: AS_OF });
    const sequential = await recall(m.deps, 'default', input, undefined, { oneTransaction: true });
    expect(sequential.results.some((r) => r.type === 'memory')).toBe(true);
    expect(sequential.results.some((r) => r.type === 'chunk')).toBe(true);

    // Hold every reader of chunks and memories at a table lock: retrievers running in parallel
    // each wait on a connection of their own, where the one-transaction way waits on one.
    const owner = new pg.Client({ connectionString: m.deps.dbUrl });
    // Another session watches: pg_stat_activity is a snapshot fixed for the rest of a transaction.
    const watcher = new pg.Client({ connectionString: m.deps.dbUrl });
    await owner.connect();
    await watcher.connect();
    try {
      await owner.query('BEGIN; LOCK TABLE chunks, memories IN ACCESS EXCLUSIVE MODE');
      const parallel = recall(m.deps, 'default', input);
      const waiting = await waitFor(
        async () => {
          const { rows } = await watcher.query<{ n: number }>(
            `SELECT count(DISTINCT pid)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`,
          );
          return (rows[0]?.n ?? 0) >= 4 ? rows[0]?.n : undefined;
        },
        { timeoutMs: 30_000, what: 'four retrievers waiting at once' },
      );
      // memories: vector, BM25 (and the entity links once they reach memories); chunks: vector, BM25.
      expect(waiting).toBeGreaterThanOrEqual(4);
      await owner.query('COMMIT');
      expect(comparable(await parallel)).toEqual(comparable(sequential));
    } finally {
      await owner.query('ROLLBACK').catch(() => undefined);
      await owner.end();
      await watcher.end();
    }
  });
});
