/**
 * The CI target (issue 36, target 7): a fresh-clone `.ci/run` under 15 minutes on the 2-core CI
 * machine. The bench cannot measure that (no fresh clone, no quiet machine, and it would take the
 * quarter hour it is about), so this section prints the figure recorded from the last quiet
 * fresh-clone run (harness/testing/test-times.ts FRESH_CLONE_CI, stated in docs/testing.md) against
 * the target, marked as recorded, and the slowest test files with their recorded seconds.
 */
import type { BenchResult } from '../harness/core/signing/bench/bench.js';

export async function ciBench(): Promise<BenchResult[]> {
  // test-times.ts loads vitest/node (its sequencer): only this section pays for it.
  const { FRESH_CLONE_CI, SLOW_TEST_FILES } = await import('../harness/testing/test-times.js');
  const { wholeMinutes, vitestMinutes, targetMinutes } = FRESH_CLONE_CI;
  const slowest = Object.entries(SLOW_TEST_FILES).sort((a, b) => b[1] - a[1]);
  const width = Math.max(...slowest.map(([f]) => f.length));
  return [
    {
      name: `fresh-clone .ci/run, RECORDED (not measured by this bench): ${wholeMinutes} min whole, ${vitestMinutes} min of vitest`,
      ops_per_sec: 1 / (wholeMinutes * 60),
      iterations: 1,
      baseline: `${targetMinutes} min`,
      ratio: targetMinutes / wholeMinutes,
      target_ratio: 1,
      note:
        `source: harness/testing/test-times.ts FRESH_CLONE_CI = docs/testing.md; re-measure with a fresh clone and .ci/run on a quiet machine. ` +
        `Slowest test files (recorded seconds, vitest runs two files at a time):\n` +
        slowest.map(([f, s]) => `      ${f.padEnd(width)} ${String(s).padStart(4)} s`).join('\n'),
    },
  ];
}
