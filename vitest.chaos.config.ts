import { defineConfig } from 'vitest/config';

/**
 * npm run test:chaos: hostile input, outages and a second tenant (docs/guardrails.md, "Guarantees";
 * figures in docs/performance.md, "Chaos"). Bounded to a few minutes; .ci/run runs it after the suite.
 */
export default defineConfig({
  test: {
    // SIGKILL under load: the crash test of the main suite runs here too.
    include: ['test/chaos/**/*.test.ts', 'test/pipeline-crash.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 300_000,
    allowOnly: false,
    env: { FUZZ_REQUESTS: process.env.FUZZ_REQUESTS ?? '10000' },
  },
});
