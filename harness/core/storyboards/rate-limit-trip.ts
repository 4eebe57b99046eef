/**
 * The `expect_rate_limit_not_replayed` pseudo-task: the harness's side of the
 * `rate_limit_trip_runner` test-kit contract (the 3.1 idempotency storyboard's
 * rate_limit_replay_invariant phase; digest 3.2 rules 3 and 8). The step's `rate_limit_trip` names a
 * mutating task and its request; the harness sends it one call after another, each with a fresh
 * idempotency key, at most `max_attempts` times (50 to 500), until the agent answers RATE_LIMITED. It
 * then waits the refusal's `retry_after` (whole seconds, at most `replay_max_wait_seconds`, default
 * 30) and sends the refused request again with the same key. The step's validations judge the two
 * answers (`replay_not_cached_rate_limit`, replay-not-cached.ts).
 *
 * Only evidence about the rule fails the step: a RATE_LIMITED without a positive `retry_after`
 * (`missing_retry_after`), one asking for a longer wait than the step allows (`replay_wait_exceeded`),
 * or what the validations find. A burst that never trips is not applicable with the contract's detail
 * `rate_limit_not_triggered`; a burst the agent refuses with another error, an agent taken for a
 * production deployment (the contract targets sandbox endpoints only) and a run out of budget are
 * coverage gaps.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckContext } from '../engine/kinds/types.js';
import { recordOf } from '../engine/kinds/types.js';
import { replyRecord } from '../engine/storyboard-step.js';
import { unreachable } from '../engine/kinds/steps/util.js';
import { lifecycleStageOf } from '../engine/lifecycle.js';
import type { TaskReply } from '../transport/types.js';
import { stepAuth } from './auth.js';
import { rebaseStaleFlight } from './flight.js';
import type { StoryboardStep } from './model.js';
import { outcomeOf } from './outcome.js';
import type { StoryboardState } from './state.js';
import { failureOf, missingTool, requiredOf, runnerCheck, skipped, type StepOutput } from './step-output.js';
import type { KitOf } from './test-kits.js';
import { judgeValidation, type StepOutcome } from './validations.js';

export const RATE_LIMIT_TRIP_TASK = 'expect_rate_limit_not_replayed';
export const RATE_LIMIT_TRIP_CONTRACT = 'rate_limit_trip_runner';
/** The contract's bounds on `max_attempts` (test-kits/rate-limit-trip-runner.yaml `burst_step_contract`). */
export const MAX_ATTEMPTS_MIN = 50;
export const MAX_ATTEMPTS_MAX = 500;
export const DEFAULT_REPLAY_MAX_WAIT_S = 30;
/** The harness waits no longer than this for a replay, whatever the step allows. */
export const HARNESS_MAX_WAIT_S = 300;
/** The skip detail the contract gives a burst that never tripped. */
export const NOT_TRIGGERED = 'rate_limit_not_triggered';

export interface TripSpec {
  task: string;
  request: Record<string, unknown>;
  maxAttempts: number;
  maxWaitS: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The step's `rate_limit_trip`, or why it cannot be run (the storyboard's defect). */
export function tripSpecOf(raw: unknown): TripSpec | string {
  if (!isObject(raw)) return `the step has no rate_limit_trip mapping, which ${RATE_LIMIT_TRIP_TASK} needs`;
  if (typeof raw.trip_target_task !== 'string' || raw.trip_target_task === '') return 'rate_limit_trip.trip_target_task is not a task name';
  if (!isObject(raw.trip_target_sample_request)) return 'rate_limit_trip.trip_target_sample_request is not a mapping';
  const n = raw.max_attempts;
  if (!Number.isInteger(n) || (n as number) < MAX_ATTEMPTS_MIN || (n as number) > MAX_ATTEMPTS_MAX)
    return `rate_limit_trip.max_attempts must be an integer in [${MAX_ATTEMPTS_MIN}, ${MAX_ATTEMPTS_MAX}] (the contract's bounds), got ${JSON.stringify(n)}`;
  const wait = raw.replay_max_wait_seconds;
  if (wait !== undefined && (typeof wait !== 'number' || !Number.isFinite(wait) || wait <= 0))
    return `rate_limit_trip.replay_max_wait_seconds must be a positive number, got ${JSON.stringify(wait)}`;
  return {
    task: raw.trip_target_task,
    request: raw.trip_target_sample_request,
    maxAttempts: n as number,
    maxWaitS: (wait as number | undefined) ?? DEFAULT_REPLAY_MAX_WAIT_S,
  };
}

/** The `retry_after` of a refusal, in seconds: the error's own, or its `details`' (older envelopes). */
export function retryAfterOf(reply: TaskReply): number | undefined {
  const raw = reply.error?.raw as { retry_after?: unknown; details?: { retry_after?: unknown } } | undefined;
  const s = raw?.retry_after ?? raw?.details?.retry_after;
  return typeof s === 'number' && Number.isFinite(s) ? s : undefined;
}

/** What the burst, the wait and the replay came to. */
export type TripObservation =
  | { kind: 'not_triggered'; attempts: number }
  | { kind: 'refused'; attempt: number; reply: TaskReply }
  | { kind: 'unreachable'; attempt: number; reply: TaskReply }
  | { kind: 'aborted'; attempt: number }
  | { kind: 'no_retry_after' | 'wait_exceeded'; attempt: number; key: string; trip: TaskReply; retryAfter?: number }
  | { kind: 'replayed'; attempt: number; key: string; trip: TaskReply; retryAfter: number; waitedS: number; replay: TaskReply };

export interface TripDriver {
  /** One call of the target task. */
  call(args: Record<string, unknown>): Promise<TaskReply>;
  /** Waits `ms` (rejecting when the run is aborted). */
  wait(ms: number): Promise<void>;
  aborted(): boolean;
  /** A fresh idempotency key. */
  key(): string;
}

/** The request of one call: the step's request with this key, and its correlation id tagged with the call's role. */
function withKey(request: Record<string, unknown>, key: string, tag: string): Record<string, unknown> {
  const context = isObject(request.context) ? request.context : {};
  const base = typeof context.correlation_id === 'string' ? context.correlation_id : 'rate_limit_trip';
  return { ...structuredClone(request), idempotency_key: key, context: { ...structuredClone(context), correlation_id: `${base}#${tag}` } };
}

/** Sends the burst (never more than `maxAttempts` calls), then the one replay: never an unbounded loop. */
export async function driveTrip(spec: TripSpec, request: Record<string, unknown>, d: TripDriver): Promise<TripObservation> {
  for (let attempt = 1; attempt <= spec.maxAttempts; attempt++) {
    if (d.aborted()) return { kind: 'aborted', attempt };
    const key = d.key();
    const reply = await d.call(withKey(request, key, `trip-${attempt}`));
    if (unreachable(reply)) return { kind: 'unreachable', attempt, reply };
    if (reply.error?.code === 'RATE_LIMITED') {
      const retryAfter = retryAfterOf(reply);
      if (retryAfter === undefined || retryAfter <= 0)
        return { kind: 'no_retry_after', attempt, key, trip: reply, ...(retryAfter !== undefined ? { retryAfter } : {}) };
      if (retryAfter > spec.maxWaitS) return { kind: 'wait_exceeded', attempt, key, trip: reply, retryAfter };
      // Fractions are rounded up (digest 3.6).
      const waitedS = Math.ceil(retryAfter);
      try {
        await d.wait(waitedS * 1000);
      } catch {
        return { kind: 'aborted', attempt };
      }
      const replay = await d.call(withKey(request, key, 'replay'));
      if (unreachable(replay)) return { kind: 'unreachable', attempt: attempt + 1, reply: replay };
      return { kind: 'replayed', attempt, key, trip: reply, retryAfter, waitedS, replay };
    }
    if (!reply.ok || reply.isError) return { kind: 'refused', attempt, reply };
  }
  return { kind: 'not_triggered', attempts: spec.maxAttempts };
}

/** A reply as the contract's `trip_response` / `replay_response`: success, the payload, the error. */
function snapshot(o: StepOutcome, reply: TaskReply): Record<string, unknown> {
  return {
    success: o.ok,
    ...(o.payload !== undefined ? { data: o.payload } : {}),
    ...(reply.error ? { error: { ...(isObject(reply.error.raw) ? reply.error.raw : {}), code: reply.error.code, message: reply.error.message } } : {}),
  };
}

/** Runs the step (the caller has resolved its substitutions through `substitute`). */
export async function rateLimitTripStep(
  ctx: CheckContext,
  step: StoryboardStep,
  kit: KitOf,
  state: StoryboardState,
  substitute: (v: unknown) => unknown,
): Promise<StepOutput> {
  const contract = step.raw.requires_contract;
  if (contract !== undefined && contract !== RATE_LIMIT_TRIP_CONTRACT)
    return skipped(
      { status: 'not_applicable', message: `${step.task} requires the ${String(contract)} contract, which the harness does not host` },
      'not_applicable',
    );
  const spec = tripSpecOf(step.raw.rate_limit_trip);
  if (typeof spec === 'string') return skipped({ status: 'not_applicable', message: spec }, 'not_applicable');
  const stage = lifecycleStageOf(ctx.profile.lifecycleStage, [ctx.profile.capabilities]);
  if (stage !== 'development' && stage !== 'testing') {
    const message = `${RATE_LIMIT_TRIP_CONTRACT} sends up to ${spec.maxAttempts} ${spec.task} calls and targets sandbox endpoints only (endpoint_scope: sandbox); the agent is taken for a ${stage} deployment`;
    return skipped(
      { status: 'gap', gap: 'a sandbox endpoint', message },
      'unsatisfied_contract',
      `${message}: run it against a sandbox (--lifecycle-stage development or testing)`,
    );
  }
  if (!ctx.profile.tasks.includes(spec.task)) return missingTool(spec.task, ctx);
  const auth = await stepAuth(step, kit, ctx);
  if (auth && 'verdict' in auth) return { verdict: auth.verdict };
  if (auth) ctx.notes.push(auth.note);
  const flight = rebaseStaleFlight(substitute(spec.request) as Record<string, unknown>, Date.now());
  if (flight.note) ctx.notes.push(flight.note);
  state.sent.set(step.id, flight.args);
  const maxWaitS = Math.min(spec.maxWaitS, HARNESS_MAX_WAIT_S);
  if (maxWaitS < spec.maxWaitS) ctx.notes.push(`replay_max_wait_seconds ${spec.maxWaitS} is waited as at most ${HARNESS_MAX_WAIT_S}`);

  const seen = await driveTrip({ ...spec, maxWaitS }, flight.args, {
    call: (args) => ctx.call(spec.task, args, auth ? { auth: auth.auth } : undefined),
    wait: (ms) => ctx.idle(() => sleep(ms, undefined, { signal: ctx.signal })),
    aborted: () => ctx.signal.aborted,
    key: randomUUID,
  });
  const burst = (n: number) => `${spec.task} sent ${n} time(s), each with a fresh idempotency key`;
  switch (seen.kind) {
    case 'not_triggered': {
      const message = `${NOT_TRIGGERED}: no RATE_LIMITED within ${seen.attempts} calls (${burst(seen.attempts)}); the limiter may sit above the contract's burst, so the replay invariant is not verified`;
      ctx.notes.push(message);
      return skipped({ status: 'not_applicable', message }, 'not_applicable', NOT_TRIGGERED);
    }
    case 'aborted': {
      const message = `the run's budget ran out during the rate-limit trip (after ${seen.attempt - 1} call(s))`;
      return skipped({ status: 'gap', gap: 'run budget', message }, 'unsatisfied_contract', `${message}; supply a larger --budget-s`);
    }
    case 'refused': {
      const code = seen.reply.error?.code ?? 'an error';
      const message = `${RATE_LIMIT_TRIP_CONTRACT}: call ${seen.attempt} of ${spec.task} was refused with ${code} before any RATE_LIMITED, so no burst could be driven and the replay invariant is not verified`;
      ctx.notes.push(burst(seen.attempt));
      return {
        ...skipped({ status: 'gap', gap: 'a trip request the agent takes', message }, 'unsatisfied_contract'),
        record: recordOf(seen.reply),
      };
    }
    case 'unreachable':
      return {
        verdict: unreachable(seen.reply)!,
        record: recordOf(seen.reply),
        storyboard: {
          reply: replyRecord(seen.reply),
          called: spec.task,
          validations: [
            {
              check: 'transport',
              outcome: 'failed',
              severity: 'required',
              description: 'the agent answers the task call',
              message: replyRecord(seen.reply).failure,
            },
          ],
        },
      };
    case 'no_retry_after':
    case 'wait_exceeded': {
      ctx.notes.push(`${burst(seen.attempt)}; call ${seen.attempt} answered RATE_LIMITED`);
      const missing = seen.kind === 'no_retry_after';
      const message = missing
        ? `missing_retry_after: the RATE_LIMITED answer to call ${seen.attempt} carries ${seen.retryAfter === undefined ? 'no' : `retry_after ${seen.retryAfter}, not a positive`} retry_after (digest 3.2 rule 8)`
        : `replay_wait_exceeded: the RATE_LIMITED answer to call ${seen.attempt} asks for retry_after ${seen.retryAfter} s, more than the step's replay_max_wait_seconds ${maxWaitS}`;
      const check = {
        ...runnerCheck(
          missing ? 'missing_retry_after' : 'replay_wait_exceeded',
          missing ? 'a RATE_LIMITED answer carries a positive retry_after' : "the RATE_LIMITED answer's retry_after is within the step's wait",
          message,
          missing ? 'a retry_after of 1-3600 seconds' : `at most ${maxWaitS}`,
          seen.retryAfter ?? null,
        ),
        pointer: '/trip_response/error/retry_after',
      };
      const actual = snapshot(outcomeOf(seen.trip, spec.task), seen.trip);
      return {
        verdict: { status: 'failed', message, expected: check.expected, actual: seen.retryAfter ?? null, pointer: check.pointer },
        record: { ...recordOf(seen.trip), payload: { trip_response: actual } },
        storyboard: { reply: replyRecord(seen.trip), validations: [check], called: spec.task },
      };
    }
    case 'replayed': {
      const trip = outcomeOf(seen.trip, spec.task);
      const replay = outcomeOf(seen.replay, spec.task);
      const body = {
        target_task: spec.task,
        attempts: seen.attempt,
        rate_limited_request: { task: spec.task, attempt: seen.attempt, idempotency_key: seen.key },
        retry_after_seconds: seen.retryAfter,
        waited_seconds: seen.waitedS,
        trip_response: snapshot(trip, seen.trip),
        replay_response: snapshot(replay, seen.replay),
      };
      ctx.notes.push(
        `${burst(seen.attempt)}; call ${seen.attempt} answered RATE_LIMITED (retry_after ${seen.retryAfter} s); after ${seen.waitedS} s its key was sent again and answered ${replay.ok ? 'without an error' : (replay.errorCode ?? 'an error')}`,
      );
      // The step's reply is the replay; validations read the contract's trip_response and replay_response.
      const outcome: StepOutcome = { ...replay, payload: body };
      state.outcomes.set(step.id, outcome);
      state.priorSteps.set(step.id, body);
      const results = requiredOf(step).map((v) => judgeValidation(v, outcome, { context: state.context, rateLimitTrip: { trip, replay } }));
      const record = { ...recordOf(seen.replay), payload: body };
      const found = (validations: typeof results) => ({ reply: replyRecord(seen.replay), validations, called: spec.task });
      const failure = failureOf(ctx, results);
      if (failure) return { verdict: failure.verdict, record, storyboard: found(failure.validations) };
      return { verdict: { status: 'ok' }, record, storyboard: found(results) };
    }
  }
}
