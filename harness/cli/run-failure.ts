/**
 * When the harness itself breaks around a run (a throw escaping certify, a report that cannot be
 * rendered, an unhandled rejection), the run still ends as a report: status `error`, the cause in
 * one line, every check finished so far, exit 5, never a stack trace on the console.
 */
import { join } from 'node:path';
import { boundRun, cutText, LIMITS } from '../core/engine/bound.js';
import { countOutcomes, coverageOf, summarizeSuites } from '../core/engine/summarize.js';
import type { SuiteDef } from '../core/engine/model.js';
import type { CheckResult, RunResult } from '../core/engine/result.js';
import type { TransportKind } from '../core/transport/types.js';
import { runEnvelope } from '../core/engine/run-envelope.js';
import { withRootCauses } from '../core/engine/root-cause.js';
import type { TargetInfo } from '../core/engine/result.js';
import { writeReports } from '../../reports/index.js';
import { AGENT_COMPLIANCE_FILE } from '../../reports/json.js';
import { writeFileAtomic } from '../../reports/fs.js';

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
  const checks = withRootCauses([...byKey.values()], frame.suites);
  const suites = frame.suites.filter((s) => checks.some((c) => c.suite_id === s.id));
  const coverage = coverageOf(checks, frame.transports, frame.budgetS);
  coverage.complete = false;
  coverage.reasons.push(`the harness broke: ${cause}`);
  const planned = frame.suites.reduce((n, s) => n + s.checks.length, 0) * frame.transports.length;
  return boundRun({
    ...runEnvelope(frame),
    transport_info: [],
    overall_status: 'error',
    coverage,
    lifecycle_stage: 'production',
    headline: `harness error: ${cause} (${checks.length} of ${planned} check runs finished; they are in the report)`,
    selection: { suites: suites.map((s) => s.id), budget_s: frame.budgetS, strict: frame.strict },
    counts: countOutcomes(checks),
    suites: summarizeSuites(suites, checks, frame.transports, frame.strict),
    checks,
    harness_error: cause,
  });
}

/**
 * Write the reports; when that breaks, write an error report in their place (the run's checks
 * without their evidence), and as a last resort a bare JSON document naming the cause.
 * Returns the paths written and the run that was written.
 */
export async function writeReportsSafely(
  run: RunResult,
  frame: RunFrame,
  options: { dir: string; allureDir?: string },
): Promise<{ written: string[]; run: RunResult; writeError?: string }> {
  try {
    return { written: await writeReports(run, options), run };
  } catch (e) {
    const cause = `the reports could not be written: ${causeOf(e)}`;
    const bare = run.checks.map((c) => ({
      ...c,
      evidence: c.evidence ? { exchanges: [], notes: ['evidence not kept: the report could not be rendered with it'] } : undefined,
    }));
    const fallback = errorRun(frame, cause, bare);
    try {
      return { written: await writeReports(fallback, options), run: fallback, writeError: cause };
    } catch (e2) {
      const path = join(options.dir, AGENT_COMPLIANCE_FILE);
      const minimal = {
        overall_status: 'error',
        harness_error: `${cause}; then: ${causeOf(e2)}`,
        agent_url: frame.agentUrl,
        seed: frame.seed,
        command: frame.command,
      };
      await writeFileAtomic(path, `${JSON.stringify(minimal, null, 2)}\n`).catch(() => undefined);
      return { written: [path], run: fallback, writeError: minimal.harness_error };
    }
  }
}
