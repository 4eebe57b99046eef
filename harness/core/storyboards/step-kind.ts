/**
 * The step kind that runs one storyboard step (or, with `seed`, the seeding of its fixtures,
 * seeding.ts): whether the storyboard applies to this transport's agent, the substitutions, the
 * task call, the validations, the captured context. What the harness cannot run yet (runner-side
 * steps, credential overrides) is a coverage gap saying so, never a pass; a step that needs a
 * value an earlier step failed to capture is blocked by that step; a validation the storyboard
 * authored wrongly is not the agent's failure.
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext, StepKind, StepRecord, StepVerdict } from '../engine/kinds/types.js';
import { recordOf } from '../engine/kinds/types.js';
import { replyRecord, type RunnerSkipReason, type StoryboardStepFindings, type ValidationRecord } from '../engine/storyboard-step.js';
import { schemaIdOf } from '../schemas/loader.js';
import { unreachable } from '../engine/kinds/steps/util.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import type { StepDef } from '../engine/model.js';
import type { StoryboardBundle, StoryboardStep } from './model.js';
import { resolveStoryboardPath } from './path.js';
import { selectStoryboards, unmetRequirement } from './select.js';
import { seedStoryboard } from './seeding.js';
import { selectionOn, storyboardState } from './state.js';
import { substitute, UnresolvedSubstitution } from './substitute.js';
import { judgeValidation, type StepOutcome } from './validations.js';
import { contributionOf, judgeContribution, withinOptionalPhase } from './branch-sets.js';
import { pointerOf } from './path.js';
import { rebaseStaleFlight } from './flight.js';
import { chainAfter, chainVerdict, type ChainBreak } from './stateful-chain.js';

/**
 * Steps the runner carries out itself rather than calling an agent task (digest 6.1 webhook
 * assertions, branch-set assertions, substitution observation, OAuth metadata probes): the
 * harness does not run them yet, so each is a coverage gap naming what it is.
 */
const RUNNER_STEPS: Readonly<Record<string, string>> = {
  expect_webhook: 'storyboard webhook assertions',
  expect_no_webhook: 'storyboard webhook assertions',
  expect_webhook_retry_keys_stable: 'storyboard webhook assertions',
  expect_webhook_signature_valid: 'storyboard webhook assertions',
  expect_substitution_safe: 'storyboard substitution observation',
  protected_resource_metadata: 'storyboard OAuth metadata probes',
  oauth_auth_server_metadata: 'storyboard OAuth metadata probes',
};

/** What one run of the kind gives: the verdict, the step's record and what it found (engine/storyboard-step.ts). */
interface StepOutput {
  verdict: StepVerdict;
  record?: StepRecord;
  storyboard?: StoryboardStepFindings;
}

/** A step not run, with the contract's reason and detail (default the verdict's message). */
const skipped = (verdict: Exclude<StepVerdict, { status: 'ok' }>, reason: RunnerSkipReason, detail = verdict.message, wholeStoryboard = false): StepOutput => ({
  verdict,
  storyboard: { skip: { reason, detail, ...(wholeStoryboard ? { whole_storyboard: true as const } : {}) } },
});

/** What the agent declares, for a skip's detail (the contract asks not_applicable to cite it, missing_tool the tools it lists). */
function declared(ctx: CheckContext): string {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String).join(', ') : '');
  const caps = ctx.profile.capabilities ?? {};
  return `the agent declares supported_protocols [${list(caps.supported_protocols)}], specialisms [${list(caps.specialisms)}]`;
}

export function storyboardStepKind(bundle: StoryboardBundle): StepKind {
  const find = (def: StepDef) => {
    const sb = bundle.storyboards.get(String(def.storyboard));
    const phase = sb?.phases.find((p) => p.id === def.phase);
    const step = phase?.steps.find((s) => s.id === def.step);
    if (!sb || !phase || !step) throw new Error(`storyboard step ${String(def.storyboard)}/${String(def.phase)}/${String(def.step)} is not in the bundle`);
    return { sb, phase, step };
  };
  return {
    name: 'storyboard_step',
    fields: { storyboard: { type: 'string' }, phase: { type: 'string' }, step: { type: 'string' }, advisory: { type: 'boolean' }, seed: { type: 'boolean' } },
    required: ['storyboard'],
    async run(def, ctx) {
      const result = await runStep(def, ctx);
      if (def.seed === true || def.advisory === true) return result;
      const { sb, phase, step } = find(def);
      const state = await storyboardState(ctx, sb.id);
      state.chain = chainAfter(step, phase, String(ctx.checkId), result.verdict, state.chain);
      const flag = contributionOf(phase, step);
      if (flag && result.verdict.status === 'ok') state.contributions.add(flag);
      if (flag && (result.verdict.status === 'gap' || result.verdict.status === 'unmet'))
        state.unverifiedContributions.set(flag, `${step.id}: ${result.verdict.message}`);
      const verdict = withinOptionalPhase(phase, result.verdict);
      if (verdict === result.verdict || verdict.status !== 'not_applicable') return result;
      // A path not taken; the runner output names the peer that took the branch (reports/runner-output-skip.ts).
      return { ...result, verdict, storyboard: { ...result.storyboard, skip: { reason: 'not_applicable', detail: verdict.message } } };
    },
  };

  async function runStep(def: StepDef, ctx: CheckContext): Promise<StepOutput> {
    {
      const selection = await selectionOn(ctx, () =>
        selectStoryboards(bundle, { capabilities: ctx.profile.capabilities ?? {}, tools: toolsOf(ctx), majorVersions: majorVersions(ctx) }),
      );
      const chosen = selection.get(String(def.storyboard));
      if (!chosen || chosen.skip) {
        const why = chosen?.skip?.detail ?? 'not selected';
        const toolsToo = chosen?.skip?.reason === 'missing_tool' ? `; it lists ${ctx.profile.tasks.join(', ')}` : '';
        return skipped(
          { status: 'not_applicable', message: `${chosen?.skip?.reason ?? 'not_applicable'}: ${why}` },
          chosen?.skip?.reason ?? 'not_applicable',
          `${why}; ${declared(ctx)}${toolsToo}`,
          true,
        );
      }
      if (def.seed === true) return seedStoryboard(chosen.storyboard, ctx);
      const { sb, phase, step } = find(def);
      if (phase.requiresCapability) {
        const unmet = unmetRequirement(phase.requiresCapability, ctx.profile.capabilities ?? {});
        if (unmet) return skipped({ status: 'not_applicable', message: `phase ${phase.id}: ${unmet}` }, 'not_applicable');
      }
      if (step.requiresTool && !ctx.profile.tasks.includes(step.requiresTool)) return missingTool(step.requiresTool, ctx);
      const state = await storyboardState(ctx, sb.id);
      if (def.advisory === true) return judgeAdvisory(step, state.outcomes.get(step.id), state.context);
      if (step.task === 'assert_contribution') return assertContribution(step, state.contributions, state.unverifiedContributions);
      const runnerStep = RUNNER_STEPS[step.task];
      if (runnerStep)
        return skipped(
          {
            status: 'gap',
            gap: runnerStep,
            message: `${step.task}: a step the runner carries out itself (${runnerStep}), which the harness does not run yet`,
          },
          'unsatisfied_contract',
        );
      // A step that calls with other credentials (none, a test kit's key) would be judged on the run's own token.
      if (step.raw.auth !== undefined)
        return skipped(
          {
            status: 'gap',
            gap: 'storyboard credential overrides',
            message: `${step.task}: the step calls with its own credentials (auth: ${JSON.stringify(step.raw.auth).slice(0, 80)}), which the harness does not send yet`,
          },
          'unsatisfied_contract',
        );
      // The capability task is every agent's discovery call, listed or not (an A2A card's skills need not list it).
      if (!ctx.profile.tasks.includes(step.task) && step.task !== ctx.ids.capabilitiesTask) return missingTool(step.task, ctx);
      const chained = chainVerdict(step, phase, state.chain);
      if (chained) return chainedStep(chained, state.chain);
      let args: unknown;
      try {
        args = substitute(step.sampleRequest ?? {}, { context: state.context, priorSteps: state.priorSteps, generated: state.generated, uuid: randomUUID });
      } catch (e) {
        if (!(e instanceof UnresolvedSubstitution)) throw e;
        return unresolved(e, state.capturedBy);
      }
      const flight = rebaseStaleFlight((args ?? {}) as Record<string, unknown>, Date.now());
      if (flight.note) ctx.notes.push(flight.note);
      const reply = await ctx.call(step.task, flight.args);
      const down = unreachable(reply);
      const found = (validations: ValidationRecord[]): StoryboardStepFindings => ({ reply: replyRecord(reply), validations });
      if (down)
        return {
          verdict: down,
          record: recordOf(reply),
          // Transport-level: no payload, so no pointer, expected or actual (the contract's `error`).
          storyboard: found([
            {
              check: 'transport',
              outcome: 'failed',
              severity: 'required',
              description: 'the agent answers the task call',
              message: replyRecord(reply).failure,
            },
          ]),
        };
      // An error is judged on what the agent sent beside it too (its echoed context), and a
      // controller's {success: false} is its error (digest 4.6: asserted with field_value on `error`).
      const payload = reply.isError && reply.errorEnvelope ? reply.errorEnvelope : reply.payload;
      const controllerRefused = step.task === CONTROLLER_TASK && (payload as { success?: unknown } | undefined)?.success === false;
      const outcome: StepOutcome = {
        ok: reply.ok && !reply.isError && !controllerRefused,
        payload,
        ...(reply.error?.code ? { errorCode: reply.error.code } : {}),
        ...(reply.httpStatus !== undefined ? { httpStatus: reply.httpStatus } : {}),
      };
      state.outcomes.set(step.id, outcome);
      state.priorSteps.set(step.id, payload);
      const record = recordOf(reply);
      // What this step captures for later ones: a missing member is this step's failure.
      const missing: string[] = [];
      for (const out of step.contextOutputs) {
        state.capturedBy.set(out.name, String(ctx.checkId));
        const v = outcome.ok ? resolveStoryboardPath(payload, out.path) : undefined;
        if (v !== undefined) state.context.set(out.name, v);
        else if (outcome.ok) missing.push(out.path);
      }
      // An unsupported controller scenario is a coverage gap (digest 4.6), unless the step asks for the refusal.
      if (controllerRefused && !step.expectError && (payload as { error?: unknown }).error === 'UNKNOWN_SCENARIO') {
        const scenario = String((args as { scenario?: unknown })?.scenario);
        const message = `the test controller does not offer ${scenario} (UNKNOWN_SCENARIO)`;
        return {
          verdict: { status: 'gap', gap: 'a test-controller scenario', message },
          record,
          storyboard: {
            reply: replyRecord(reply),
            skip: { reason: 'missing_test_controller', detail: `${message}; supply a controller that offers ${scenario}` },
          },
        };
      }
      if (step.expectError && outcome.ok) {
        const message = `${step.task} succeeded; the step expects an error`;
        const check = runnerCheck('expect_error', 'the task answers with an error', message, 'an error', reply.payload);
        return { verdict: { status: 'failed', message, actual: reply.payload }, record, storyboard: found([check]) };
      }
      const results = step.validations
        .filter((v) => (v.severity ?? 'required') === 'required')
        .map((v) => judgeValidation(v, outcome, { context: state.context, responseSchema: (o) => schemaOf(ctx, step, o) }));
      noteResults(ctx, results);
      const failed = results.filter((r) => r.outcome === 'failed');
      if (failed.length > 0) return { verdict: failedVerdict(failed), record, storyboard: found(results) };
      // An error answer is judged by the step's validations (some steps accept either a result or an
      // error), but only when one of them held: a refusal that nothing judged is no pass.
      if (!outcome.ok && !step.expectError && !results.some((r) => r.outcome === 'passed')) {
        const message = `${step.task} answered an error${outcome.errorCode ? ` (${outcome.errorCode})` : ''} and no validation of the step holds on it`;
        const check = runnerCheck('unexpected_error', 'the task answers without an error', message, 'a result', outcome.errorCode ?? reply.payload);
        return { verdict: { status: 'failed', message, actual: reply.payload }, record, storyboard: found([...results, check]) };
      }
      if (missing.length > 0) {
        const message = `the response has no ${missing.join(', ')}, which later steps read`;
        const check = { ...runnerCheck('context_outputs', 'the values later steps read', message, missing, undefined), pointer: pointerOf(missing[0]) };
        return { verdict: { status: 'failed', message, actual: reply.payload }, record, storyboard: found([...results, check]) };
      }
      return { verdict: { status: 'ok' }, record, storyboard: found(results) };
    }
  }
}

/** The tasks the agent lists, and its capability task, which every agent answers listed or not. */
function toolsOf(ctx: CheckContext): Set<string> {
  return new Set([...ctx.profile.tasks, ctx.ids.capabilitiesTask]);
}

/** A failed check of the runner's own (not authored), judged on the whole response. */
function runnerCheck(check: string, description: string, message: string, expected: unknown, actual: unknown): ValidationRecord {
  return { check, outcome: 'failed', severity: 'required', description, message, expected, actual, pointer: '' };
}

/** The agent does not list the task or tool the step needs; the test controller has its own reason. */
function missingTool(task: string, ctx: CheckContext): StepOutput {
  const verdict = { status: 'not_applicable' as const, message: `missing_tool: the agent does not list ${task}` };
  const detail = `the step calls ${task}, which the agent does not list; it lists ${ctx.profile.tasks.join(', ')}`;
  return skipped(verdict, task === CONTROLLER_TASK ? 'missing_test_controller' : 'missing_tool', detail);
}

/**
 * A stateful step the chain keeps from running (stateful-chain.ts): blocked by the step that did
 * not hold (the runner output names it from `blocked_by`), or skipped naming the step that was not
 * verified or never created the state it needs.
 */
function chainedStep(verdict: StepVerdict, broken: ChainBreak | undefined): StepOutput {
  if (verdict.status !== 'gap' && verdict.status !== 'not_applicable') return { verdict };
  return skipped(verdict, 'prerequisite_failed', `prerequisite step ${broken?.by ?? '(unknown)'}: ${verdict.message}`);
}

/** `assert_contribution`, with its any_of validations as judged. */
function assertContribution(step: StoryboardStep, contributed: ReadonlySet<string>, unverified: ReadonlyMap<string, string>): StepOutput {
  const { verdict, validations } = judgeContribution(step, contributed, unverified);
  if (verdict.status === 'gap') return skipped(verdict, 'prerequisite_failed');
  if (verdict.status === 'not_applicable') return skipped(verdict, 'not_applicable');
  return { verdict, storyboard: { validations } };
}

function majorVersions(ctx: CheckContext): number[] | undefined {
  const block = ctx.profile.capabilities?.[ctx.ids.token];
  const v = block && typeof block === 'object' ? (block as { major_versions?: unknown }).major_versions : undefined;
  return Array.isArray(v) ? v.filter(Number.isInteger) : undefined;
}

function schemaOf(ctx: CheckContext, step: StoryboardStep, o: StepOutcome) {
  const name = ctx.schemas.taskSchemaName(step.task);
  if (!o.ok || name === undefined) return undefined;
  const v = ctx.schemas.validateTaskResponse(step.task, o.payload);
  const errors = v.errors.map((e) => ({ instance_path: e.pointer, schema_path: e.schemaPath, keyword: e.keyword, message: e.message }));
  return { valid: v.valid, schemaId: schemaIdOf(name), errors };
}

function noteResults(ctx: CheckContext, results: ValidationRecord[]): void {
  const na = results.filter((r) => r.outcome === 'not_applicable');
  const why = na.map((r) => `${r.check}: ${r.message}`).join('; ');
  ctx.notes.push(
    `${results.filter((r) => r.outcome === 'passed').length} validations passed, ${results.filter((r) => r.outcome === 'failed').length} failed, ${na.length} not applicable${why ? ` (${why})` : ''}`,
  );
}

function failedVerdict(failed: ValidationRecord[]): StepVerdict {
  const first = failed[0];
  return {
    status: 'failed',
    message: failed.map((r) => `${r.check}${r.description ? ` (${r.description})` : ''}: ${r.message}`).join('; '),
    expected: first.expected,
    actual: first.actual,
    ...(first.pointer ? { pointer: first.pointer } : {}),
  };
}

/** A reference to a value an earlier step did not capture: blocked by that step; a missing receiver: a gap. */
function unresolved(e: UnresolvedSubstitution, capturedBy: ReadonlyMap<string, string>): StepOutput {
  const name = /^\$context\.(.+)$/.exec(e.token)?.[1];
  const owner = name ? capturedBy.get(name) : undefined;
  if (owner) return { verdict: { status: 'unmet', message: e.message, blocked_by: owner } };
  if (/webhook/.test(e.token))
    return skipped(
      { status: 'gap', gap: 'a webhook receiver for storyboards', message: e.message },
      'unsatisfied_contract',
      `${e.message}: the harness runs no webhook receiver for storyboards yet`,
    );
  return skipped({ status: 'not_applicable', message: `${e.message}: no step of the storyboard captures it` }, 'not_applicable');
}

function judgeAdvisory(step: StoryboardStep, outcome: StepOutcome | undefined, context: ReadonlyMap<string, unknown>): StepOutput {
  if (!outcome) return { verdict: { status: 'unmet', message: `step ${step.id} has no response to judge` } };
  const results = step.validations.filter((v) => v.severity === 'advisory').map((v) => judgeValidation(v, outcome, { context }));
  const failed = results.filter((r) => r.outcome === 'failed');
  return { verdict: failed.length > 0 ? failedVerdict(failed) : { status: 'ok' }, storyboard: { validations: results } };
}
