/** From check results to suite statuses, the overall status, the headline and the exit code. */
import type { AgentProfile } from './profile.js';
import type { SuiteDef } from './model.js';
import {
  emptyCounts,
  isFailing,
  type CheckResult,
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

export function suiteStatus(checks: readonly CheckResult[], strict: boolean): SuiteStatus {
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => isFailing(c, strict))) return 'failing';
  if (checks.every((c) => c.outcome === 'not_applicable')) return 'not_applicable';
  const ran = checks.filter((c) => !c.not_run && c.outcome !== 'not_applicable' && c.outcome !== 'not_testable');
  if (ran.length === 0) return 'untested';
  if (checks.some((c) => c.not_run)) return 'partial';
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
      const sub = mine.filter((c) => c.transport === t);
      byTransport[t] = { status: suiteStatus(sub, strict), counts: countOutcomes(sub) };
    }
    return {
      suite_id: suite.id,
      title: suite.title,
      status: suiteStatus(mine, strict),
      counts: countOutcomes(mine),
      by_transport: byTransport,
      first_failure: firstFailure ? { check_id: firstFailure.check_id, transport: firstFailure.transport, message: firstFailure.message } : undefined,
    };
  });
}

export function overallStatus(profiles: readonly AgentProfile[], checks: readonly CheckResult[], strict: boolean): OverallStatus {
  const usable = profiles.filter((p) => p.offered && p.reachable && !p.authRequired);
  if (usable.length === 0) {
    if (profiles.some((p) => p.authRequired)) return 'auth_required';
    return 'unreachable';
  }
  if (checks.some((c) => isFailing(c, strict))) return 'failing';
  if (checks.some((c) => c.not_run || c.outcome === 'warn')) return 'degraded';
  return 'passing';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function headline(status: OverallStatus, checks: readonly CheckResult[], profiles: readonly AgentProfile[], strict: boolean): string {
  const transports = [...new Set(checks.map((c) => c.transport))].join(' and ') || 'no transport';
  if (status === 'unreachable' || status === 'auth_required') {
    return `${status === 'unreachable' ? 'unreachable' : 'auth required'}: ${profiles
      .map((p) => p.problem)
      .filter(Boolean)
      .join('; ')}`;
  }
  const must = checks.filter((c) => c.level === 'MUST' && c.outcome !== 'not_applicable' && !c.not_run);
  const mustPassed = must.filter((c) => c.outcome === 'pass').length;
  const failing = checks.filter((c) => isFailing(c, strict));
  const warns = checks.filter((c) => c.outcome === 'warn').length;
  const notRun = checks.filter((c) => c.not_run).length;
  const tail = [warns ? plural(warns, 'SHOULD warning') : '', notRun ? `${plural(notRun, 'check')} not run (budget)` : ''].filter(Boolean).join(', ');
  if (failing.length) {
    const ids = new Map<string, string[]>();
    for (const f of failing) ids.set(f.check_id, [...(ids.get(f.check_id) ?? []), f.transport]);
    const list = [...ids]
      .slice(0, 3)
      .map(([id, ts]) => `${id} (${ts.join(', ')})`)
      .join(', ');
    return `failing: ${plural(ids.size, 'check')} failed: ${list}${ids.size > 3 ? ', …' : ''}${tail ? `; ${tail}` : ''}`;
  }
  return `${status}: ${mustPassed} of ${must.length} MUST checks passed over ${transports}${tail ? `; ${tail}` : ''}`;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, partial: 4 } as const;

/**
 * A failure the baseline expected (`baselined`) does not fail the run; a stale baseline entry
 * (its check now passes) does.
 */
export function exitCodeFor(run: Pick<RunResult, 'overall_status' | 'completeness' | 'checks' | 'baseline'>, strict: boolean): number {
  if (run.overall_status === 'unreachable' || run.overall_status === 'auth_required') return EXIT.unreachable;
  if (run.checks.some((c) => isFailing(c, strict) && !c.baselined)) return EXIT.failed;
  if (run.baseline?.entries.some((e) => e.status === 'stale')) return EXIT.failed;
  if (run.completeness.status === 'partial') return EXIT.partial;
  return EXIT.ok;
}
