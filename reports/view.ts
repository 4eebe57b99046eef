/**
 * Views of a RunResult shared by the human-facing renderers (console summary, HTML, JUnit):
 * the outcome as displayed (a check cut short by the budget shows as `not_run`), the order in
 * which problems are listed (MUST failures first), and the grouping of one check's results
 * across transports so MCP sits next to A2A and differing verdicts can be flagged.
 */
import { LEVELS, OUTCOMES, VERIFIED_OUTCOMES, isFailing } from '../harness/core/engine/result.js';
import type { CheckResult, Level, Outcome, RunResult, SpecRef, SuiteResult } from '../harness/core/engine/result.js';
import type { TransportKind } from '../harness/core/transport/types.js';

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

/**
 * One defect seen through several rules: a failing check that is the root cause of other
 * failures (`root_cause`, harness/core/engine/root-cause.ts), the checks that fail because of it, and
 * those it blocked. Only roots with at least one other failing check are listed: a lone failure
 * is its own line in the findings.
 */
export interface DefectGroup {
  root: string;
  /** The root's message on the first transport it failed on. */
  message: string;
  transports: TransportKind[];
  /** Other checks failing (fail, warn, info) because of the same defect, in run order. */
  failing: string[];
  /** Checks blocked by it, in run order. */
  blocked: string[];
}

const FAILED = new Set<Outcome>(['fail', 'warn', 'info']);

export function defectGroups(run: Pick<RunResult, 'checks'>): DefectGroup[] {
  const groups = new Map<string, DefectGroup>();
  for (const c of run.checks) {
    if (!c.root_cause || c.root_cause !== c.check_id || !FAILED.has(c.outcome)) continue;
    const g = groups.get(c.check_id) ?? { root: c.check_id, message: c.message, transports: [], failing: [], blocked: [] };
    if (!g.transports.includes(c.transport)) g.transports.push(c.transport);
    groups.set(c.check_id, g);
  }
  for (const c of run.checks) {
    const g = c.root_cause && c.root_cause !== c.check_id ? groups.get(c.root_cause) : undefined;
    if (!g) continue;
    const list = c.outcome === 'blocked' ? g.blocked : FAILED.has(c.outcome) ? g.failing : undefined;
    if (list && !list.includes(c.check_id)) list.push(c.check_id);
  }
  return [...groups.values()].filter((g) => g.failing.length > 0);
}

/** `3 checks fail because of one defect` (the root included), plus what it blocked. */
export function defectHeadline(g: DefectGroup): string {
  const blocked = g.blocked.length ? `; ${g.blocked.length} more blocked by it` : '';
  return `${g.failing.length + 1} checks fail because of one defect, first seen in ${g.root} [${g.transports.join(', ')}]${blocked}`;
}

/** The root cause of a failing result when it is another check: `root cause: <id>`; undefined otherwise. */
export function rootCauseNote(check: Pick<CheckResult, 'check_id' | 'root_cause' | 'outcome'>): string | undefined {
  return FAILED.has(check.outcome) && check.root_cause && check.root_cause !== check.check_id ? `root cause: ${check.root_cause}` : undefined;
}

/** `target 3.1 (default: the newest released line); the agent declares 3.0` — how a run's target reads. */
export function targetText(run: Pick<RunResult, 'target'>): string {
  const t = run.target;
  const declared = t.agent_declared?.supported_versions?.length
    ? `; the agent declares ${t.agent_declared.supported_versions.join(', ')}`
    : t.agent_declared?.major_versions?.length
      ? `; the agent declares major version ${t.agent_declared.major_versions.join(', ')}`
      : '; the agent declares no version';
  const build = t.agent_declared?.build_version ? ` (build ${t.agent_declared.build_version})` : '';
  const lacks = t.agent_lacks_target ? ', not the target' : '';
  return `protocol line ${t.requested_compliance_target}${t.explicit ? '' : ' (default: the newest released line)'}${declared}${build}${lacks}${responseSchemasText(t)}`;
}

/** `; response schemas: the released 3.0.6 set`, or the harness's own and why; nothing when no released set was named or looked for. */
function responseSchemasText(t: RunResult['target']): string {
  const r = t.response_schemas;
  if (!r) return '';
  const set = r.released_set;
  if (r.judged_with === 'released' && set) return `; response schemas: the released ${set.version} set`;
  return `; response schemas: the harness's own (${set ? `the released ${set.version} set is of line ${set.line}` : 'no released set beside the bundle'})`;
}

/** `interpretation: <reading> (rests on: <spec text>)` for a check that carries one. */
export function interpretationText(check: Pick<CheckResult, 'interpretation'>): string | undefined {
  const i = check.interpretation;
  return i ? `interpretation: ${i.reading} (rests on: ${i.spec_text})` : undefined;
}
