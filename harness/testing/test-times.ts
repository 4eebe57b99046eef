/**
 * The slowest test files, with their time in seconds on the 2-core CI machine (a quiet fresh-clone
 * `.ci/run`, vitest's per-file time). Two uses:
 * - vitest starts these first, longest first (`SlowFirstSequencer`, vitest.config.ts): in a fresh
 *   clone vitest has no timings of its own and would start the biggest files first, which left a
 *   two-minute fault matrix (a small file) to run alone at the end;
 * - docs/testing.md names them with these times (checked by test-times.test.ts).
 * Refresh the figures from a CI log when a file's time changes much. The fault matrices' figures
 * are estimates: their last CI time scaled by the CPU time the regrouped matrix took against the
 * previous one on the same (busy) machine (29 November, locally: the buyer matrix 253 -> 25 s of
 * CPU with one TLS context per test CA and its faults in matrix groups, the seller matrix
 * 114.6 -> 91 s with its largest group split).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_TEST_FILES: Readonly<Record<string, number>> = {
  'suites/faults.test.ts': 143,
  'suites/webhooks/webhooks.faults.test.ts': 88,
  'harness/cli/cli.test.ts': 68,
  'harness/cli/fuzz-command.test.ts': 61,
  'suites/interop/sdk-sellers.test.ts': 57,
  'harness/cli/hostile-agents.test.ts': 52,
  'suites/interop/storyboards.test.ts': 47,
  'harness/fuzz/kill-rate.test.ts': 42,
  'suites/signatures/signatures.faults.test.ts': 39,
  'harness/fuzz/fuzz.test.ts': 36,
  'harness/compliance-service/postgres.test.ts': 34,
  'harness/cli/registry-command.test.ts': 30,
  'harness/cli/proxy-command.test.ts': 28,
  'mocks/buyer/faults.test.ts': 26,
  'harness/cli/diff-command.test.ts': 8,
};

/**
 * The last quiet fresh-clone `.ci/run` on the 2-core CI machine, whole (npm ci, lint, typecheck,
 * vitest) and vitest alone, as docs/testing.md states them. Recorded, not measured by the bench
 * (a fresh clone and a quiet machine are not what `npm run bench` has): `npm run bench -- ci`
 * prints them against the 15-minute target, marked as recorded.
 */
export const FRESH_CLONE_CI = { wholeMinutes: 15.2, vitestMinutes: 13.5, targetMinutes: 15 } as const;

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
