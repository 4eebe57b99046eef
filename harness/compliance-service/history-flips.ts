/**
 * What changed between an agent's consecutive finished runs, for the history and the dashboard:
 * per check and transport, what regressed (started failing, or lost its verdict), what was fixed
 * and what else changed (harness/core/engine/run-diff.ts, as `proto-comply diff` says it). Runs
 * recorded before outcomes were kept are compared by their failing check ids.
 */
import { diffOutcomes, type OutcomeChange } from '../core/engine/run-diff.js';
import type { RunRow } from './types.js';

export interface Flips {
  regressed: string[];
  fixed: string[];
  changed: string[];
}

const line = (c: OutcomeChange) => `${c.check}@${c.transport}: ${c.before ?? 'absent'} → ${c.after ?? 'absent'}`;

function between(now: RunRow, before: RunRow): Flips {
  const a = before.summary?.outcomes;
  const b = now.summary?.outcomes;
  if (a && b) {
    const d = diffOutcomes(a, b, { strict: now.summary?.strict ?? false });
    return { regressed: d.regressed.map(line), fixed: d.fixed.map(line), changed: [...d.changed, ...d.added, ...d.removed].map(line) };
  }
  const nowFailing = new Set(now.failingChecks);
  const beforeFailing = new Set(before.failingChecks);
  return {
    regressed: [...nowFailing].filter((c) => !beforeFailing.has(c)).sort(),
    fixed: [...beforeFailing].filter((c) => !nowFailing.has(c)).sort(),
    changed: [],
  };
}

/**
 * Flips of each full run against the full run before it (runs newest first). Interrupted runs and
 * single-storyboard runs (`storyboard_run`: a part of the checks) are neither compared nor baselines.
 */
export function flipsOf(runs: readonly RunRow[]): Map<number, Flips> {
  const out = new Map<number, Flips>();
  const done = runs.filter((r) => r.state === 'done' && r.triggeredBy !== 'storyboard_run');
  for (let i = 0; i < done.length - 1; i++) out.set(done[i]!.id, between(done[i]!, done[i + 1]!));
  return out;
}
