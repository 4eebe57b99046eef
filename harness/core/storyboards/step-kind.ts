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
import type { CheckContext, StepKind } from '../engine/kinds/types.js';
import { recordOf } from '../engine/kinds/types.js';
import { replyRecord, type StoryboardStepFindings, type ValidationRecord } from '../engine/storyboard-step.js';
import { unreachable } from '../engine/kinds/steps/util.js';
import type { StepDef } from '../engine/model.js';
import type { Storyboard, StoryboardBundle, StoryboardStep } from './model.js';
import { pointerOf, resolveStoryboardPath } from './path.js';
import { type AgentFacts, selectStoryboards, unmetRequirement } from './select.js';
import { seedStoryboard } from './seeding.js';
import { selectionOn, storyboardState, type StoryboardState } from './state.js';
import { substitute, UnresolvedSubstitution, type SubstitutionScope } from './substitute.js';
import { recordVerdict, withinOptionalPhase } from './branch-sets.js';
import { rebaseStaleFlight } from './flight.js';
import { passSuffix, withPassKey } from './pass-keys.js';
import { dispatchAll, parallelSpecOf } from './parallel-dispatch.js';
import { OAUTH_PROBES, probe, probeUrl } from './oauth-probes.js';
import { followsGraph, graphStep } from './oauth-graph-step.js';
import { upstreamQueries } from './upstream-queries.js';
import { RATE_LIMIT_TRIP_TASK, rateLimitTripStep } from './rate-limit-trip.js';
import { isControllerRefusal, judgeAcross, outcomeOf } from './outcome.js';
import { judgeValidation } from './validations.js';
import { chainAfter, chainVerdict } from './stateful-chain.js';
import { phaseSkip, taskOf, testKitOf, kitValue } from './test-kits.js';
import { stepAuth } from './auth.js';
import { receiverScope } from './runner-webhooks.js';
import { runWebhookStep, WEBHOOK_STEPS } from './webhook-steps.js';
import { responseSchemaOf } from './response-schema.js';
import { canonicalEnv } from './canonical-env.js';
import { runSubstitutionStep, SUBSTITUTION_STEP } from './substitution-step.js';
import { stepCheckId } from './check-ids.js';
import {
  assertContribution,
  chainedStep,
  declared,
  failureOf,
  judgeAdvisory,
  missingTool,
  requiredOf,
  runnerCheck,
  skipped,
  type StepOutput,
  unresolved,
  withFindings,
} from './step-output.js';

/**
 * Steps the runner carries out itself rather than calling an agent task (digest 6.1) that the
 * harness does not run yet: each is a coverage gap naming what it is. (The webhook assertions,
 * branch-set assertions, OAuth probes and substitution observation are judged.)
 */
const RUNNER_STEPS: Readonly<Record<string, string>> = {};

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
      let result: StepOutput;
      try {
        result = withFindings(await runStep(def, ctx), def.seed === true ? 'controller_seeding' : failureCheckOf(def));
      } catch (e) {
        // A substitution that cannot be made: nothing fabricated is sent.
        if (!(e instanceof UnresolvedSubstitution)) throw e;
        result = unresolved(e, (await storyboardState(ctx, String(def.storyboard))).capturedBy);
      }
      if (def.seed === true || def.advisory === true) return result;
      const { sb, phase, step } = find(def);
      const state = await storyboardState(ctx, sb.id);
      state.chain = chainAfter(step, phase, String(ctx.checkId), result.verdict, state.chain);
      recordVerdict(phase, step, result.verdict, state);
      const verdict = withinOptionalPhase(phase, result.verdict);
      if (verdict === result.verdict || verdict.status !== 'not_applicable') return result;
      // A path not taken; the runner output names the peer that took the branch (reports/runner-output-skip.ts).
      return { ...result, verdict, storyboard: { ...result.storyboard, skip: { reason: 'not_applicable', detail: verdict.message } } };
    },
  };

  /** The check a failure without findings is recorded as: a webhook assertion by its task, any other by `step`. */
  function failureCheckOf(def: StepDef): string {
    const { step } = find(def);
    return WEBHOOK_STEPS.has(step.task) ? step.task : 'step';
  }

  async function runStep(def: StepDef, ctx: CheckContext): Promise<StepOutput> {
    {
      const selection = await selectionOn(ctx, () =>
        selectStoryboards(bundle, { capabilities: ctx.profile.capabilities ?? {}, tools: toolsOf(ctx), ...versionFacts(ctx) }),
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
      const kit = testKitOf(bundle, sb);
      const kitSkip = phaseSkip(phase, kit);
      if (kitSkip) return skipped({ status: 'not_applicable', message: kitSkip }, 'not_applicable');
      const scope: SubstitutionScope = {
        context: state.context,
        priorSteps: state.priorSteps,
        generated: state.generated,
        uuid: randomUUID,
        testKit: (path) => kitValue(kit, path),
      };
      const task = taskOf(step, kit);
      if (task === 'assert_contribution') return assertContribution(step, state.contributions, state.unverifiedContributions);
      if (WEBHOOK_STEPS.has(task)) return runWebhookStep({ ...step, task }, ctx, { state, substitute: (v) => substitute(v, scope) });
      if (OAUTH_PROBES.has(task)) return oauthProbe(ctx, sb, step, task, state);
      if (task === SUBSTITUTION_STEP)
        return runSubstitutionStep(step, sb, ctx, { bundle, state, substitute: (v) => substitute(v, scope), checkOf: (id) => checkIdOf(sb, id) });
      if (task === RATE_LIMIT_TRIP_TASK) return rateLimitTripStep(ctx, step, kit, state, (v) => substitute(v, scope));
      const runnerStep = RUNNER_STEPS[task];
      if (runnerStep)
        return skipped(
          { status: 'gap', gap: runnerStep, message: `${task}: a step the runner carries out itself (${runnerStep}), which the harness does not run yet` },
          'unsatisfied_contract',
        );
      // The capability task is every agent's discovery call, listed or not (an A2A card's skills need not list it).
      if (!ctx.profile.tasks.includes(task) && task !== ctx.ids.capabilitiesTask) return missingTool(task, ctx);
      const chained = chainVerdict(step, phase, state.chain);
      if (chained) return chainedStep(chained, state.chain);
      const auth = await stepAuth(step, kit, ctx);
      if (auth && 'verdict' in auth) return { verdict: auth.verdict };
      const receiver = await receiverScope(ctx, sb, step.id, state, step.sampleRequest);
      if ('status' in receiver) return { verdict: receiver };
      const args = substitute(step.sampleRequest ?? {}, { ...scope, ...receiver });
      const keyed = withPassKey(step.sampleRequest, (args ?? {}) as Record<string, unknown>, passSuffix(ctx.transport.kind, ctx.run.seed));
      if (keyed.note) ctx.notes.push(keyed.note);
      const flight = rebaseStaleFlight(keyed.args, Date.now());
      if (flight.note) ctx.notes.push(flight.note);
      if (auth) ctx.notes.push(auth.note);
      state.sent.set(step.id, flight.args);
      const parallel = parallelSpecOf(step.raw.parallel_dispatch);
      if (typeof parallel === 'string') return skipped({ status: 'not_applicable', message: parallel }, 'not_applicable');
      // A step judging a2a_context_continuity binds its message to the storyboard's last A2A context.
      const a2aContextId = step.validations.some((v) => v.check === 'a2a_context_continuity') ? lastA2aContext(ctx, state) : undefined;
      if (a2aContextId) ctx.notes.push(`message sent with contextId ${a2aContextId}, the storyboard's last A2A context`);
      const callOnce = () =>
        ctx.call(task, flight.args, auth || a2aContextId ? { ...(auth ? { auth: auth.auth } : {}), ...(a2aContextId ? { a2aContextId } : {}) } : undefined);
      const requestStart = new Date().toISOString();
      state.requestStarts.set(step.id, requestStart);
      // A parallel dispatch is judged on every reply; the first that resolved stands for the step.
      const dispatches = parallel ? await dispatchAll(parallel, callOnce) : undefined;
      if (dispatches)
        ctx.notes.push(`parallel_dispatch: ${dispatches.length} calls at once, sent ${dispatches.map((d) => d.attempts).join(', ')} time(s) each`);
      const reply = dispatches ? (dispatches.find((d) => d.reply.ok && !d.reply.isError) ?? dispatches[0]).reply : await callOnce();
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
      const outcome = outcomeOf(reply, task, a2aContextId);
      const payload = outcome.payload;
      const controllerRefused = isControllerRefusal(reply, task);
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
        const message = `${task} succeeded; the step expects an error`;
        const check = runnerCheck('expect_error', 'the task answers with an error', message, 'an error', reply.payload);
        return { verdict: { status: 'failed', message, actual: reply.payload }, record, storyboard: found([check]) };
      }
      const upstream = step.validations.some((v) => v.check === 'upstream_traffic')
        ? await upstreamQueries(ctx, step, state, requestStart, flight.args)
        : undefined;
      const results = requiredOf(step).map((v) =>
        judgeAcross(
          v,
          dispatches ? dispatches.map((d) => outcomeOf(d.reply, task)) : [outcome],
          {
            context: state.context,
            priorSteps: new Map([...state.priorSteps].filter(([id]) => id !== step.id)),
            agentUrl: ctx.transport.endpoint,
            responseSchema: (o) => responseSchemaOf(ctx, { ...step, task }, o),
            ...(upstream ? { upstream } : {}),
            ...canonicalEnv(ctx, step, flight.args),
          },
          dispatches !== undefined,
        ),
      );
      // An error answer is judged by the step's validations (some steps accept either a result or an
      // error), but only when one of them held: a refusal that nothing judged is no pass.
      const refused = `${task} answered an error${outcome.errorCode ? ` (${outcome.errorCode})` : ''} and no validation of the step holds on it`;
      const refusal =
        !outcome.ok && !step.expectError
          ? {
              check: runnerCheck('unexpected_error', 'the task answers without an error', refused, 'a result', outcome.errorCode ?? reply.payload),
              actual: reply.payload,
            }
          : undefined;
      const failure = failureOf(ctx, results, refusal);
      if (failure) return { verdict: failure.verdict, record, storyboard: found(failure.validations) };
      if (missing.length > 0) {
        const message = `the response has no ${missing.join(', ')}, which later steps read`;
        const check = { ...runnerCheck('context_outputs', 'the values later steps read', message, missing, undefined), pointer: pointerOf(missing[0]) };
        return { verdict: { status: 'failed', message, actual: reply.payload }, record, storyboard: found([...results, check]) };
      }
      return { verdict: { status: 'ok' }, record, storyboard: found(results) };
    }
  }
}

/** The check id of a step of the storyboard. */
function checkIdOf(sb: Storyboard, stepId: string): string {
  const phase = sb.phases.find((p) => p.steps.some((s) => s.id === stepId));
  return stepCheckId(sb.id, phase?.id ?? '', stepId);
}

/** The tasks the agent lists, and its capability task, which every agent answers listed or not. */
function toolsOf(ctx: CheckContext): Set<string> {
  return new Set([...ctx.profile.tasks, ctx.ids.capabilitiesTask]);
}

/** The agent's declared `major_versions` and `supported_versions`, and the run's target line (introduced_in, select.ts). */
function versionFacts(ctx: CheckContext): Pick<AgentFacts, 'majorVersions' | 'target' | 'supportedVersions'> {
  const block = ctx.profile.capabilities?.[ctx.ids.token];
  const b = block && typeof block === 'object' ? (block as { major_versions?: unknown; supported_versions?: unknown }) : {};
  const declared = Array.isArray(b.supported_versions) ? b.supported_versions.filter((x): x is string => typeof x === 'string').slice(0, 16) : [];
  return {
    target: ctx.target,
    ...(Array.isArray(b.major_versions) ? { majorVersions: b.major_versions.filter(Number.isInteger) } : {}),
    ...(declared.length ? { supportedVersions: declared } : {}),
  };
}

/** An OAuth metadata probe (oauth-probes.ts): the document fetched is the reply its validations judge. */
async function oauthProbe(ctx: CheckContext, sb: Storyboard, step: StoryboardStep, task: string, state: StoryboardState): Promise<StepOutput> {
  if (followsGraph(step, task)) return graphStep(ctx, step, state);
  const prms = sb.phases
    .flatMap((p) => p.steps)
    .filter((s) => s.task === 'protected_resource_metadata' && state.priorSteps.has(s.id))
    .map((s) => state.priorSteps.get(s.id));
  const url = probeUrl(task, ctx.transport.endpoint, prms);
  if (typeof url !== 'string') return skipped({ status: 'not_applicable', message: url.unmet }, 'not_applicable');
  const got = await probe(ctx, url);
  if (!('ok' in got)) return { verdict: got };
  state.outcomes.set(step.id, got);
  state.priorSteps.set(step.id, got.payload);
  const results = requiredOf(step).map((v) => judgeValidation(v, got, { context: state.context, agentUrl: ctx.transport.endpoint }));
  const refused = `${url} answered HTTP ${got.httpStatus} and no validation of the step holds on it`;
  const refusal = got.ok
    ? undefined
    : { check: runnerCheck('unexpected_error', 'the document is served', refused, 'HTTP 200', got.httpStatus), actual: undefined };
  const failure = failureOf(ctx, results, refusal);
  return failure
    ? { verdict: failure.verdict, storyboard: { validations: failure.validations } }
    : { verdict: { status: 'ok' }, storyboard: { validations: results } };
}

/** The contextId of the storyboard's latest A2A reply on this transport, when the transport is A2A. */
function lastA2aContext(ctx: CheckContext, state: StoryboardState): string | undefined {
  if (ctx.transport.kind !== 'a2a') return undefined;
  return [...state.outcomes.values()].reverse().find((o) => o.reply?.transport === 'a2a' && o.reply.contextId)?.reply?.contextId;
}
