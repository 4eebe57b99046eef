/**
 * Views of a RunResult shared by the human-facing renderers (console summary, HTML, JUnit):
 * the outcome as displayed (a check cut short by the budget shows as `not_run`), the order in
 * which problems are listed (MUST failures first), and the grouping of one check's results
 * across transports so MCP sits next to A2A and differing verdicts can be flagged.
 */
import { LEVELS, OUTCOMES, VERIFIED_OUTCOMES, isFailing } from '../harness/engine/result.js';
import type { CheckResult, Level, Outcome, RunResult, SpecRef, SuiteResult } from '../harness/engine/result.js';
import type { TransportKind } from '../harness/transport/types.js';

export type DisplayOutcome = Outcome | 'not_run';
export const DISPLAY_OUTCOMES: readonly DisplayOutcome[] = [...OUTCOMES, 'not_run'];

export function displayOutcome(check: Pick<CheckResult, 'outcome' | 'not_run'>): DisplayOutcome {
  return check.not_run ? 'not_run' : check.outcome;
}

/** Lower ranks are listed first. Failing outcomes (those that fail the run) come first. */
export function severityRank(check: CheckResult, strict: boolean): number {
  if (check.not_run) return 6;
  if (isFailing(check, strict)) {
    if (check.baselined) return 3; // expected by the baseline: after new failures
    switch (check.outcome) {
      case 'fail':
        return 0;
      default:
        return 3; // warn under --strict
    }
  }
  switch (check.outcome) {
    case 'error':
      return 1;
    case 'warn':
      return 4;
    case 'blocked':
      return 5;
    case 'gap':
      return 6;
    case 'info':
      return 7;
    case 'not_applicable':
      return 8;
    default:
      return 9; // pass
  }
}

export const PASS_RANK = 9;

/**
 * Do the transports disagree? Only verdicts count (pass, fail, warn, info): a check that does
 * not apply to one transport, was not verified there (blocked, gap, budget) or hit a harness
 * error is not a disagreement.
 */
export function verdictsDiffer(results: readonly CheckResult[]): boolean {
  const ran = results.filter((c) => VERIFIED_OUTCOMES.has(c.outcome));
  return new Set(ran.map((c) => c.outcome)).size > 1;
}

/** One check's results across transports (in the run's transport order). */
export interface CheckGroup {
  check_id: string;
  suite_id: string;
  title: string;
  level: Level;
  spec_ref: SpecRef;
  results: CheckResult[];
  /** The transports disagree on the outcome (see `verdictsDiffer`). */
  differs: boolean;
  /** Best (lowest) severity rank of the results. */
  rank: number;
  /** True when any result fails the run. */
  failing: boolean;
}

function transportOrder(run: Pick<RunResult, 'transports'>, t: TransportKind): number {
  const i = run.transports.indexOf(t);
  return i < 0 ? run.transports.length : i;
}

/** Groups checks by (suite, check id), in the order the checks first appear in the run. */
export function groupChecks(run: Pick<RunResult, 'checks' | 'transports' | 'selection'>): CheckGroup[] {
  const strict = run.selection?.strict ?? false;
  const groups = new Map<string, CheckGroup>();
  for (const check of run.checks) {
    const key = `${check.suite_id}\u0000${check.check_id}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        check_id: check.check_id,
        suite_id: check.suite_id,
        title: check.title,
        level: check.level,
        spec_ref: check.spec_ref,
        results: [],
        differs: false,
        rank: PASS_RANK,
        failing: false,
      };
      groups.set(key, group);
    }
    group.results.push(check);
  }
  for (const group of groups.values()) {
    group.results.sort((a, b) => transportOrder(run, a.transport) - transportOrder(run, b.transport));
    group.differs = verdictsDiffer(group.results);
    group.rank = Math.min(...group.results.map((c) => severityRank(c, strict)));
    group.failing = group.results.some((c) => isFailing(c, strict));
  }
  return [...groups.values()];
}

/**
 * Groups per level (MUST, SHOULD, MAY), each sorted by severity (MUST failures first), the
 * run's order breaking ties. `onlyProblems` keeps only groups with at least one non-pass.
 */
export function groupsByLevel(
  run: Pick<RunResult, 'checks' | 'transports' | 'selection'>,
  options: { onlyProblems?: boolean } = {},
): Array<{ level: Level; groups: CheckGroup[] }> {
  const all = groupChecks(run);
  const position = new Map(all.map((g, i) => [g, i]));
  return LEVELS.map((level) => {
    const groups = all
      .filter((g) => g.level === level)
      .filter((g) => !options.onlyProblems || g.results.some((c) => displayOutcome(c) !== 'pass'))
      .sort((a, b) => a.rank - b.rank || position.get(a)! - position.get(b)!);
    return { level, groups };
  });
}

/** Lower-case outcome label as shown to people (`not applicable`, `not run`). */
export function outcomeLabel(outcome: DisplayOutcome): string {
  return outcome.replaceAll('_', ' ');
}

/** Did this result verify the rule one way or the other (pass, fail, warn, info)? */
export function wasVerified(check: Pick<CheckResult, 'outcome'>): boolean {
  return VERIFIED_OUTCOMES.has(check.outcome);
}

/** A check group whose results hold a verdict other than pass, or a harness error: listed with its results. */
export function hasFindings(group: CheckGroup): boolean {
  return group.results.some((c) => c.outcome === 'error' || (wasVerified(c) && c.outcome !== 'pass'));
}

/** `complete`, or `INCOMPLETE: MUST 120/151 verified (31 gaps) · SHOULD …` over every transport. */
export function coverageText(run: RunResult): string {
  const totals = new Map<string, { verified: number; blocked: number; gap: number; error: number }>();
  for (const byLevel of Object.values(run.coverage.by_transport)) {
    for (const [level, c] of Object.entries(byLevel ?? {})) {
      const t = totals.get(level) ?? { verified: 0, blocked: 0, gap: 0, error: 0 };
      t.verified += c.verified;
      t.blocked += c.blocked;
      t.gap += c.gap;
      t.error += c.error;
      totals.set(level, t);
    }
  }
  const parts = [...totals]
    .filter(([, t]) => t.verified + t.blocked + t.gap + t.error > 0)
    .map(([level, t]) => {
      const rest = [t.blocked ? `${t.blocked} blocked` : '', t.gap ? `${t.gap} gaps` : '', t.error ? `${t.error} errors` : ''].filter(Boolean).join(', ');
      return `${level} ${t.verified}/${t.verified + t.blocked + t.gap + t.error} verified${rest ? ` (${rest})` : ''}`;
    });
  return `${run.coverage.complete ? 'complete' : 'INCOMPLETE'}${parts.length ? `: ${parts.join(' · ')}` : ''}`;
}

/**
 * A suite's cell on a column of the other face: an agent suite on the rest column (the registry
 * face) or the registry suite on an agent transport. Such a cell is not a gap, nothing runs there.
 */
export function otherFace(suite: Pick<SuiteResult, 'by_transport'>, t: TransportKind): boolean {
  const columns = Object.keys(suite.by_transport);
  return columns.length > 0 && columns.every((c) => (c === 'rest') !== (t === 'rest'));
}

/** What an empty cell of the suite table says: `—` across faces, `untested` otherwise. */
export const OTHER_FACE = '—';
