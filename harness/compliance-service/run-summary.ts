/** What the registry keeps of a run besides the report: failing check ids, declared tasks, why it could not reach the agent. */
import { isFailing, type RunResult } from '../core/engine/result.js';
import { toComplianceDetail } from '../../reports/compliance-detail.js';
import type { RunSummary } from './types.js';
import { outcomesOf } from '../core/engine/run-diff.js';

/** Check ids that fail the run (either transport), sorted. */
export function failingChecksOf(run: RunResult): string[] {
  const strict = run.selection?.strict ?? false;
  return [...new Set(run.checks.filter((c) => isFailing(c, strict)).map((c) => c.check_id))].sort();
}

/** The failing checks that are their own root cause (not another check's defect showing again), sorted. */
export function rootFailingChecksOf(run: RunResult): string[] {
  const strict = run.selection?.strict ?? false;
  return [...new Set(run.checks.filter((c) => isFailing(c, strict) && (c.root_cause ?? c.check_id) === c.check_id).map((c) => c.check_id))].sort();
}

/** Every task the agent listed on any transport, sorted. */
export function declaredTasksOf(run: RunResult): string[] {
  return [...new Set(run.transport_info.flatMap((t) => t.declared_tasks ?? []))].sort();
}

/** The run never reached a verdict on the agent: unreachable, auth required, or a harness error. */
export function unreached(run: RunResult): boolean {
  return run.overall_status === 'unreachable' || run.overall_status === 'error';
}

/** Why the run could not get at the agent (transport problems, the harness error), or undefined. */
export function problemOf(run: RunResult): string | undefined {
  if (!unreached(run) && run.overall_status !== 'auth_required') return undefined;
  const problems = run.transport_info.map((t) => t.problem).filter((p): p is string => !!p);
  if (run.harness_error) problems.push(run.harness_error);
  return problems.length ? problems.join('; ') : run.headline;
}

/** The version a run tested: its released schema set's, else its target line. */
export const protoVersionOf = (run: RunResult): string => run.target.response_schemas?.released_set?.version ?? run.target.requested_compliance_target;

export function runSummaryOf(run: RunResult): RunSummary {
  return {
    requested_compliance_target: run.target.requested_compliance_target,
    proto_version: protoVersionOf(run),
    tracks: toComplianceDetail(run).tracks,
    outcomes: outcomesOf(run),
    strict: run.selection?.strict ?? false,
  };
}
