/**
 * What one run of the storyboard step kind gives (step-kind.ts): the verdict, the step's record,
 * and what the step found, in the runner output contract's terms (engine/storyboard-step.ts):
 * each validation as judged, the reply, or why the step did not run (`skip`). The runner's own
 * checks (expect_error, unexpected_error, context_outputs, transport) are recorded beside the
 * authored ones.
 */
import type { CheckContext, StepRecord, StepVerdict } from '../engine/kinds/types.js';
import type { RunnerSkipReason, StoryboardStepFindings, ValidationRecord } from '../engine/storyboard-step.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import { judgeContribution } from './branch-sets.js';
import type { StoryboardStep } from './model.js';
import type { ChainBreak } from './stateful-chain.js';
import type { UnresolvedSubstitution } from './substitute.js';
import { judgeValidation, schemaText, type StepOutcome } from './validations.js';

export interface StepOutput {
  verdict: StepVerdict;
  record?: StepRecord;
  storyboard?: StoryboardStepFindings;
}

/** A step not run, with the contract's reason and detail (default the verdict's message). */
export const skipped = (
  verdict: Exclude<StepVerdict, { status: 'ok' }>,
  reason: RunnerSkipReason,
  detail = verdict.message,
  wholeStoryboard = false,
): StepOutput => ({
  verdict,
  storyboard: { skip: { reason, detail, ...(wholeStoryboard ? { whole_storyboard: true as const } : {}) } },
});

/**
 * A verdict given without findings (a test kit's phase skip, a credential or receiver the run
 * lacks, a webhook assertion, the seeding): a gap is an input the runner lacks
 * (`unsatisfied_contract`), a step that does not apply is `not_applicable`, and a failure is
 * recorded as the failed check `check` (the runner output fails a step only on a failed
 * validation). Findings already given are kept.
 */
export function withFindings(out: StepOutput, check: string): StepOutput {
  const v = out.verdict;
  if (v.status === 'failed' && !out.storyboard?.validations) {
    const failed = { ...runnerCheck(check, `the ${check} assertion holds`, v.message, v.expected, v.actual), ...(v.pointer ? { pointer: v.pointer } : {}) };
    return { ...out, storyboard: { ...out.storyboard, validations: [failed] } };
  }
  if (out.storyboard?.skip || out.storyboard?.validations || out.storyboard?.reply) return out;
  if (v.status === 'gap') return { ...out, storyboard: { ...out.storyboard, skip: { reason: 'unsatisfied_contract', detail: v.message } } };
  if (v.status === 'not_applicable') return { ...out, storyboard: { ...out.storyboard, skip: { reason: 'not_applicable', detail: v.message } } };
  return out;
}

/** What the agent declares, for a skip's detail (the contract asks not_applicable to cite it, missing_tool the tools it lists). */
export function declared(ctx: CheckContext): string {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String).join(', ') : '');
  const caps = ctx.profile.capabilities ?? {};
  return `the agent declares supported_protocols [${list(caps.supported_protocols)}], specialisms [${list(caps.specialisms)}]`;
}

/** A failed check of the runner's own (not authored), judged on the whole response. */
export function runnerCheck(check: string, description: string, message: string, expected: unknown, actual: unknown): ValidationRecord {
  return { check, outcome: 'failed', severity: 'required', description, message, expected, actual, pointer: '' };
}

/** The agent does not list the task or tool the step needs; the test controller has its own reason. */
export function missingTool(task: string, ctx: CheckContext): StepOutput {
  const verdict = { status: 'not_applicable' as const, message: `missing_tool: the agent does not list ${task}` };
  const detail = `the step calls ${task}, which the agent does not list; it lists ${ctx.profile.tasks.join(', ')}`;
  return skipped(verdict, task === CONTROLLER_TASK ? 'missing_test_controller' : 'missing_tool', detail);
}

/**
 * A stateful step the chain keeps from running (stateful-chain.ts): blocked by the step that did
 * not hold (the runner output names it from `blocked_by`), or skipped naming the step that was not
 * verified or never created the state it needs.
 */
export function chainedStep(verdict: StepVerdict, broken: ChainBreak | undefined): StepOutput {
  if (verdict.status !== 'gap' && verdict.status !== 'not_applicable') return { verdict };
  return skipped(verdict, 'prerequisite_failed', `prerequisite step ${broken?.by ?? '(unknown)'}: ${verdict.message}`);
}

/** `assert_contribution`, with its any_of validations as judged. */
export function assertContribution(step: StoryboardStep, contributed: ReadonlySet<string>, unverified: ReadonlyMap<string, string>): StepOutput {
  const { verdict, validations } = judgeContribution(step, contributed, unverified);
  if (verdict.status === 'gap') return skipped(verdict, 'prerequisite_failed');
  if (verdict.status === 'not_applicable') return skipped(verdict, 'not_applicable');
  return { verdict, storyboard: { validations } };
}

export function noteResults(ctx: CheckContext, results: ValidationRecord[]): void {
  const na = results.filter((r) => r.outcome === 'not_applicable');
  const why = na.map((r) => `${r.check}: ${r.message}`).join('; ');
  ctx.notes.push(
    `${results.filter((r) => r.outcome === 'passed').length} validations passed, ${results.filter((r) => r.outcome === 'failed').length} failed, ${na.length} not applicable${why ? ` (${why})` : ''}`,
  );
  // The schema each response_schema validation applied (the runner output contract's schema_id).
  for (const r of results) if (r.schema) ctx.notes.push(`${r.check} ${r.outcome} against ${schemaText(r.schema)} (${r.schema.id})`);
}

/**
 * The failure a step's judged validations make, if any (after noting the tally): one of them
 * failed, or the reply was an error that none of them holds on (`refusal`: the runner's own check
 * saying so, and the actual value its verdict shows). Undefined when they hold.
 */
export function failureOf(
  ctx: CheckContext,
  results: ValidationRecord[],
  refusal?: { check: ValidationRecord; actual: unknown },
): { verdict: StepVerdict; validations: ValidationRecord[] } | undefined {
  noteResults(ctx, results);
  const failed = results.filter((r) => r.outcome === 'failed');
  if (failed.length > 0) return { verdict: failedVerdict(failed), validations: results };
  if (refusal && !results.some((r) => r.outcome === 'passed'))
    return { verdict: { status: 'failed', message: refusal.check.message ?? '', actual: refusal.actual }, validations: [...results, refusal.check] };
  return undefined;
}

/** The validations a step's verdict rests on (its advisory ones have their own check). */
export const requiredOf = (step: StoryboardStep) => step.validations.filter((v) => (v.severity ?? 'required') === 'required');

export function failedVerdict(failed: ValidationRecord[]): StepVerdict {
  const first = failed[0];
  return {
    status: 'failed',
    message: failed.map((r) => `${r.check}${r.description ? ` (${r.description})` : ''}: ${r.message}`).join('; '),
    expected: first.expected,
    actual: first.actual,
    ...(first.pointer ? { pointer: first.pointer } : {}),
  };
}

/**
 * A reference to a value an earlier step did not capture: blocked by that step; the runner's
 * missing input (a test kit's, a receiver): a gap naming it; otherwise the storyboard's own gap.
 */
export function unresolved(e: UnresolvedSubstitution, capturedBy: ReadonlyMap<string, string>): StepOutput {
  const name = /^\$context\.(.+)$/.exec(e.token)?.[1];
  const owner = name ? capturedBy.get(name) : undefined;
  if (owner) return { verdict: { status: 'unmet', message: e.message, blocked_by: owner } };
  if (e.gap) return skipped({ status: 'gap', gap: e.gap, message: e.message }, 'unsatisfied_contract', `${e.message}: the run lacks ${e.gap}; supply it`);
  return skipped({ status: 'not_applicable', message: `${e.message}: no step of the storyboard captures it` }, 'not_applicable');
}

export function judgeAdvisory(step: StoryboardStep, outcome: StepOutcome | undefined, context: ReadonlyMap<string, unknown>): StepOutput {
  if (!outcome) return { verdict: { status: 'unmet', message: `step ${step.id} has no response to judge` } };
  const results = step.validations.filter((v) => v.severity === 'advisory').map((v) => judgeValidation(v, outcome, { context }));
  const failed = results.filter((r) => r.outcome === 'failed');
  return { verdict: failed.length > 0 ? failedVerdict(failed) : { status: 'ok' }, storyboard: { validations: results } };
}
