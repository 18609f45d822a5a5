import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'apps/**/*.test.ts', 'workers/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file gets its own process: PGlite instances and BullMQ connections never leak between files.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    allowOnly: false,
  },
});
