import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{harness,suites,mocks,reports,fixtures}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The machine running CI has two cores.
    maxWorkers: 2,
    maxConcurrency: 3,
  },
});
