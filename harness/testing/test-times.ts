/**
 * The slowest test files, with their time in seconds on the 2-core CI machine (a quiet fresh-clone
 * `.ci/run`, vitest's per-file time). Two uses:
 * - vitest starts these first, longest first (`SlowFirstSequencer`, vitest.config.ts): in a fresh
 *   clone vitest has no timings of its own and would start the biggest files first, which left a
 *   two-minute fault matrix (a small file) to run alone at the end;
 * - docs/testing.md names them with these times (checked by test-times.test.ts).
 * Refresh the figures from a CI log when a file's time changes much (these: the fresh-clone CI of
 * 29 November, 16:50 UTC, machine otherwise quiet).
 * FRESH_CLONE_CI below is the slowest of that day's three quiet fresh-clone runs (11.3, 13.7 and 14.3 minutes).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_TEST_FILES: Readonly<Record<string, number>> = {
  'suites/faults.test.ts': 126,
  'suites/webhooks/webhooks.faults.test.ts': 81,
  'suites/interop/sdk-sellers.test.ts': 55,
  'harness/cli/fuzz-command.test.ts': 52,
  'suites/interop/storyboards.test.ts': 52,
  'mocks/buyer/faults.test.ts': 50,
  'harness/fuzz/kill-rate.test.ts': 46,
  'harness/cli/hostile-agents.test.ts': 45,
  'harness/compliance-service/postgres.test.ts': 32,
  'harness/fuzz/fuzz.test.ts': 32,
  'suites/signatures/signatures.faults.test.ts': 30,
  'harness/cli/cli.test.ts': 27,
  'harness/cli/proxy-command.test.ts': 25,
  'harness/cli/registry-command.test.ts': 23,
  'harness/cli/diff-command.test.ts': 6,
};

/**
 * The last quiet fresh-clone `.ci/run` on the 2-core CI machine, whole (npm ci, lint, typecheck,
 * vitest) and vitest alone, as docs/testing.md states them. Recorded, not measured by the bench
 * (a fresh clone and a quiet machine are not what `npm run bench` has): `npm run bench -- ci`
 * prints them against the 15-minute target, marked as recorded.
 */
export const FRESH_CLONE_CI = { wholeMinutes: 14.3, vitestMinutes: 12.6, targetMinutes: 15 } as const;

/** Known slow files first, longest first; every other file after them in vitest's own order. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification) => SLOW_TEST_FILES[relative(root, f.moduleId).split('\\').join('/')] ?? -1;
    return base
      .map((f, i) => ({ f, i, s: seconds(f) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map(({ f }) => f);
  }
}
