/**
 * What changed between an agent's consecutive finished runs, for the history and the dashboard:
 * the checks that started failing (regressed) and those that stopped (fixed), by failing check id.
 */
import type { RunRow } from './types.js';

export interface Flips {
  regressed: string[];
  fixed: string[];
}

/** Flips of each run against the finished run before it (runs newest first; an interrupted run has none and is skipped as a baseline). */
export function flipsOf(runs: readonly RunRow[]): Map<number, Flips> {
  const out = new Map<number, Flips>();
  const done = runs.filter((r) => r.state === 'done');
  for (let i = 0; i < done.length - 1; i++) {
    const now = new Set(done[i]!.failingChecks);
    const before = new Set(done[i + 1]!.failingChecks);
    out.set(done[i]!.id, { regressed: [...now].filter((c) => !before.has(c)).sort(), fixed: [...before].filter((c) => !now.has(c)).sort() });
  }
  return out;
}
