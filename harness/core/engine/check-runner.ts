/**
 * Runs one check on one transport and turns what happened into exactly one outcome with
 * evidence. The rules:
 * - the agent does not claim what the check is about → not_applicable;
 * - the agent lacks an optional feature the check needs (`requires`: a test controller, a
 *   scenario; a transport it does not offer; a step reporting a gap) → gap;
 * - a setup step failed, or a step could not be carried out: blocked by the check that tests
 *   the call it needed (the step's `prerequisite`); when a prerequisite check already did not
 *   pass, the check is not run at all (preflightPrerequisites);
 * - an expectation of a probe step failed → fail (MUST), warn (SHOULD) or info (MAY);
 * - the harness itself broke (or could not run a step and can name no check to blame) → error;
 * - the run budget ran out before the check finished → gap with not_run.
 */
import type { Lend } from './limiter.js';
import type { CheckDef, ExpectationDef, StepDef, SuiteDef } from './model.js';
import type { CheckResult, Evidence, Outcome } from './result.js';
import type { CallOptions, TaskReply, Transport, WireExchange } from '../transport/types.js';
import type { ProtocolIds } from '../token.js';
import type { AgentProfile } from './profile.js';
import type { ObservedReplies } from './observed.js';
import type { FactStore, RunFacts, RunResources } from './resources.js';
import type { CheckContext, Judgement, SchemaChecker, StepRecord, StepRun, StepScope, StepVerdict, Subject } from './kinds/types.js';
import type { KindRegistry } from './kinds/registry.js';
import { ScopedRandom } from './rng.js';
import { expandTemplates, MissingFactError, TemplateError, TemplateGapError } from './template.js';
import { describeCondition, evaluateCondition } from './conditions.js';
import { describeLines, inLines, type ProtocolLine } from '../protocol/lines.js';

export interface CheckEnv {
  transport: Transport;
  profile: AgentProfile;
  /** The profiles of the run's other transports, for rules that compare transports (none when one runs). */
  peers?: readonly AgentProfile[];
  ids: ProtocolIds;
  /** The protocol line judged against (harness/core/protocol/lines.ts). */
  target: ProtocolLine;
  seed: string;
  runStartedAt: Date;
  signal: AbortSignal;
  observed: ObservedReplies;
  schemas: SchemaChecker;
  resources: RunResources;
  run: RunFacts;
  kinds: KindRegistry;
  facts: FactStore;
}

class BudgetExhausted extends Error {}

function failOutcome(level: CheckDef['level']): Outcome {
  return level === 'MUST' ? 'fail' : level === 'SHOULD' ? 'warn' : 'info';
}

export function skippedResult(
  suite: SuiteDef,
  check: CheckDef,
  env: Pick<CheckEnv, 'transport'>,
  outcome: Outcome,
  message: string,
  extra: Partial<CheckResult> = {},
): CheckResult {
  return {
    check_id: check.id,
    suite_id: suite.id,
    title: check.title,
    level: check.level,
    spec_ref: check.spec,
    transport: env.transport.kind,
    outcome,
    duration_ms: 0,
    message,
    evidence: { exchanges: [] },
    ...(check.lines ? { lines: check.lines } : {}),
    ...(check.interpretation ? { interpretation: check.interpretation } : {}),
    ...(check.storyboard_step ? { storyboard_step: check.storyboard_step } : {}),
    ...extra,
  };
}

/** Decide applicability before running anything; undefined means: run it. Needs only the agent's profile (the registry asks it before any run: applicable storyboards). */
export function preflight(suite: SuiteDef, check: CheckDef, env: Pick<CheckEnv, 'transport' | 'profile' | 'ids' | 'target'>): CheckResult | undefined {
  const p = env.profile;
  if (!inLines(env.target, check.lines)) {
    return skippedResult(suite, check, env, 'not_applicable', `not a rule of the ${env.target} line: the rule belongs to ${describeLines(check.lines!)}`);
  }
  if (check.transports && !check.transports.includes(env.transport.kind)) {
    return skippedResult(suite, check, env, 'not_applicable', `applies to ${check.transports.join(', ')} only`);
  }
  if (!p.offered) {
    return skippedResult(suite, check, env, 'gap', p.problem ?? `the agent does not offer ${env.transport.kind}`, { gap: `${env.transport.kind} transport` });
  }
  if (!p.reachable || p.authRequired) {
    // The agent offers the transport but it cannot be used: every check on it is blocked by the transport itself.
    const by = `transport.${env.transport.kind}`;
    return skippedResult(suite, check, env, 'blocked', `blocked by ${by}: ${p.problem ?? 'transport unusable'}`, { blocked_by: by });
  }
  if (check.applies_when && !evaluateCondition(check.applies_when, p, env.ids)) {
    return skippedResult(suite, check, env, 'not_applicable', check.not_applicable_reason ?? `applies when ${describeCondition(check.applies_when)}`);
  }
  if (check.requires && !evaluateCondition(check.requires, p, env.ids)) {
    return skippedResult(suite, check, env, 'gap', check.requires_reason ?? `needs ${describeCondition(check.requires)}`, {
      gap: check.requires_feature ?? describeCondition(check.requires),
    });
  }
  return undefined;
}

/**
 * A check whose prerequisite (same transport) already ended without passing is not run: it is
 * blocked by that check (by the root of a cascade when that one was blocked too), a gap when the
 * prerequisite was one, not applicable when it was. Undefined: run it.
 */
export function preflightPrerequisites(
  suite: SuiteDef,
  check: CheckDef,
  env: Pick<CheckEnv, 'transport'>,
  prerequisites: readonly string[],
  resultOf: (checkId: string) => CheckResult | undefined,
): CheckResult | undefined {
  for (const id of prerequisites) {
    const r = resultOf(id);
    if (!r) continue;
    switch (r.outcome) {
      case 'pass':
      case 'warn':
      case 'info':
        continue;
      case 'not_applicable':
        return skippedResult(suite, check, env, 'not_applicable', `needs ${id}, which does not apply: ${r.message}`, { inherited_from: id });
      case 'gap':
        return skippedResult(suite, check, env, 'gap', `needs ${id}, not verified: ${r.message}`, { gap: r.gap, not_run: r.not_run, inherited_from: id });
      case 'blocked':
        // The root cause, and the prerequisite it reached this check through (whose step the cause names).
        return blockedResult(
          suite,
          check,
          env,
          r.blocked_by ?? id,
          r.blocked_by && r.blocked_by !== id ? `through ${id}, ${stripBlocked(r.message)}` : r.message,
        );
      case 'fail':
      case 'error':
        return blockedResult(suite, check, env, id, r.message);
    }
  }
  return undefined;
}

/** The cause of a check that was blocked itself starts with its own "blocked by <root>: ". */
const stripBlocked = (cause: string): string => cause.replace(/^blocked by \S+: /, '');

function blockedResult(suite: SuiteDef, check: CheckDef, env: Pick<CheckEnv, 'transport'>, by: string, cause: string): CheckResult {
  return skippedResult(suite, check, env, 'blocked', `blocked by ${by}: ${stripBlocked(cause)}`, {
    blocked_by: by,
    evidence: {
      exchanges: [],
      notes: [`not run: ${by} did not pass on ${env.transport.kind}, and this check needs what it tests (its evidence holds the exchanges)`],
    },
  });
}

/** `lend`: the engine's limiter slot of this check, lent out while the check only waits (limiter.ts). */
export async function runCheck(suite: SuiteDef, check: CheckDef, env: CheckEnv, lend: Lend = (wait) => wait()): Promise<CheckResult> {
  const skipped = preflight(suite, check, env);
  if (skipped) return skipped;

  const started = performance.now();
  const exchanges: WireExchange[] = [];
  const notes: string[] = [];
  const scope: StepScope = { steps: {}, random: new ScopedRandom(env.seed, `${env.transport.kind}\0${check.id}`) };
  const ctx = checkContext(env, check.id, exchanges, notes, scope, lend);

  let storyboard: StepRun['storyboard'];
  const finish = (
    outcome: Outcome,
    message: string,
    verdict?: { expected?: unknown; actual?: unknown; pointer?: string },
    extra: Partial<CheckResult> = {},
  ): CheckResult => {
    // A pass keeps no evidence, a storyboard step's neither: the runner output contract asks for the
    // request and response of a failure only (a passing step's are optional), and keeping every one
    // doubled the reports and slowed a storyboard run by a sixth.
    const evidence: Evidence | undefined =
      outcome === 'pass'
        ? undefined
        : {
            expected: verdict?.expected,
            actual: verdict?.actual,
            pointer: verdict?.pointer,
            exchanges,
            notes: notes.length ? notes : undefined,
          };
    return {
      ...skippedResult(suite, check, env, outcome, message),
      duration_ms: Math.round(performance.now() - started),
      evidence,
      ...(check.storyboard_step ? { storyboard_step: { ...check.storyboard_step, ...storyboard } } : {}),
      ...extra,
    };
  };

  try {
    const r = await ctx.runSteps(check.steps);
    storyboard = r.storyboard;
    if (env.signal.aborted) throw new BudgetExhausted();
    const verdict = r.verdict;
    switch (verdict.status) {
      case 'ok':
        break;
      case 'not_applicable':
        return finish('not_applicable', verdict.message);
      case 'gap':
        return finish('gap', verdict.message, undefined, { gap: verdict.gap });
      case 'unmet': {
        const by = verdict.blocked_by ?? r.failedPrerequisite;
        if (by) return finish('blocked', `blocked by ${by}: step ${r.failedStep} could not be carried out: ${verdict.message}`, verdict, { blocked_by: by });
        return finish('error', `the harness could not run step ${r.failedStep}: ${verdict.message}`, verdict);
      }
      case 'failed':
        // A setup step that exercises the check's own rule (its prerequisite is the check itself) fails the check.
        if (r.failedRole === 'setup' && r.failedPrerequisite !== check.id) {
          const by = r.failedPrerequisite;
          if (by) return finish('blocked', `blocked by ${by}: setup step ${r.failedStep} failed: ${verdict.message}`, verdict, { blocked_by: by });
          return finish('error', `setup step ${r.failedStep} failed and names no check that tests it: ${verdict.message}`, verdict);
        }
        return finish(failOutcome(check.level), verdict.message, verdict);
    }
    return finish('pass', notes.length ? notes.join('; ') : 'ok');
  } catch (e) {
    if (e instanceof BudgetExhausted || env.signal.aborted) {
      return finish('gap', 'not run: the run budget ran out before this check finished', undefined, { not_run: true, gap: 'run budget' });
    }
    const err = e as Error;
    return finish('error', `harness error: ${err.message}`, { actual: err.stack?.split('\n').slice(0, 6).join('\n') });
  }
}

/**
 * The context one check's steps run in. `scope` holds the step records and the generator of
 * fresh values; `runSteps` runs a list of steps in this scope or in another one (a shared flow's).
 */
function checkContext(env: CheckEnv, checkId: string, exchanges: WireExchange[], notes: string[], scope: StepScope, lend: Lend): CheckContext {
  const ctx: CheckContext = {
    checkId,
    transport: env.transport,
    kind: env.transport.kind,
    ids: env.ids,
    target: env.target,
    profile: env.profile,
    peers: env.peers ?? [],
    random: scope.random,
    runStartedAt: env.runStartedAt,
    signal: env.signal,
    idle: lend,
    steps: scope.steps,
    exchanges,
    notes,
    observed: env.observed,
    schemas: env.schemas,
    resources: env.resources,
    run: env.run,
    facts: {
      get: (name) => env.facts.get(env.transport.kind, name),
      publish: (name, value) => env.facts.publish(env.transport.kind, name, value),
    },
    expand: (value) =>
      expandTemplates(value, {
        ids: env.ids,
        random: scope.random,
        runStartedAt: env.runStartedAt,
        steps: scope.steps,
        capabilities: env.profile.capabilities,
        fact: (name) => env.facts.get(env.transport.kind, name),
        publisherOf: (name) => env.kinds.factPublisher(name),
        functions: (name) => {
          const fn = env.kinds.templateFunction(name);
          return fn ? (arg, s) => fn.resolve(arg, s) : undefined;
        },
        fixtures: env.run.fixtures,
      }),
    async call(task: string, givenArgs: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
      if (env.signal.aborted) throw new BudgetExhausted();
      const extra = env.run.taskArgs?.[task];
      const args = extra ? { ...extra, ...givenArgs } : givenArgs;
      const reply = await env.transport.call(task, args, { ...options, signal: env.signal });
      exchanges.push(...reply.exchanges);
      if (reply.failure?.kind === 'aborted' || env.signal.aborted) throw new BudgetExhausted();
      env.observed.add(env.transport.kind, { checkId, reply, sentContext: args.context });
      return reply;
    },
    async listTasks() {
      if (env.signal.aborted) throw new BudgetExhausted();
      const list = await env.transport.listTasks(env.signal);
      exchanges.push(...list.exchanges);
      if (list.failure?.kind === 'aborted' || env.signal.aborted) throw new BudgetExhausted();
      return list;
    },
    judge(expectations: ExpectationDef[] | undefined, subject: Subject): Judgement {
      for (const exp of expectations ?? []) {
        if (!inLines(env.target, exp.lines)) continue;
        const kind = env.kinds.expectationKind(exp.kind);
        if (!kind) throw new Error(`unknown expectation kind ${exp.kind}`); // the loader prevents this
        const j = kind.evaluate(exp, subject, ctx);
        if (!j.ok) return exp.owner ? { ...j, owner: exp.owner } : j;
      }
      return { ok: true };
    },
    runSteps(steps: readonly StepDef[], other?: StepScope): Promise<StepRun> {
      const target = other === undefined || other === scope ? ctx : checkContext(env, checkId, exchanges, notes, other, lend);
      return runStepList(steps, target, env.kinds);
    },
  };
  return ctx;
}

/** Run steps in order until one does not end ok; records of steps with an id are saved in the scope. */
async function runStepList(steps: readonly StepDef[], ctx: CheckContext, kinds: KindRegistry): Promise<StepRun> {
  let storyboard: StepRun['storyboard'];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (!inLines(ctx.target, step.lines)) continue;
    const kind = kinds.stepKind(step.kind);
    if (!kind) throw new Error(`unknown step kind ${step.kind}`); // the loader prevents this
    let verdict: StepVerdict;
    try {
      const r = await kind.run(step, ctx);
      verdict = r.verdict;
      if (r.storyboard) storyboard = r.storyboard;
      if (step.id && r.record) (ctx.steps as Record<string, StepRecord>)[step.id] = r.record;
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      const message = `step ${i + 1} (${step.kind}): ${e.message}`;
      if (e instanceof TemplateGapError) verdict = { status: 'gap', message, gap: e.gap };
      else if (e instanceof MissingFactError) verdict = { status: 'unmet', message, blocked_by: e.publisher };
      else verdict = { status: 'unmet', message };
    }
    if (ctx.signal.aborted) throw new BudgetExhausted();
    // An expectation about another check's rule failed: this check is blocked by that one.
    if (verdict.status === 'failed' && verdict.owner && verdict.owner !== ctx.checkId) {
      const { owner, ...rest } = verdict;
      verdict = { ...rest, status: 'unmet', message: `${verdict.message} (the rule of ${owner})`, blocked_by: owner };
    }
    if (verdict.status !== 'ok')
      return { verdict, failedStep: i + 1, failedRole: step.role ?? 'probe', failedPrerequisite: step.prerequisite, ...(storyboard ? { storyboard } : {}) };
  }
  return { verdict: { status: 'ok' }, ...(storyboard ? { storyboard } : {}) };
}
