import { defineConfig } from 'vitest/config';

/**
 * npm run test:server: test files of the main suite against the local PostgreSQL 15 + pgvector
 * (a fresh database per memloom, copied from a migrated template; test/support/server-db.ts), once
 * with the queues on Redis and once on BullMQ's PostgreSQL backend. .ci/run runs it after the
 * chaos suite. Files that test PGlite itself (embedded maintenance, the data-directory lock, the
 * session queue) stay embedded-only.
 */
const SERVER_FILES = [
  'test/pipeline-e2e.test.ts',
  'test/pipeline-processes.test.ts',
  'test/pipeline-crash.test.ts',
  'test/recall.test.ts',
  'test/forget.test.ts',
  'test/forget-exact.test.ts',
  'test/lifecycle.test.ts',
  'test/guardrails.test.ts',
  'test/gate-admission.test.ts',
  'test/rls.test.ts',
  'test/correct.test.ts',
  'test/memories-api.test.ts',
  'test/export-import.test.ts',
  'test/feedback.test.ts',
  'test/briefing.test.ts',
  'test/working-memory.test.ts',
  'test/bm25.test.ts',
  'test/current-truth.test.ts',
  'test/current-truth-attributes.test.ts',
  'test/late-arrivals.test.ts',
  'test/read-your-writes.test.ts',
  'test/context.test.ts',
  'test/graph-scope.test.ts',
  'test/graph-scope-migration.test.ts',
  'test/reembed.test.ts',
];

const project = (queues: 'redis' | 'postgres') => ({
  extends: true as const,
  test: { name: `server-${queues}`, include: SERVER_FILES, env: { MEMLOOM_TEST_SERVER: queues } },
});

export default defineConfig({
  test: {
    projects: [project('redis'), project('postgres')],
    globalSetup: ['test/support/server-global-setup.ts'],
    pool: 'forks',
    // One file at a time: a file may run five memloom processes, and on BullMQ's PostgreSQL
    // backend each holds 20–30 connections; two such files at once exhausted the server's default
    // max_connections (100), and a worker refused a connection did not recover.
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 300_000,
    allowOnly: false,
  },
});
