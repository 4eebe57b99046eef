/**
 * Runs one check on one transport and turns what happened into exactly one outcome with
 * evidence. The rules:
 * - the agent does not claim what the check is about → not_applicable;
 * - a prerequisite is missing (no controller, a setup step failed, the agent went away) → not_testable;
 * - an expectation of a probe step failed → fail (MUST), warn (SHOULD) or info (MAY);
 * - the harness itself broke → error;
 * - the run budget ran out before the check finished → not_testable with not_run.
 */
import type { CheckDef, ExpectationDef, StepDef, SuiteDef } from './model.js';
import type { CheckResult, Evidence, Outcome } from './result.js';
import type { CallOptions, TaskReply, Transport, WireExchange } from '../transport/types.js';
import type { ProtocolIds } from '../token.js';
import type { AgentProfile } from './profile.js';
import type { ObservedReplies } from './observed.js';
import type { RunFacts, RunResources } from './resources.js';
import type { CheckContext, Judgement, SchemaChecker, StepRecord, StepRun, StepScope, StepVerdict, Subject } from './kinds/types.js';
import type { KindRegistry } from './kinds/registry.js';
import { ScopedRandom } from './rng.js';
import { expandTemplates, TemplateError } from './template.js';
import { describeCondition, evaluateCondition } from './conditions.js';

export interface CheckEnv {
  transport: Transport;
  profile: AgentProfile;
  ids: ProtocolIds;
  seed: string;
  runStartedAt: Date;
  signal: AbortSignal;
  observed: ObservedReplies;
  schemas: SchemaChecker;
  resources: RunResources;
  run: RunFacts;
  kinds: KindRegistry;
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
    ...extra,
  };
}

/** Decide applicability before running anything; undefined means: run it. */
export function preflight(suite: SuiteDef, check: CheckDef, env: CheckEnv): CheckResult | undefined {
  const p = env.profile;
  if (check.transports && !check.transports.includes(env.transport.kind)) {
    return skippedResult(suite, check, env, 'not_applicable', `applies to ${check.transports.join(', ')} only`);
  }
  if (!p.offered) return skippedResult(suite, check, env, 'not_applicable', p.problem ?? 'transport not offered');
  if (!p.reachable || p.authRequired) return skippedResult(suite, check, env, 'not_testable', p.problem ?? 'transport unusable');
  if (check.applies_when && !evaluateCondition(check.applies_when, p, env.ids)) {
    return skippedResult(suite, check, env, 'not_applicable', check.not_applicable_reason ?? `applies when ${describeCondition(check.applies_when)}`);
  }
  if (check.requires && !evaluateCondition(check.requires, p, env.ids)) {
    return skippedResult(suite, check, env, 'not_testable', check.requires_reason ?? `needs ${describeCondition(check.requires)}`);
  }
  return undefined;
}

export async function runCheck(suite: SuiteDef, check: CheckDef, env: CheckEnv): Promise<CheckResult> {
  const skipped = preflight(suite, check, env);
  if (skipped) return skipped;

  const started = performance.now();
  const exchanges: WireExchange[] = [];
  const notes: string[] = [];
  const scope: StepScope = { steps: {}, random: new ScopedRandom(env.seed, `${env.transport.kind}\0${check.id}`) };
  const ctx = checkContext(env, check.id, exchanges, notes, scope);

  const finish = (
    outcome: Outcome,
    message: string,
    verdict?: { expected?: unknown; actual?: unknown; pointer?: string },
    extra: Partial<CheckResult> = {},
  ): CheckResult => {
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
      ...extra,
    };
  };

  try {
    const r = await ctx.runSteps(check.steps);
    if (env.signal.aborted) throw new BudgetExhausted();
    const verdict = r.verdict;
    switch (verdict.status) {
      case 'ok':
        break;
      case 'not_applicable':
        return finish('not_applicable', verdict.message);
      case 'unmet':
        return finish('not_testable', `prerequisite not met: ${verdict.message}`, verdict);
      case 'failed':
        if (r.failedRole === 'setup') return finish('not_testable', `prerequisite not met: ${verdict.message}`, verdict);
        return finish(failOutcome(check.level), verdict.message, verdict);
    }
    return finish('pass', notes.length ? notes.join('; ') : 'ok');
  } catch (e) {
    if (e instanceof BudgetExhausted || env.signal.aborted) {
      return finish('not_testable', 'not run: the run budget ran out before this check finished', undefined, { not_run: true });
    }
    const err = e as Error;
    return finish('error', `harness error: ${err.message}`, { actual: err.stack?.split('\n').slice(0, 6).join('\n') });
  }
}

/**
 * The context one check's steps run in. `scope` holds the step records and the generator of
 * fresh values; `runSteps` runs a list of steps in this scope or in another one (a shared flow's).
 */
function checkContext(env: CheckEnv, checkId: string, exchanges: WireExchange[], notes: string[], scope: StepScope): CheckContext {
  const ctx: CheckContext = {
    checkId,
    transport: env.transport,
    kind: env.transport.kind,
    ids: env.ids,
    profile: env.profile,
    random: scope.random,
    runStartedAt: env.runStartedAt,
    signal: env.signal,
    steps: scope.steps,
    exchanges,
    notes,
    observed: env.observed,
    schemas: env.schemas,
    resources: env.resources,
    run: env.run,
    expand: (value) =>
      expandTemplates(value, {
        ids: env.ids,
        random: scope.random,
        runStartedAt: env.runStartedAt,
        steps: scope.steps,
        capabilities: env.profile.capabilities,
      }),
    async call(task: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
      if (env.signal.aborted) throw new BudgetExhausted();
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
        const kind = env.kinds.expectationKind(exp.kind);
        if (!kind) throw new Error(`unknown expectation kind ${exp.kind}`); // the loader prevents this
        const j = kind.evaluate(exp, subject, ctx);
        if (!j.ok) return j;
      }
      return { ok: true };
    },
    runSteps(steps: readonly StepDef[], other?: StepScope): Promise<StepRun> {
      const target = other === undefined || other === scope ? ctx : checkContext(env, checkId, exchanges, notes, other);
      return runStepList(steps, target, env.kinds);
    },
  };
  return ctx;
}

/** Run steps in order until one does not end ok; records of steps with an id are saved in the scope. */
async function runStepList(steps: readonly StepDef[], ctx: CheckContext, kinds: KindRegistry): Promise<StepRun> {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const kind = kinds.stepKind(step.kind);
    if (!kind) throw new Error(`unknown step kind ${step.kind}`); // the loader prevents this
    let verdict: StepVerdict;
    try {
      const r = await kind.run(step, ctx);
      verdict = r.verdict;
      if (step.id && r.record) (ctx.steps as Record<string, StepRecord>)[step.id] = r.record;
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      verdict = { status: 'unmet', message: `step ${i + 1} (${step.kind}): ${e.message}` };
    }
    if (ctx.signal.aborted) throw new BudgetExhausted();
    if (verdict.status !== 'ok') return { verdict, failedStep: i + 1, failedRole: step.role ?? 'probe' };
  }
  return { verdict: { status: 'ok' } };
}
