/**
 * Projection of a RunResult onto the registry's `AgentComplianceDetail` (digest 6.3), so a
 * registry can store a run directly as an agent's compliance detail.
 *
 * Mapping (one run, so every timestamp is the run's finish time):
 * - registry status: passing/degraded/failing as is; unreachable and auth_required → unknown.
 * - a track is a suite, or the suites that name it as their `track` (storyboards compiled by
 *   `run --storyboards` carry their own); track status uses the registry's track vocabulary
 *   (compliance-db: pass | fail | partial | skip): passing → pass, failing → fail,
 *   partial → partial, not_applicable and untested → skip; a track of several suites is the
 *   worst of them (fail, then partial, then pass), skip only when all are.
 * - a storyboard is a suite too (named by the storyboard's own id when it was compiled from one),
 *   and its steps are the suite's check × transport results; its first failed step is named by
 *   the step's own id and task when it was compiled from a storyboard, else by the check id.
 *   Suites that are not applicable are not storyboards of this agent (left out of
 *   `storyboard_statuses` and `storyboards_total`); untested ones are kept as `untested`.
 * - a step fails when it fails the run (`isFailing`, honouring --strict); it is skipped when it
 *   was not run, not applicable, or not testable without failing the run; otherwise it passed.
 */
import { isFailing, VERIFIED_OUTCOMES } from '../harness/core/engine/result.js';
import type { CheckResult, OverallStatus, RunResult, SuiteResult, SuiteStatus } from '../harness/core/engine/result.js';
import type { ProtocolLine } from '../harness/core/protocol/lines.js';
import type { LifecycleStage } from '../harness/core/engine/lifecycle.js';

export type RegistryComplianceStatus = 'passing' | 'degraded' | 'failing' | 'unknown';
export type RegistryTrackStatus = 'pass' | 'fail' | 'partial' | 'skip';
export type RegistryStoryboardStatus = 'passing' | 'failing' | 'partial' | 'untested';

export interface TrackDetail {
  track: string;
  status: RegistryTrackStatus;
  scenario_count: number;
  passed_count: number;
  duration_ms: number;
  /** Some checks of the track were coverage gaps (the agent lacks an optional feature they need). */
  has_coverage_gap_skip?: boolean;
}

export interface StoryboardStatusEntry {
  storyboard_id: string;
  title: string;
  /** Null for a storyboard its bundle puts in no track (the registry's `track: string | null`). */
  track: string | null;
  status: RegistryStoryboardStatus;
  steps_passed: number;
  steps_total: number;
  failure_count: number;
  skipped_count: number;
  first_failed_step_id?: string;
  /** A storyboard's first failed step: the task it calls. */
  first_failed_step_task?: string;
  first_failure_message?: string;
  last_tested_at: string;
}

export interface ComplianceDetail {
  agent_url: string;
  status: RegistryComplianceStatus;
  lifecycle_stage: LifecycleStage;
  /** The protocol line the run judged against (digest 6.3). */
  requested_compliance_target: ProtocolLine;
  headline: string;
  last_checked_at: string;
  tracks: Record<string, RegistryTrackStatus>;
  track_details: TrackDetail[];
  storyboards_passing: number;
  storyboards_total: number;
  storyboard_statuses: StoryboardStatusEntry[];
}

/** Run status → registry status (digest 6.3: a `partial` run maps to `degraded`). */
export function registryStatus(status: OverallStatus): RegistryComplianceStatus {
  switch (status) {
    case 'passing':
    case 'failing':
      return status;
    case 'partial':
      return 'degraded';
    case 'error':
    case 'unreachable':
    case 'auth_required':
      return 'unknown';
  }
}

export function trackStatus(status: SuiteStatus): RegistryTrackStatus {
  switch (status) {
    case 'passing':
      return 'pass';
    case 'failing':
      return 'fail';
    case 'partial':
      return 'partial';
    case 'not_applicable':
    case 'untested':
      return 'skip';
  }
}

function storyboardStatus(status: Exclude<SuiteStatus, 'not_applicable'>): RegistryStoryboardStatus {
  return status;
}

interface StepTally {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  duration_ms: number;
  firstFailure?: CheckResult;
}

function tallySteps(checks: CheckResult[], strict: boolean): StepTally {
  const tally: StepTally = { total: 0, passed: 0, failed: 0, skipped: 0, duration_ms: 0 };
  for (const check of checks) {
    tally.total += 1;
    tally.duration_ms += check.duration_ms;
    if (isFailing(check, strict)) {
      tally.failed += 1;
      tally.firstFailure ??= check;
    } else if (!VERIFIED_OUTCOMES.has(check.outcome)) {
      tally.skipped += 1;
    } else {
      tally.passed += 1;
    }
  }
  return tally;
}

function storyboardEntry(suite: SuiteResult, checks: CheckResult[], tally: StepTally, run: RunResult): StoryboardStatusEntry {
  const status = suite.status === 'not_applicable' ? 'untested' : storyboardStatus(suite.status);
  const entry: StoryboardStatusEntry = {
    storyboard_id: suite.storyboard_id ?? suite.suite_id,
    title: suite.title,
    track: trackOf(suite),
    status,
    steps_passed: tally.passed,
    steps_total: tally.total,
    failure_count: tally.failed,
    skipped_count: tally.skipped,
    last_tested_at: run.finished_at,
  };
  const first = suite.first_failure ?? tally.firstFailure;
  if (first) {
    // A storyboard's step is named by its own id and task, as the registry does; a suite's check by its check id.
    const step = checks.find((c) => c.check_id === first.check_id && c.transport === first.transport)?.storyboard_step;
    entry.first_failed_step_id = step?.step_id ?? first.check_id;
    if (step) entry.first_failed_step_task = step.task;
    entry.first_failure_message = first.message;
  }
  return entry;
}

/** The track a suite counts in: its own, a built-in suite's id, none for a storyboard its bundle puts in no track. */
const trackOf = (suite: SuiteResult): string | null => suite.track ?? (suite.storyboard_id ? null : suite.suite_id);

/** The status of a track made of several suites: the worst of them; skip only when every one is. */
function worstTrackStatus(statuses: RegistryTrackStatus[]): RegistryTrackStatus {
  for (const s of ['fail', 'partial', 'pass'] as const) if (statuses.includes(s)) return s;
  return 'skip';
}

/** Pure: the registry's view of one run. */
export function toComplianceDetail(run: RunResult): ComplianceDetail {
  const strict = run.selection?.strict ?? false;
  const bySuite = new Map<string, CheckResult[]>();
  for (const check of run.checks) {
    const list = bySuite.get(check.suite_id) ?? [];
    list.push(check);
    bySuite.set(check.suite_id, list);
  }
  const byTrack = new Map<string, { statuses: RegistryTrackStatus[]; tally: StepTally; gap: boolean }>();
  const storyboards: StoryboardStatusEntry[] = [];
  for (const suite of run.suites) {
    const checks = bySuite.get(suite.suite_id) ?? [];
    const tally = tallySteps(checks, strict);
    const track = trackOf(suite);
    if (suite.status !== 'not_applicable') storyboards.push(storyboardEntry(suite, checks, tally, run));
    if (track === null) continue;
    const t = byTrack.get(track) ?? { statuses: [], tally: { total: 0, passed: 0, failed: 0, skipped: 0, duration_ms: 0 }, gap: false };
    t.statuses.push(trackStatus(suite.status));
    t.tally.total += tally.total;
    t.tally.passed += tally.passed;
    t.tally.duration_ms += tally.duration_ms;
    t.gap ||= checks.some((c) => c.outcome === 'gap');
    byTrack.set(track, t);
  }
  const tracks: Record<string, RegistryTrackStatus> = {};
  const trackDetails: TrackDetail[] = [];
  for (const [track, t] of byTrack) {
    const status = worstTrackStatus(t.statuses);
    tracks[track] = status;
    trackDetails.push({
      track,
      status,
      scenario_count: t.tally.total,
      passed_count: t.tally.passed,
      duration_ms: Math.round(t.tally.duration_ms),
      ...(t.gap ? { has_coverage_gap_skip: true } : {}),
    });
  }
  return {
    agent_url: run.agent_url,
    status: registryStatus(run.overall_status),
    lifecycle_stage: run.lifecycle_stage,
    requested_compliance_target: run.target.requested_compliance_target,
    headline: run.headline,
    last_checked_at: run.finished_at,
    tracks,
    track_details: trackDetails,
    storyboards_passing: storyboards.filter((s) => s.status === 'passing').length,
    storyboards_total: storyboards.length,
    storyboard_statuses: storyboards,
  };
}
