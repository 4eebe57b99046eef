/**
 * One verdict per storyboard step from each runner's JSON, in one vocabulary (docs/interop.md,
 * "Storyboards side by side"), keyed `<storyboard>/<step>` (step ids are unique within a
 * storyboard; a storyboard id may hold a slash, a step id never does). Controller seeding is the
 * row `<storyboard>/controller-seeding`: our one check, the reference runner's
 * `__controller_seeding__` phase (one step per fixture; failed when any failed).
 *
 * The reference runner's CLI JSON (ComplianceResult) names a step by its phase
 * (`scenario: "<storyboard>/<phase>"`) and its title, in the storyboard's order, so a step id is
 * found in the bundle; a storyboard skipped as a whole is one synthetic phase (`missing_tool`,
 * `not_applicable`, ...) that is no phase of the storyboard. Storyboards of tracks the JSON has no
 * row for (`security`, `security_transport`) appear only in `failures` (with their step ids): their
 * other steps are `unreported`. A storyboard it did not select is absent: `not run`.
 */
import type { AgentComplianceDocument } from '../../../reports/json.js';
import { idPart, stepCheckId } from '../../../harness/core/storyboards/compile.js';
import type { StoryboardBundle } from '../../../harness/core/storyboards/model.js';
import { seedsFixtures } from '../../../harness/core/storyboards/seeding.js';

/** What a verdict means, on either side. Two verdicts agree when their classes are equal. */
export type VerdictClass = 'passed' | 'failed' | 'blocked' | 'not_applicable' | 'not_verified' | 'error' | 'unreported';

export interface Verdict {
  /** As the runner said it. */
  shown: string;
  cls: VerdictClass;
}

export const SEEDING_STEP = 'controller-seeding';

/** The rows of a bundle: every step of every storyboard, in the bundle's order, a seeding row first where either runner may seed. */
export function bundleRows(bundle: StoryboardBundle): Array<{ key: string; storyboard: string; phase: string; step: string }> {
  const rows: Array<{ key: string; storyboard: string; phase: string; step: string }> = [];
  for (const sb of bundle.storyboards.values()) {
    if (seedsFixtures(sb) || (sb.raw.fixtures && typeof sb.raw.fixtures === 'object'))
      rows.push({ key: `${sb.id}/${SEEDING_STEP}`, storyboard: sb.id, phase: '', step: SEEDING_STEP });
    for (const phase of sb.phases) for (const step of phase.steps) rows.push({ key: `${sb.id}/${step.id}`, storyboard: sb.id, phase: phase.id, step: step.id });
  }
  return rows;
}

// ---- the reference runner (@adcp/sdk `adcp storyboard run --json`) ----

export interface ReferenceStep {
  step: string;
  task?: string;
  passed: boolean;
  skipped?: boolean;
  skip_reason?: string;
  error?: string;
}

/** The members of the reference runner's ComplianceResult read here. */
export interface ReferenceResult {
  tracks: Array<{ track: string; scenarios: Array<{ scenario: string; steps: ReferenceStep[] }> }>;
  failures?: Array<{ storyboard_id: string; step_id: string }>;
  storyboards_executed: string[];
  summary?: { total_steps?: number };
  total_duration_ms?: number;
}

/**
 * A reference skip reason's class, from the meaning of each (runner-output-contract `skip_result`
 * and the runner's detailed reasons): not applicable to this agent; blocked by a failure before it;
 * or not verified because the runner lacked something (a controller, a contract, an opt-in).
 */
const SKIP_CLASS: Record<string, VerdictClass> = {
  not_applicable: 'not_applicable',
  no_phases: 'not_applicable',
  missing_tool: 'not_applicable',
  peer_branch_taken: 'not_applicable',
  peer_substituted: 'not_applicable',
  capability_unsupported: 'not_applicable',
  oauth_not_advertised: 'not_applicable',
  probe_skipped: 'not_applicable',
  grader_skipped: 'not_applicable',
  not_in_only_vectors: 'not_applicable',
  mcp_mode_flattens_url_edges: 'not_applicable',
  prerequisite_failed: 'blocked',
  controller_seeding_failed: 'blocked',
  missing_test_controller: 'not_verified',
  unsatisfied_contract: 'not_verified',
  missing_test_kit_contract: 'not_verified',
  rate_abuse_opt_out: 'not_verified',
  live_side_effect_opt_in_required: 'not_verified',
  operator_skip: 'not_verified',
  fixture_unavailable: 'not_verified',
  fixture_unsatisfied: 'not_verified',
  requirement_unmet: 'not_verified',
};

const classOf = (reason: string, step: string): VerdictClass => {
  const cls = SKIP_CLASS[reason];
  if (!cls) throw new Error(`reference runner: unknown skip reason ${reason} (step "${step}"): give it a class in storyboard-verdicts.ts`);
  return cls;
};

/** `prerequisite_failed` after a stateful step that was itself skipped, not failed: the runner's "state never materialized". */
const AFTER_SKIP = /prior stateful step "[^"]+" skipped \((\w+)\)/;

function referenceVerdict(s: ReferenceStep): Verdict {
  if (!s.skipped) return s.passed ? { shown: 'passed', cls: 'passed' } : { shown: 'failed', cls: 'failed' };
  const reason = s.skip_reason ?? '(no reason)';
  // Nothing failed before it: the step takes the class of the skip it follows (not applicable, not verified).
  const after = reason === 'prerequisite_failed' ? AFTER_SKIP.exec(s.error ?? '')?.[1] : undefined;
  if (after) return { shown: `skipped: ${reason} (after ${after})`, cls: classOf(after, s.step) };
  return { shown: `skipped: ${reason}`, cls: classOf(reason, s.step) };
}

const NOT_RUN: Verdict = { shown: 'not run', cls: 'not_applicable' };
const UNREPORTED: Verdict = { shown: 'unreported', cls: 'unreported' };

/** The reference runner's verdict of every row of the bundle. */
export function referenceVerdicts(result: ReferenceResult, bundle: StoryboardBundle): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  const seeding = new Map<string, Verdict>();
  const reported = new Set<string>();
  for (const track of result.tracks)
    for (const scenario of track.scenarios) {
      const cut = scenario.scenario.lastIndexOf('/');
      const sbId = scenario.scenario.slice(0, cut);
      const phaseId = scenario.scenario.slice(cut + 1);
      const sb = bundle.storyboards.get(sbId);
      if (!sb) throw new Error(`reference runner: storyboard ${sbId} is not in the bundle`);
      reported.add(sbId);
      if (phaseId === '__controller_seeding__') {
        // The first failure, else the first skip, else passed.
        const failed = scenario.steps.find((s) => !s.skipped && !s.passed) ?? scenario.steps.find((s) => s.skipped);
        seeding.set(sbId, failed ? referenceVerdict(failed) : { shown: 'passed', cls: 'passed' });
        continue;
      }
      const phase = sb.phases.find((p) => p.id === phaseId);
      if (!phase) {
        // The whole storyboard skipped: one synthetic phase and step.
        const v = referenceVerdict(scenario.steps[0]);
        for (const p of sb.phases) for (const st of p.steps) verdicts.set(`${sbId}/${st.id}`, v);
        continue;
      }
      scenario.steps.forEach((s, i) => {
        const byTitle = (t?: string) => t !== undefined && t === s.step;
        const step = byTitle(phase.steps[i]?.title) ? phase.steps[i] : phase.steps.find((st) => byTitle(st.title));
        if (!step) throw new Error(`reference runner: step "${s.step}" is no step of ${sbId} phase ${phaseId}`);
        verdicts.set(`${sbId}/${step.id}`, referenceVerdict(s));
      });
    }
  for (const [sbId, v] of seeding) verdicts.set(`${sbId}/${SEEDING_STEP}`, v);
  // Executed, but in a track the JSON has no row for: only its failures are known.
  const failed = new Set((result.failures ?? []).map((f) => `${f.storyboard_id}/${f.step_id}`));
  for (const sbId of result.storyboards_executed) {
    if (reported.has(sbId)) continue;
    const sb = bundle.storyboards.get(sbId);
    if (!sb) throw new Error(`reference runner: storyboard ${sbId} is not in the bundle`);
    for (const p of sb.phases)
      for (const st of p.steps) verdicts.set(`${sbId}/${st.id}`, failed.has(`${sbId}/${st.id}`) ? { shown: 'failed', cls: 'failed' } : UNREPORTED);
  }
  for (const row of bundleRows(bundle)) if (!verdicts.has(row.key)) verdicts.set(row.key, NOT_RUN);
  return verdicts;
}

// ---- proto-comply (`run --storyboards --json`, the agent-compliance document) ----

const OUR_CLASS: Record<string, VerdictClass> = {
  pass: 'passed',
  fail: 'failed',
  warn: 'failed',
  info: 'failed',
  blocked: 'blocked',
  not_applicable: 'not_applicable',
  gap: 'not_verified',
  error: 'error',
};

/** Our verdict of every row of the bundle over one transport (the step's own check; its `.advisory` check is not compared). */
export function ourVerdicts(doc: Pick<AgentComplianceDocument, 'checks'>, bundle: StoryboardBundle, transport: string): Map<string, Verdict> {
  const outcomes = new Map(doc.checks.filter((c) => c.transport === transport).map((c) => [c.check_id, c.outcome] as const));
  const verdicts = new Map<string, Verdict>();
  for (const row of bundleRows(bundle)) {
    const id = row.step === SEEDING_STEP ? `storyboard.${idPart(row.storyboard)}.${SEEDING_STEP}` : stepCheckId(row.storyboard, row.phase, row.step);
    const outcome = outcomes.get(id);
    if (outcome) verdicts.set(row.key, { shown: outcome, cls: OUR_CLASS[outcome] ?? 'error' });
  }
  return verdicts;
}
