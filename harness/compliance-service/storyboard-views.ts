/**
 * The bodies of the storyboard operations (digest 6.3): a run of one storyboard as phases of
 * steps (a compiled storyboard's phases and steps; a suite's checks, one phase), each step on
 * each transport (`<step>@<transport>`), its status entry, summary, diagnostics and observations;
 * two runs side by side for a comparison.
 */
import { isFailing, type CheckResult, type RunResult } from '../core/engine/result.js';
import { toComplianceDetail } from '../../reports/compliance-detail.js';
import { diagnosticsOf, MAX_DIAGNOSTICS } from './diagnostics.js';
import type { CatalogStoryboard, StoryboardCatalog } from './storyboard-catalog.js';
import type { AgentRow } from './types.js';

export interface StepView {
  /** `<step_id>@<transport>`: one step on one transport. */
  id: string;
  /** A compiled storyboard's step id (`….advisory` for its advisory validations), or a suite's check id. */
  step_id: string;
  transport: string;
  title: string;
  task: string | null;
  outcome: CheckResult['outcome'];
  passed: boolean;
  message: string;
  duration_ms: number;
  blocked_by?: string;
}

export interface PhaseView {
  id: string;
  title: string;
  steps: StepView[];
}

const passedOutcome = (c: CheckResult, strict: boolean) => (c.outcome === 'pass' || c.outcome === 'warn' || c.outcome === 'info') && !isFailing(c, strict);

/** The step id a check result stands for. */
export function stepIdOf(c: Pick<CheckResult, 'check_id' | 'storyboard_step'>): string {
  const s = c.storyboard_step;
  if (!s) return c.check_id;
  return s.advisory ? `${s.step_id}.advisory` : s.step_id;
}

/** A suite check's task: the task its first call step makes. */
function taskOfCheck(e: CatalogStoryboard, checkId: string): string | null {
  const step = e.suite.checks.find((c) => c.id === checkId)?.steps.find((s) => typeof s.task === 'string');
  return step ? String(step.task) : null;
}

/** The results of the storyboard's own checks (a run also runs the setup checks it builds on). */
export function ownChecks(e: CatalogStoryboard, run: RunResult): CheckResult[] {
  return run.checks.filter((c) => c.suite_id === e.suite.id);
}

export function phasesOf(e: CatalogStoryboard, run: RunResult): PhaseView[] {
  const strict = run.selection?.strict ?? false;
  const checks = ownChecks(e, run);
  const titles = new Map<string, string>([['prerequisites', 'Prerequisites']]);
  for (const p of e.storyboard?.phases ?? []) titles.set(p.id, p.title ?? p.id);
  const stepTitles = new Map((e.storyboard?.phases ?? []).flatMap((p) => p.steps.map((s) => [s.id, s.title ?? s.id] as const)));
  const phases = new Map<string, PhaseView>();
  for (const c of checks) {
    const phaseId = c.storyboard_step?.phase_id ?? e.suite.id;
    if (!phases.has(phaseId)) phases.set(phaseId, { id: phaseId, title: titles.get(phaseId) ?? e.title, steps: [] });
    const stepId = stepIdOf(c);
    phases.get(phaseId)!.steps.push({
      id: `${stepId}@${c.transport}`,
      step_id: stepId,
      transport: c.transport,
      title: (c.storyboard_step && stepTitles.get(c.storyboard_step.step_id)) ?? c.title,
      task: c.storyboard_step?.task ?? taskOfCheck(e, c.check_id),
      outcome: c.outcome,
      passed: passedOutcome(c, strict),
      message: c.message,
      duration_ms: Math.round(c.duration_ms),
      ...(c.blocked_by ? { blocked_by: c.blocked_by } : {}),
    });
  }
  // The storyboard's own phase order.
  const order = ['prerequisites', ...(e.storyboard?.phases.map((p) => p.id) ?? [])];
  return [...phases.values()].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
}

/** Steps passed, failed and skipped (not applicable, gaps, blocked) of the storyboard's own checks. */
export function summaryOf(e: CatalogStoryboard, run: RunResult): Record<string, number> {
  const strict = run.selection?.strict ?? false;
  const checks = ownChecks(e, run);
  const passed = checks.filter((c) => passedOutcome(c, strict)).length;
  const failed = checks.filter((c) => isFailing(c, strict) || c.outcome === 'error').length;
  return {
    total_steps: checks.length,
    steps_passed: passed,
    steps_failed: failed,
    steps_skipped: checks.length - passed - failed,
    steps_blocked: checks.filter((c) => c.outcome === 'blocked').length,
  };
}

/** The storyboard's status entry as the compliance detail has it (digest 6.3), `untested` when nothing of it applied. */
export function storyboardStatusOf(e: CatalogStoryboard, run: RunResult, catalog: StoryboardCatalog, owner: boolean): Record<string, unknown> {
  const id = e.suite.storyboard_id ?? e.suite.id;
  const found = toComplianceDetail(run).storyboard_statuses.find((s) => s.storyboard_id === id);
  const checks = ownChecks(e, run);
  const entry: Record<string, unknown> = found
    ? { ...found }
    : {
        storyboard_id: id,
        title: e.title,
        track: e.track,
        status: 'untested',
        steps_passed: 0,
        steps_total: checks.length,
        failure_count: 0,
        skipped_count: checks.length,
        last_tested_at: run.finished_at,
      };
  if (!owner) for (const k of Object.keys(entry)) if (k.startsWith('first_fail')) delete entry[k];
  return { ...entry, category: e.category, requested_compliance_target: catalog.target, proto_version: catalog.protoVersion };
}

/** The run's step diagnostics of this storyboard (digest 6.3's fields of the run answer). */
export function storyboardDiagnostics(e: CatalogStoryboard, run: RunResult, runId: number | undefined): Record<string, unknown>[] {
  const id = e.suite.storyboard_id ?? e.suite.id;
  const own = new Set(ownChecks(e, run).map((c) => `${stepIdOf(c)}\0${c.transport}`));
  return diagnosticsOf(run, runId ?? 0, MAX_DIAGNOSTICS)
    .filter((d) => d.storyboard_id === id || own.has(`${String(d.step_id)}\0${String(d.transport)}`))
    .map((d) => ({
      run_id: runId === undefined ? null : String(runId),
      agent_url: d.agent_url,
      storyboard_id: d.storyboard_id,
      phase_id: d.phase_id,
      step_id: d.step_id,
      transport: d.transport,
      task: d.task,
      outcome: d.outcome,
      response_status: d.response_status,
      error_text: d.error_text,
      failed_validations_jsonb: d.failed_validations_jsonb,
      proto_error_jsonb: d.proto_error_jsonb,
    }));
}

export function observationsOf(e: CatalogStoryboard, run: RunResult): Record<string, unknown>[] {
  return ownChecks(e, run)
    .filter((c) => c.outcome === 'warn')
    .map((c) => ({ category: c.suite_id, severity: 'warning', message: `${stepIdOf(c)} (${c.transport}): ${c.message}` }));
}

/** What the run learnt of an agent: its transports, what each declared, its lifecycle stage. */
export function profileOf(run: RunResult): Record<string, unknown> {
  return {
    lifecycle_stage: run.lifecycle_stage,
    transports: run.transport_info.map((t) => ({
      transport: t.transport,
      endpoint: t.endpoint,
      reachable: t.reachable,
      auth_required: t.auth_required,
      ...(t.server ? { server: t.server } : {}),
      declared_tasks: t.declared_tasks ?? [],
      ...(t.problem ? { problem: t.problem } : {}),
    })),
    ...(run.target.agent_declared ? { declared_versions: run.target.agent_declared } : {}),
  };
}

/** The agent's badge standing: earned by full runs only, so a storyboard run or a comparison leaves it as it was. */
export function badgeOf(agent: AgentRow, catalog: StoryboardCatalog): { badge_eligible: boolean; badge_eligible_proto_versions: string[] } {
  const eligible = agent.status === 'passing' && !agent.optOut && !agent.requalificationRequired;
  return { badge_eligible: eligible, badge_eligible_proto_versions: eligible ? [catalog.target] : [] };
}

export function storyboardHead(e: CatalogStoryboard): Record<string, unknown> {
  return { id: e.id, title: e.title, category: e.category, ...(e.narrative ? { narrative: e.narrative } : {}) };
}

/** `POST …/storyboard/{sid}/run`'s answer. */
export function storyboardRunBody(o: {
  entry: CatalogStoryboard;
  catalog: StoryboardCatalog;
  agent: AgentRow;
  runId: number;
  run: RunResult;
}): Record<string, unknown> {
  const { entry: e, catalog, run } = o;
  return {
    storyboard: storyboardHead(e),
    agent: { url: o.agent.url, profile: profileOf(run) },
    proto_version: catalog.protoVersion,
    requested_compliance_target: catalog.target,
    ...badgeOf(o.agent, catalog),
    run_id: String(o.runId),
    storyboard_status: storyboardStatusOf(e, run, catalog, true),
    phases: phasesOf(e, run),
    summary: summaryOf(e, run),
    diagnostics: storyboardDiagnostics(e, run, o.runId),
    observations: observationsOf(e, run),
    total_duration_ms: Math.round(run.duration_ms),
    test_kit: e.testKit,
  };
}

const sideOf = (s: StepView | undefined) =>
  s
    ? { outcome: s.outcome, passed: s.passed, message: s.message, duration_ms: s.duration_ms, ...(s.blocked_by ? { blocked_by: s.blocked_by } : {}) }
    : { outcome: 'absent', passed: false, message: 'not run on this agent (a transport it is not registered with)', duration_ms: 0 };

/** The two runs of one storyboard side by side, step by step (`same`: the same outcome on both). */
export function comparePhases(e: CatalogStoryboard, user: RunResult, reference: RunResult): Array<Record<string, unknown>> {
  const u = phasesOf(e, user);
  const r = phasesOf(e, reference);
  const ids = [...new Set([...u.map((p) => p.id), ...r.map((p) => p.id)])];
  return ids.map((id) => {
    const up = u.find((p) => p.id === id);
    const rp = r.find((p) => p.id === id);
    const us = new Map((up?.steps ?? []).map((s) => [s.id, s]));
    const rs = new Map((rp?.steps ?? []).map((s) => [s.id, s]));
    const stepIds = [...new Set([...us.keys(), ...rs.keys()])];
    return {
      id,
      title: (up ?? rp)!.title,
      steps: stepIds.map((sid) => {
        const a = us.get(sid);
        const b = rs.get(sid);
        const any = (a ?? b)!;
        return {
          id: sid,
          step_id: any.step_id,
          transport: any.transport,
          title: any.title,
          task: any.task,
          user: sideOf(a),
          reference: sideOf(b),
          same: !!a && !!b && a.outcome === b.outcome,
        };
      }),
    };
  });
}
