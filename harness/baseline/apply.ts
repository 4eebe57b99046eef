/**
 * Judging a run against an expected-failures baseline. Outcomes never change: a failing result
 * the baseline expected is marked `baselined` (it no longer fails the run), and each entry is
 * recorded as expected / stale / unused in `run.baseline`. A stale entry (its check ran and no
 * longer fails) fails the run, so baselines only shrink.
 *
 * Overall status and headline are re-derived: `failing` when a failure the baseline did not
 * expect remains or an entry is stale; otherwise what the run would be without the expected
 * failures (`passing`, or `partial` / `error` when coverage is incomplete). Suite
 * statuses and counts keep telling the truth (a suite with a baselined failure still fails).
 */
import { isFailing, VERIFIED_OUTCOMES } from '../core/engine/result.js';
import type { BaselineEntryResult, CheckResult, RunResult } from '../core/engine/result.js';
import { headline } from '../core/engine/summarize.js';
import type { Baseline, BaselineEntry } from './file.js';

function covers(entry: BaselineEntry, check: Pick<CheckResult, 'check_id' | 'transport'>): boolean {
  return entry.check_id === check.check_id && (entry.transport === undefined || entry.transport === check.transport);
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function entryLabel(entry: Pick<BaselineEntry, 'check_id' | 'transport'>): string {
  return entry.transport ? `${entry.check_id} [${entry.transport}]` : entry.check_id;
}

function mustText(checks: readonly CheckResult[]): string {
  const must = checks.filter((c) => c.level === 'MUST' && VERIFIED_OUTCOMES.has(c.outcome));
  const passed = must.filter((c) => c.outcome === 'pass').length;
  const transports = [...new Set(checks.map((c) => c.transport))].join(' and ') || 'no transport';
  const warns = checks.filter((c) => c.outcome === 'warn').length;
  return `${passed} of ${must.length} MUST checks passed over ${transports}${warns ? `, ${plural(warns, 'SHOULD warning', 'SHOULD warnings')}` : ''}`;
}

/** The run with baselined flags, `baseline` and a re-derived overall status and headline. */
export function applyBaseline(run: RunResult, baseline: Baseline): RunResult {
  const strict = run.selection.strict;
  const reachable = run.overall_status !== 'unreachable' && run.overall_status !== 'auth_required';
  const checks: CheckResult[] = run.checks.map((c) => {
    const { baselined: _previous, ...rest } = c;
    const expected = reachable && isFailing(c, strict) && baseline.entries.some((e) => covers(e, c));
    return expected ? { ...rest, baselined: true } : rest;
  });
  const entries: BaselineEntryResult[] = baseline.entries.map((e) => {
    const mine = checks.filter((c) => covers(e, c));
    const matched = mine.filter((c) => c.baselined).length;
    const ran = mine.filter((c) => VERIFIED_OUTCOMES.has(c.outcome));
    const status = matched > 0 ? 'expected' : reachable && ran.length > 0 ? 'stale' : 'unused';
    const result: BaselineEntryResult = { check_id: e.check_id, reason: e.reason, status, matched };
    if (e.transport) result.transport = e.transport;
    return result;
  });
  const judged: RunResult = { ...run, checks, baseline: { file: baseline.file, entries } };
  if (!reachable) return judged;

  const unexpected = checks.filter((c) => isFailing(c, strict) && !c.baselined);
  const stale = entries.filter((e) => e.status === 'stale');
  const excused = checks.filter((c) => c.baselined).length;
  if (unexpected.length === 0 && stale.length === 0 && excused === 0) return judged;

  const staleText = stale.length
    ? `${plural(stale.length, 'stale baseline entry', 'stale baseline entries')} (the check no longer fails; remove from ${baseline.file}): ${stale
        .slice(0, 3)
        .map(entryLabel)
        .join(', ')}${stale.length > 3 ? ', …' : ''}`
    : '';
  const excusedText = excused ? `${plural(excused, 'failure', 'failures')} expected by the baseline` : '';
  if (unexpected.length > 0) {
    // The engine's headline lists the failures it is given: give it the unexpected ones only.
    const base = headline(
      'failing',
      checks.filter((c) => !c.baselined),
      run.coverage,
      [],
      strict,
    );
    judged.headline = [base, staleText, excusedText].filter(Boolean).join('; ');
    judged.overall_status = 'failing';
  } else if (stale.length > 0) {
    judged.headline = [`failing: ${staleText}`, excusedText].filter(Boolean).join('; ');
    judged.overall_status = 'failing';
  } else {
    const errors = checks.some((c) => c.outcome === 'error');
    const status = run.overall_status !== 'failing' ? run.overall_status : errors ? 'error' : run.coverage.complete ? 'passing' : 'partial';
    judged.overall_status = status;
    judged.headline = `${status}: ${mustText(checks)}; ${excusedText} (${baseline.file})`;
  }
  return judged;
}

/** Entries of the run's baseline that are stale. */
export function staleEntries(run: Pick<RunResult, 'baseline'>): BaselineEntryResult[] {
  return (run.baseline?.entries ?? []).filter((e) => e.status === 'stale');
}
