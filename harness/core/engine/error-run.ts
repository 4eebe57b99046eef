/**
 * When the harness itself breaks around a run (a throw escaping certify, a report that cannot be
 * rendered, an unhandled rejection), the run still ends as a result: status `error`, the cause in
 * one line, and every check finished so far. Used by the command line and the compliance service.
 */
import { boundRun, cutText, LIMITS } from './bound.js';
import { coverageOf } from './summarize.js';
import type { SuiteDef } from './model.js';
import type { CheckResult, RunResult, TargetInfo } from './result.js';
import type { TransportKind } from '../transport/types.js';
import { newRunResult } from './run-result.js';

/** What is known of a run before it starts: enough to report it when it breaks. */
export interface RunFrame {
  agentUrl: string;
  token: string;
  transports: TransportKind[];
  seed: string;
  command: string;
  suites: SuiteDef[];
  strict: boolean;
  budgetS?: number;
  startedAt: Date;
  target: TargetInfo;
}

/** One line naming an unexpected error, without a stack trace. */
export function causeOf(e: unknown): string {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return cutText(text, LIMITS.message);
}

/** A run that ended in a harness error: the checks finished so far (the last result of each check × transport). */
export function errorRun(frame: RunFrame, cause: string, finished: readonly CheckResult[]): RunResult {
  const known = new Set(frame.suites.flatMap((s) => s.checks.map((c) => `${s.id}\0${c.id}`)));
  const byKey = new Map<string, CheckResult>();
  for (const c of finished)
    if (known.has(`${c.suite_id}\0${c.check_id}`) && frame.transports.includes(c.transport)) byKey.set(`${c.check_id}\0${c.transport}`, c);
  const checks = [...byKey.values()];
  const suites = frame.suites.filter((s) => checks.some((c) => c.suite_id === s.id));
  const coverage = coverageOf(checks, frame.transports, frame.budgetS);
  coverage.complete = false;
  coverage.reasons.push(`the harness broke: ${cause}`);
  const planned = frame.suites.reduce((n, s) => n + s.checks.length, 0) * frame.transports.length;
  return boundRun(
    newRunResult(frame, {
      suites,
      checks,
      transportInfo: [],
      status: 'error',
      coverage,
      lifecycleStage: 'production',
      headline: `harness error: ${cause} (${checks.length} of ${planned} check runs finished; they are in the report)`,
      harnessError: cause,
      selection: { suites: suites.map((s) => s.id), budget_s: frame.budgetS, strict: frame.strict },
    }),
  );
}
