/**
 * An agent's `AgentComplianceDetail` as the registry serves it (digest 6.3): the latest report's
 * projection (reports/compliance-detail.ts) joined with what the registry knows of the agent (its
 * standing, its owner's settings) and cut to what the caller may see:
 * - an opted-out agent gets the minimal response (status `opted_out`);
 * - the first-failure fields of each storyboard status, the notices' and observations' detail and
 *   `verdict_source` only for its owner (or the operator).
 * Our own additions (previous status, failing check ids, the last run, the next probe) stay.
 */
import { type ComplianceDetail, toComplianceDetail } from '../../reports/compliance-detail.js';
import type { RunResult } from '../core/engine/result.js';
import { streakDays } from './standing.js';
import { type AgentRow, type RunRow, STORYBOARD_RUN } from './types.js';

export const MAX_NOTICES = 50;
const FIRST_FAILURE_FIELDS = [
  'first_failed_step_id',
  'first_failed_step_title',
  'first_failed_step_task',
  'first_failure_message',
  'first_failure_validations',
];

export interface DetailInput {
  agent: AgentRow;
  report: RunResult | undefined;
  /** The agent's latest runs, newest first. */
  recent: RunRow[];
  owner: boolean;
  now: number;
  serviceIntervalMs: number;
}

/** What a run found that the owner should read though it fails nothing: notices (about the run) and observations (SHOULD-level warnings). */
function noticesOf(run: RunResult): { notices: Record<string, unknown>[]; observations: Record<string, unknown>[] } {
  const notices: Record<string, unknown>[] = [];
  if (run.target.agent_lacks_target)
    notices.push({
      severity: 'warning',
      code: 'target_not_declared',
      message: `the agent does not declare ${run.target.requested_compliance_target} among its supported versions; it was judged by that line's rules`,
      effective_version: run.target.requested_compliance_target,
    });
  for (const reason of run.coverage.reasons) notices.push({ severity: 'info', code: 'coverage_incomplete', message: reason });
  const observations = run.checks
    .filter((c) => c.outcome === 'warn')
    .map((c) => ({ category: c.suite_id, severity: 'warning', message: `${c.check_id} (${c.transport}): ${c.message}` }));
  return { notices: notices.slice(0, MAX_NOTICES), observations: observations.slice(0, MAX_NOTICES) };
}

export function complianceDetailView(i: DetailInput): Record<string, unknown> {
  const { agent, report } = i;
  if (agent.optOut) return { agent_url: agent.url, status: 'opted_out', lifecycle_stage: agent.lifecycleStage ?? 'production', compliance_opt_out: true };
  const last = i.recent[0];
  // A run of one storyboard (STORYBOARD_RUN) is in the history but says nothing of the agent as a whole.
  const lastDone = i.recent.find((r) => r.state === 'done' && r.triggeredBy !== STORYBOARD_RUN);
  const base: Partial<ComplianceDetail> & Record<string, unknown> = report
    ? { ...toComplianceDetail(report), ...noticesOf(report) }
    : {
        lifecycle_stage: 'production',
        headline: agent.problem ?? 'not probed yet',
        tracks: {},
        track_details: [],
        storyboards_passing: 0,
        storyboards_total: 0,
        storyboard_statuses: [],
        notices: [],
        observations: [],
      };
  const statuses = (base.storyboard_statuses ?? []).map((s) =>
    i.owner ? s : Object.fromEntries(Object.entries(s).filter(([k]) => !FIRST_FAILURE_FIELDS.includes(k))),
  );
  return {
    ...base,
    storyboard_statuses: statuses,
    agent_url: agent.url,
    status: agent.status,
    lifecycle_stage: agent.lifecycleStage ?? base.lifecycle_stage ?? 'production',
    ...(report ? { proto_version: report.target.response_schemas?.released_set?.version ?? report.target.requested_compliance_target } : {}),
    compliance_opt_out: false,
    badge_requalification_required: agent.requalificationRequired,
    streak_days: streakDays(agent.passingSince, i.now),
    ...(agent.lastPassedAt ? { last_passed_at: agent.lastPassedAt } : {}),
    ...(agent.lastFailedAt ? { last_failed_at: agent.lastFailedAt } : {}),
    check_interval_hours: agent.checkIntervalHours ?? i.serviceIntervalMs / 3_600_000,
    ...(i.owner && lastDone ? { verdict_source: lastDone.triggeredBy === 'refresh' ? 'owner_test' : 'heartbeat' } : {}),
    ...(agent.previousStatus ? { previous_status: agent.previousStatus } : {}),
    ...(agent.statusChangedAt ? { status_changed_at: agent.statusChangedAt } : {}),
    ...(agent.lastCheckedAt ? { last_checked_at: agent.lastCheckedAt } : {}),
    ...(last ? { last_run: { id: last.id, state: last.state, started_at: last.startedAt, overall_status: last.overallStatus ?? null } } : {}),
    failing_checks: lastDone?.failingChecks ?? [],
    ...(agent.problem ? { problem: agent.problem } : {}),
    monitoring_paused: agent.monitoringPaused,
    next_probe_at: agent.monitoringPaused ? null : new Date(agent.nextDueAt).toISOString(),
    probing: agent.runningRunId !== undefined,
  };
}
