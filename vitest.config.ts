import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './harness/testing/test-times.js';

export default defineConfig({
  test: {
    include: ['{harness,suites,mocks,reports,fixtures}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Commands the tests start run the sources, not the bundle of bin/build-cli.js (its own test: harness/cli/build.test.ts).
    env: { PROTO_COMPLY_FROM_SOURCE: '1' },
    // The machine running CI has two cores.
    maxWorkers: 2,
    maxConcurrency: 3,
    // The slowest files start first, so none is left running alone at the end (harness/testing/test-times.ts).
    sequence: { sequencer: SlowFirstSequencer },
  },
});
