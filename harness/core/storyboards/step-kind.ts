/**
 * The step kind that runs one storyboard step (or, with `seed`, the seeding of its fixtures,
 * seeding.ts): whether the storyboard applies to this transport's agent, its test kit
 * (test-kits.ts), the substitutions, the task call with the step's own credentials (auth.ts), the
 * validations, the captured context. The webhook pseudo-tasks are judged at the harness's receiver
 * (webhook-steps.ts). What the harness cannot run yet (the other runner-side steps) is a coverage
 * gap saying so, never a pass; a step that needs a value an earlier step failed to capture is
 * blocked by that step; a validation the storyboard authored wrongly is not the agent's failure.
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext, StepKind, StepVerdict } from '../engine/kinds/types.js';
import { recordOf } from '../engine/kinds/types.js';
import { unreachable } from '../engine/kinds/steps/util.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import type { StepDef } from '../engine/model.js';
import type { StoryboardBundle, StoryboardStep } from './model.js';
import { resolveStoryboardPath } from './path.js';
import { selectStoryboards, unmetRequirement } from './select.js';
import { seedStoryboard } from './seeding.js';
import { selectionOn, storyboardState } from './state.js';
import { substitute, UnresolvedSubstitution, type SubstitutionScope } from './substitute.js';
import { judgeValidation, schemaText, type StepOutcome, type ValidationResult } from './validations.js';
import { judgeContribution, recordVerdict, withinOptionalPhase } from './branch-sets.js';
import { rebaseStaleFlight } from './flight.js';
import { chainAfter, chainVerdict } from './stateful-chain.js';
import { phaseSkip, taskOf, testKitOf, kitValue } from './test-kits.js';
import { stepAuth } from './auth.js';
import { receiverScope } from './runner-webhooks.js';
import { runWebhookStep, WEBHOOK_STEPS } from './webhook-steps.js';
import { responseSchemaOf } from './response-schema.js';

/**
 * Steps the runner carries out itself rather than calling an agent task (digest 6.1 substitution
 * observation, OAuth metadata probes) that the harness does not run yet: each is a coverage gap
 * naming what it is. (The webhook assertions and branch-set assertions are judged.)
 */
const RUNNER_STEPS: Readonly<Record<string, string>> = {
  expect_substitution_safe: 'storyboard substitution observation',
  protected_resource_metadata: 'storyboard OAuth metadata probes',
  oauth_auth_server_metadata: 'storyboard OAuth metadata probes',
};

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
      let result: Awaited<ReturnType<typeof runStep>>;
      try {
        result = await runStep(def, ctx);
      } catch (e) {
        // A substitution that cannot be made: nothing fabricated is sent.
        if (!(e instanceof UnresolvedSubstitution)) throw e;
        result = { verdict: unresolved(e, (await storyboardState(ctx, String(def.storyboard))).capturedBy) };
      }
      if (def.seed === true || def.advisory === true) return result;
      const { sb, phase, step } = find(def);
      const state = await storyboardState(ctx, sb.id);
      state.chain = chainAfter(step, phase, String(ctx.checkId), result.verdict, state.chain);
      recordVerdict(phase, step, result.verdict, state);
      return { ...result, verdict: withinOptionalPhase(phase, result.verdict) };
    },
  };

  async function runStep(def: StepDef, ctx: CheckContext): Promise<{ verdict: StepVerdict; record?: ReturnType<typeof recordOf> }> {
    {
      const selection = await selectionOn(ctx, () =>
        selectStoryboards(bundle, { capabilities: ctx.profile.capabilities ?? {}, tools: toolsOf(ctx), majorVersions: majorVersions(ctx) }),
      );
      const chosen = selection.get(String(def.storyboard));
      if (!chosen || chosen.skip)
        return { verdict: { status: 'not_applicable', message: `${chosen?.skip?.reason ?? 'not_applicable'}: ${chosen?.skip?.detail ?? 'not selected'}` } };
      if (def.seed === true) return seedStoryboard(chosen.storyboard, ctx);
      const { sb, phase, step } = find(def);
      if (phase.requiresCapability) {
        const unmet = unmetRequirement(phase.requiresCapability, ctx.profile.capabilities ?? {});
        if (unmet) return { verdict: { status: 'not_applicable', message: `phase ${phase.id}: ${unmet}` } };
      }
      if (step.requiresTool && !ctx.profile.tasks.includes(step.requiresTool))
        return { verdict: { status: 'not_applicable', message: `missing_tool: the agent does not list ${step.requiresTool}` } };
      const state = await storyboardState(ctx, sb.id);
      if (def.advisory === true) return judgeAdvisory(step, state.outcomes.get(step.id), state.context);
      const kit = testKitOf(bundle, sb);
      const skipped = phaseSkip(phase, kit);
      if (skipped) return { verdict: { status: 'not_applicable', message: skipped } };
      const scope: SubstitutionScope = {
        context: state.context,
        priorSteps: state.priorSteps,
        generated: state.generated,
        uuid: randomUUID,
        testKit: (path) => kitValue(kit, path),
      };
      const task = taskOf(step, kit);
      if (task === 'assert_contribution') return { verdict: judgeContribution(step, state.contributions, state.unverifiedContributions) };
      if (WEBHOOK_STEPS.has(task)) return runWebhookStep({ ...step, task }, ctx, { state, substitute: (v) => substitute(v, scope) });
      const runnerStep = RUNNER_STEPS[task];
      if (runnerStep)
        return {
          verdict: {
            status: 'gap',
            gap: runnerStep,
            message: `${task}: a step the runner carries out itself (${runnerStep}), which the harness does not run yet`,
          },
        };
      // The capability task is every agent's discovery call, listed or not (an A2A card's skills need not list it).
      if (!ctx.profile.tasks.includes(task) && task !== ctx.ids.capabilitiesTask)
        return { verdict: { status: 'not_applicable', message: `missing_tool: the agent does not list ${task}` } };
      const chained = chainVerdict(step, phase, state.chain);
      if (chained) return { verdict: chained };
      const auth = await stepAuth(step, kit, ctx);
      if (auth && 'verdict' in auth) return { verdict: auth.verdict };
      const receiver = await receiverScope(ctx, sb, step.id, state, step.sampleRequest);
      if ('status' in receiver) return { verdict: receiver };
      const args = substitute(step.sampleRequest ?? {}, { ...scope, ...receiver });
      const flight = rebaseStaleFlight((args ?? {}) as Record<string, unknown>, Date.now());
      if (flight.note) ctx.notes.push(flight.note);
      if (auth) ctx.notes.push(auth.note);
      state.sent.set(step.id, flight.args);
      const reply = await ctx.call(task, flight.args, auth ? { auth: auth.auth } : undefined);
      const down = unreachable(reply);
      if (down) return { verdict: down, record: recordOf(reply) };
      // An error is judged on what the agent sent beside it too (its echoed context), and a
      // controller's {success: false} is its error (digest 4.6: asserted with field_value on `error`).
      const payload = reply.isError && reply.errorEnvelope ? reply.errorEnvelope : reply.payload;
      const controllerRefused = task === CONTROLLER_TASK && (payload as { success?: unknown } | undefined)?.success === false;
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
      if (controllerRefused && !step.expectError && (payload as { error?: unknown }).error === 'UNKNOWN_SCENARIO')
        return {
          verdict: {
            status: 'gap',
            gap: 'a test-controller scenario',
            message: `the test controller does not offer ${String((args as { scenario?: unknown })?.scenario)} (UNKNOWN_SCENARIO)`,
          },
          record,
        };
      if (step.expectError && outcome.ok)
        return { verdict: { status: 'failed', message: `${task} succeeded; the step expects an error`, actual: reply.payload }, record };
      const results = step.validations
        .filter((v) => (v.severity ?? 'required') === 'required')
        .map((v) => judgeValidation(v, outcome, { context: state.context, responseSchema: (o) => responseSchemaOf(ctx, { ...step, task }, o) }));
      noteResults(ctx, results);
      const failed = results.filter((r) => r.outcome === 'failed');
      if (failed.length > 0) return { verdict: failedVerdict(failed), record };
      // An error answer is judged by the step's validations (some steps accept either a result or an
      // error), but only when one of them held: a refusal that nothing judged is no pass.
      if (!outcome.ok && !step.expectError && !results.some((r) => r.outcome === 'passed'))
        return {
          verdict: {
            status: 'failed',
            message: `${task} answered an error${outcome.errorCode ? ` (${outcome.errorCode})` : ''} and no validation of the step holds on it`,
            actual: reply.payload,
          },
          record,
        };
      if (missing.length > 0)
        return { verdict: { status: 'failed', message: `the response has no ${missing.join(', ')}, which later steps read`, actual: reply.payload }, record };
      return { verdict: { status: 'ok' }, record };
    }
  }
}

/** The tasks the agent lists, and its capability task, which every agent answers listed or not. */
function toolsOf(ctx: CheckContext): Set<string> {
  return new Set([...ctx.profile.tasks, ctx.ids.capabilitiesTask]);
}

function majorVersions(ctx: CheckContext): number[] | undefined {
  const block = ctx.profile.capabilities?.[ctx.ids.token];
  const v = block && typeof block === 'object' ? (block as { major_versions?: unknown }).major_versions : undefined;
  return Array.isArray(v) ? v.filter(Number.isInteger) : undefined;
}

function noteResults(ctx: CheckContext, results: ValidationResult[]): void {
  const na = results.filter((r) => r.outcome === 'not_applicable');
  const why = na.map((r) => `${r.check}: ${r.message}`).join('; ');
  ctx.notes.push(
    `${results.filter((r) => r.outcome === 'passed').length} validations passed, ${results.filter((r) => r.outcome === 'failed').length} failed, ${na.length} not applicable${why ? ` (${why})` : ''}`,
  );
  // The schema each response_schema validation applied (the runner output contract's schema_id).
  for (const r of results) if (r.schema) ctx.notes.push(`${r.check} ${r.outcome} against ${schemaText(r.schema)} (${r.schema.id})`);
}

function failedVerdict(failed: ValidationResult[]): StepVerdict {
  const first = failed[0];
  return {
    status: 'failed',
    message: failed.map((r) => `${r.check}${r.description ? ` (${r.description})` : ''}: ${r.message}`).join('; '),
    expected: first.expected,
    actual: first.actual,
    ...(first.pointer ? { pointer: first.pointer } : {}),
  };
}

/** A reference to a value an earlier step did not capture: blocked by that step; the runner's missing input (a test kit's, a receiver): a gap. */
function unresolved(e: UnresolvedSubstitution, capturedBy: ReadonlyMap<string, string>): StepVerdict {
  const name = /^\$context\.(.+)$/.exec(e.token)?.[1];
  const owner = name ? capturedBy.get(name) : undefined;
  if (owner) return { status: 'unmet', message: e.message, blocked_by: owner };
  if (e.gap) return { status: 'gap', gap: e.gap, message: e.message };
  return { status: 'not_applicable', message: `${e.message}: no step of the storyboard captures it` };
}

function judgeAdvisory(step: StoryboardStep, outcome: StepOutcome | undefined, context: ReadonlyMap<string, unknown>): { verdict: StepVerdict } {
  if (!outcome) return { verdict: { status: 'unmet', message: `step ${step.id} has no response to judge` } };
  const results = step.validations.filter((v) => v.severity === 'advisory').map((v) => judgeValidation(v, outcome, { context }));
  const failed = results.filter((r) => r.outcome === 'failed');
  return { verdict: failed.length > 0 ? failedVerdict(failed) : { status: 'ok' } };
}
