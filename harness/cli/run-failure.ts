/**
 * A run always ends as a report: when the reports cannot be written, an error report in their
 * place (core/engine/error-run.ts), and as a last resort a bare JSON document naming the cause;
 * exit 5, never a stack trace on the console.
 */
import { join } from 'node:path';
import type { RunResult } from '../core/engine/result.js';
import { causeOf, errorRun, type RunFrame } from '../core/engine/error-run.js';
import { type ReportFormat, writeReports } from '../../reports/index.js';
import { AGENT_COMPLIANCE_FILE } from '../../reports/json.js';
import { writeFileAtomic } from '../../reports/fs.js';

/**
 * Write the reports; when that breaks, write an error report in their place (the run's checks
 * without their evidence), and as a last resort a bare JSON document naming the cause.
 * Returns the paths written and the run that was written.
 */
export async function writeReportsSafely(
  run: RunResult,
  frame: RunFrame,
  options: { dir: string; allureDir?: string; formats?: readonly ReportFormat[] },
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
