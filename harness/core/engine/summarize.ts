/** From check results to suite statuses, coverage, the overall status, the headline and the exit code. */
import type { AgentProfile } from './profile.js';
import { type SuiteDef, suiteRunsOn } from './model.js';
import {
  emptyCounts,
  isFailing,
  LEVELS,
  VERIFIED_OUTCOMES,
  type BlockedGroup,
  type CheckResult,
  type Coverage,
  type CoverageCounts,
  type GapGroup,
  type Level,
  type OutcomeCounts,
  type OverallStatus,
  type RunResult,
  type SuiteResult,
  type SuiteStatus,
} from './result.js';
import type { TransportKind } from '../transport/types.js';

export function countOutcomes(checks: readonly CheckResult[]): OutcomeCounts {
  const c = emptyCounts();
  for (const r of checks) c[r.outcome]++;
  return c;
}

/** A suite fails when a check fails; it is partial when something applicable was not verified. */
export function suiteStatus(checks: readonly CheckResult[], strict: boolean): SuiteStatus {
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => isFailing(c, strict))) return 'failing';
  if (checks.every((c) => c.outcome === 'not_applicable')) return 'not_applicable';
  if (!checks.some((c) => VERIFIED_OUTCOMES.has(c.outcome))) return 'untested';
  if (checks.some((c) => c.outcome === 'blocked' || c.outcome === 'gap' || c.outcome === 'error')) return 'partial';
  return 'passing';
}

export function summarizeSuites(
  suites: readonly SuiteDef[],
  checks: readonly CheckResult[],
  transports: readonly TransportKind[],
  strict: boolean,
): SuiteResult[] {
  return suites.map((suite) => {
    const mine = checks.filter((c) => c.suite_id === suite.id);
    const firstFailure = mine.find((c) => isFailing(c, strict));
    const byTransport: SuiteResult['by_transport'] = {};
    for (const t of transports) {
      // A column of the other face (the registry suite on mcp/a2a, an agent suite on rest) has no entry.
      if (!suiteRunsOn(suite, t)) continue;
      const sub = mine.filter((c) => c.transport === t);
      byTransport[t] = { status: suiteStatus(sub, strict), counts: countOutcomes(sub) };
    }
    return {
      suite_id: suite.id,
      title: suite.title,
      ...(suite.track !== undefined ? { track: suite.track } : {}),
      ...(suite.storyboard_id !== undefined ? { storyboard_id: suite.storyboard_id } : {}),
      status: suiteStatus(mine, strict),
      counts: countOutcomes(mine),
      by_transport: byTransport,
      first_failure: firstFailure ? { check_id: firstFailure.check_id, transport: firstFailure.transport, message: firstFailure.message } : undefined,
    };
  });
}

function emptyCoverage(): CoverageCounts {
  return { verified: 0, blocked: 0, gap: 0, error: 0, not_applicable: 0 };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Coverage: verified / blocked / gap / error / not applicable per transport and level, the
 * blocked cascades grouped by the check that blocked them (one line each), the gaps grouped by
 * the feature they lack, and one reason line per kind of incompleteness.
 */
export function coverageOf(checks: readonly CheckResult[], transports: readonly TransportKind[], budgetS?: number): Coverage {
  const byTransport: Coverage['by_transport'] = {};
  for (const t of transports) byTransport[t] = Object.fromEntries(LEVELS.map((l) => [l, emptyCoverage()])) as Record<Level, CoverageCounts>;
  const blocked = new Map<string, BlockedGroup>();
  const gaps = new Map<string, GapGroup>();
  const causeOf = new Map(checks.map((c) => [`${c.check_id}\0${c.transport}`, c.message]));
  for (const c of checks) {
    const counts = byTransport[c.transport]?.[c.level];
    if (counts) {
      if (VERIFIED_OUTCOMES.has(c.outcome)) counts.verified++;
      else if (c.outcome === 'blocked' || c.outcome === 'gap' || c.outcome === 'error' || c.outcome === 'not_applicable') counts[c.outcome]++;
    }
    if (c.outcome === 'blocked') {
      const by = c.blocked_by ?? '(unnamed)';
      const k = `${by}\0${c.transport}`;
      const g = blocked.get(k) ?? { blocked_by: by, transport: c.transport, cause: causeOf.get(k) ?? c.message, check_ids: [] };
      g.check_ids.push(c.check_id);
      blocked.set(k, g);
    } else if (c.outcome === 'gap') {
      const gap = c.gap ?? 'optional feature';
      const reason = c.not_run ? `the run budget${budgetS !== undefined ? ` of ${budgetS} s` : ''} ran out` : gapReason(c.message);
      const k = `${gap}\0${reason}`;
      const g = gaps.get(k) ?? { gap, reason, transports: [], check_ids: [] };
      if (!g.transports.includes(c.transport)) g.transports.push(c.transport);
      if (!g.check_ids.includes(c.check_id)) g.check_ids.push(c.check_id);
      gaps.set(k, g);
    }
  }
  const reasons: string[] = [];
  for (const g of blocked.values()) reasons.push(blockedLine(g));
  for (const g of gaps.values()) reasons.push(gapLine(g));
  const errors = checks.filter((c) => c.outcome === 'error').length;
  if (errors) reasons.push(`${plural(errors, 'check run')} ended in a harness error`);
  return { complete: reasons.length === 0, reasons, by_transport: byTransport, blocked: [...blocked.values()], gaps: [...gaps.values()] };
}

/** A gap's reason without the "needs <check>, not verified:" prefix of an inherited gap. */
function gapReason(message: string): string {
  return message.replace(/^needs \S+, not verified: /, '');
}

/** "43 checks blocked by setup.products.offered failing (mcp): <cause>". */
export function blockedLine(g: BlockedGroup): string {
  return `${plural(g.check_ids.length, 'check')} blocked by ${g.blocked_by} failing (${g.transport}): ${g.cause.replace(/^blocked by \S+: /, '')}`;
}

/** "31 checks not verified, coverage gap (test controller, mcp + a2a): <reason>". */
export function gapLine(g: GapGroup): string {
  return `${plural(g.check_ids.length, 'check')} not verified, coverage gap (${g.gap}, ${g.transports.join(' + ')}): ${g.reason}`;
}

export function overallStatus(profiles: readonly AgentProfile[], checks: readonly CheckResult[], coverage: Coverage, strict: boolean): OverallStatus {
  const usable = profiles.filter((p) => p.offered && p.reachable && !p.authRequired);
  if (usable.length === 0) {
    if (profiles.some((p) => p.authRequired)) return 'auth_required';
    return 'unreachable';
  }
  if (checks.some((c) => isFailing(c, strict))) return 'failing';
  if (checks.some((c) => c.outcome === 'error')) return 'error';
  if (!coverage.complete) return 'partial';
  return 'passing';
}

export function headline(
  status: OverallStatus,
  checks: readonly CheckResult[],
  coverage: Coverage,
  profiles: readonly AgentProfile[],
  strict: boolean,
): string {
  const used = [...new Set(checks.map((c) => c.transport))];
  const transports = used.length > 1 ? `${used.slice(0, -1).join(', ')} and ${used.at(-1)}` : (used[0] ?? 'no transport');
  if (status === 'unreachable' || status === 'auth_required') {
    return `${status === 'unreachable' ? 'unreachable' : 'auth required'}: ${profiles
      .map((p) => p.problem)
      .filter(Boolean)
      .join('; ')}`;
  }
  const must = checks.filter((c) => c.level === 'MUST' && VERIFIED_OUTCOMES.has(c.outcome));
  const mustPassed = must.filter((c) => c.outcome === 'pass').length;
  const failing = checks.filter((c) => isFailing(c, strict));
  const warns = checks.filter((c) => c.outcome === 'warn').length;
  const blocked = checks.filter((c) => c.outcome === 'blocked').length;
  const gaps = checks.filter((c) => c.outcome === 'gap').length;
  const errors = checks.filter((c) => c.outcome === 'error').length;
  const tail = [
    warns && !strict ? plural(warns, 'SHOULD warning') : '',
    blocked ? `${blocked} blocked` : '',
    gaps ? plural(gaps, 'coverage gap') : '',
    errors ? plural(errors, 'harness error') : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (failing.length) {
    const ids = new Map<string, string[]>();
    for (const f of failing) ids.set(f.check_id, [...(ids.get(f.check_id) ?? []), f.transport]);
    const list = [...ids]
      .slice(0, 3)
      .map(([id, ts]) => `${id} (${ts.join(', ')})`)
      .join(', ');
    return `failing: ${plural(ids.size, 'check')} failed: ${list}${ids.size > 3 ? ', …' : ''}${tail ? `; ${tail}` : ''}`;
  }
  if (status === 'error')
    return `error: the harness could not complete ${plural(errors, 'check run')}; ${mustPassed} of ${must.length} verified MUST checks passed${tail ? `; ${tail}` : ''}`;
  const verifiedNote = coverage.complete ? '' : ' that were verified';
  return `${status}: ${mustPassed} of ${must.length} MUST checks${verifiedNote} passed over ${transports}${tail ? `; ${tail}` : ''}`;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, partial: 4, error: 5 } as const;

export interface ExitPolicy {
  strict?: boolean;
  /** Coverage gaps (an optional feature the agent lacks by design) do not keep the exit code from 0. */
  allowGaps?: boolean;
  /** Incomplete coverage fails the run (exit 1). */
  requireFullCoverage?: boolean;
}

/**
 * The exit code of a run, under the policy recorded in its selection (or `override`):
 * 3 unreachable; 1 a check failed that the baseline does not excuse, or a stale baseline entry,
 * or incomplete coverage under requireFullCoverage; 5 a harness error; 4 incomplete coverage
 * (gaps, budget, checks blocked by excused failures) unless allowGaps accepts the gaps; 0 otherwise.
 */
export function exitCodeFor(
  run: Pick<RunResult, 'overall_status' | 'coverage' | 'checks' | 'baseline' | 'selection' | 'harness_error'>,
  override?: ExitPolicy,
): number {
  const policy: ExitPolicy = override ?? {
    strict: run.selection.strict,
    allowGaps: run.selection.allow_gaps,
    requireFullCoverage: run.selection.require_full_coverage,
  };
  if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') return EXIT.unreachable;
  if (run.harness_error !== undefined) return EXIT.error;
  if (run.checks.some((c) => isFailing(c, policy.strict) && !c.baselined)) return EXIT.failed;
  if (run.baseline?.entries.some((e) => e.status === 'stale')) return EXIT.failed;
  if (run.overall_status === 'error' || run.checks.some((c) => c.outcome === 'error')) return EXIT.error;
  if (!run.coverage.complete) {
    if (policy.requireFullCoverage) return EXIT.failed;
    const onlyGaps = run.checks.every((c) => c.outcome !== 'blocked' && !(c.outcome === 'gap' && c.not_run));
    if (policy.allowGaps && onlyGaps) return EXIT.ok;
    return EXIT.partial;
  }
  return EXIT.ok;
}
