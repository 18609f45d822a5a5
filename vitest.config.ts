import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'apps/**/*.test.ts', 'workers/**/*.test.ts', 'test/**/*.test.ts'],
    // The chaos suite (outages, SIGKILL, 10,000 hostile requests) runs on its own: npm run test:chaos;
    // it includes the crash test (SIGKILL under load), which is too slow to run twice.
    exclude: ['test/chaos/**', 'test/pipeline-crash.test.ts', '**/node_modules/**'],
    // Each file gets its own process: PGlite instances and BullMQ connections never leak between files.
    pool: 'forks',
    maxWorkers: 2,
    // Generous: tests never assert time, and a shared 2-core CI machine can be slow.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    allowOnly: false,
  },
});
