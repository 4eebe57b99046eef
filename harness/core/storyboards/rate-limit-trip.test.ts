/**
 * The rate_limit_trip_runner contract without an agent: the step's spec and its bounds, the burst
 * driven against scripted replies (how many calls, which keys, the wait, the one replay), and the
 * `replay_not_cached_rate_limit` judge on the two answers.
 */
import { describe, expect, it } from 'vitest';
import type { TaskReply } from '../transport/types.js';
import { driveTrip, retryAfterOf, tripSpecOf, type TripDriver, type TripSpec } from './rate-limit-trip.js';
import { judgeValidation, type StepOutcome } from './validations.js';

const ok = (payload: unknown = { media_buy_id: 'mb-1' }): TaskReply => ({
  transport: 'mcp',
  task: 'create_media_buy',
  ok: true,
  status: 'completed',
  payload,
  payloadSource: 'content_text',
  isError: false,
  durationMs: 0,
  exchanges: [],
  notes: [],
});
const refusal = (code: string, extra: Record<string, unknown> = {}): TaskReply => ({
  ...ok(),
  ok: false,
  status: 'failed',
  isError: true,
  payload: { code, message: 'no', ...extra },
  error: { code, message: 'no', source: 'is_error_text', raw: { code, message: 'no', ...extra } },
});
const down: TaskReply = { ...ok(), ok: false, payload: undefined, failure: { kind: 'network', message: 'ECONNREFUSED' } } as TaskReply;

const SPEC: TripSpec = {
  task: 'create_media_buy',
  request: { brand: { domain: 'b.example' }, context: { correlation_id: 'trip' } },
  maxAttempts: 50,
  maxWaitS: 30,
};

/** A driver answering the n-th call (1-based) with `answer(n, args)`, recording calls and waits. */
function scripted(answer: (n: number, args: Record<string, unknown>) => TaskReply) {
  const calls: Record<string, unknown>[] = [];
  const waits: number[] = [];
  let keys = 0;
  const driver: TripDriver = {
    call: async (args) => {
      calls.push(args);
      return answer(calls.length, args);
    },
    wait: async (ms) => {
      waits.push(ms);
    },
    aborted: () => false,
    key: () => `key-${String(++keys).padStart(16, '0')}`,
  };
  return { driver, calls, waits };
}

describe('rate_limit_trip spec', () => {
  const raw = { trip_target_task: 'create_media_buy', trip_target_sample_request: { a: 1 }, max_attempts: 200 };

  it('takes the task, request, attempts and wait (default 30 s)', () => {
    expect(tripSpecOf(raw)).toEqual({ task: 'create_media_buy', request: { a: 1 }, maxAttempts: 200, maxWaitS: 30 });
    expect(tripSpecOf({ ...raw, replay_max_wait_seconds: 5 })).toMatchObject({ maxWaitS: 5 });
  });

  it.each([
    [undefined, /no rate_limit_trip mapping/],
    [{ ...raw, trip_target_task: '' }, /trip_target_task/],
    [{ ...raw, trip_target_sample_request: [] }, /trip_target_sample_request/],
    [{ ...raw, max_attempts: 49 }, /max_attempts must be an integer in \[50, 500\].*49/],
    [{ ...raw, max_attempts: 501 }, /501/],
    [{ ...raw, max_attempts: 100.5 }, /max_attempts/],
    [{ ...raw, replay_max_wait_seconds: 0 }, /replay_max_wait_seconds/],
  ])('says why %j cannot be run', (spec, why) => {
    expect(tripSpecOf(spec)).toMatch(why);
  });

  it('reads retry_after from the error, or from its details (older envelopes)', () => {
    expect(retryAfterOf(refusal('RATE_LIMITED', { retry_after: 2 }))).toBe(2);
    expect(retryAfterOf(refusal('RATE_LIMITED', { details: { retry_after: 0.5 } }))).toBe(0.5);
    expect(retryAfterOf(refusal('RATE_LIMITED'))).toBeUndefined();
  });
});

describe('the burst', () => {
  it('sends fresh keys until RATE_LIMITED, waits retry_after (rounded up), then replays that key once with the same request', async () => {
    const { driver, calls, waits } = scripted((n) => (n === 3 ? refusal('RATE_LIMITED', { retry_after: 1.2 }) : ok()));
    const seen = await driveTrip(SPEC, SPEC.request, driver);
    expect(seen).toMatchObject({ kind: 'replayed', attempt: 3, key: 'key-0000000000000003', retryAfter: 1.2, waitedS: 2 });
    expect(calls).toHaveLength(4);
    expect(new Set(calls.slice(0, 3).map((c) => c.idempotency_key)).size).toBe(3);
    expect(calls[3].idempotency_key).toBe(calls[2].idempotency_key);
    expect(calls.map((c) => (c.context as { correlation_id: string }).correlation_id)).toEqual(['trip#trip-1', 'trip#trip-2', 'trip#trip-3', 'trip#replay']);
    const { idempotency_key: _a, context: _b, ...tripRest } = calls[2];
    const { idempotency_key: _c, context: _d, ...replayRest } = calls[3];
    expect(replayRest).toEqual(tripRest);
    expect(waits).toEqual([2000]);
  });

  it('stops after exactly max_attempts calls when the agent never trips', async () => {
    const { driver, calls, waits } = scripted(() => ok());
    expect(await driveTrip(SPEC, SPEC.request, driver)).toEqual({ kind: 'not_triggered', attempts: 50 });
    expect(calls).toHaveLength(50);
    expect(waits).toEqual([]);
  });

  it('stops at a refusal with another code, at a transport failure, and when the run is aborted', async () => {
    const refused = scripted((n) => (n === 2 ? refusal('INVALID_REQUEST') : ok()));
    expect(await driveTrip(SPEC, SPEC.request, refused.driver)).toMatchObject({ kind: 'refused', attempt: 2 });
    expect(refused.calls).toHaveLength(2);
    const unreachable = scripted(() => down);
    expect(await driveTrip(SPEC, SPEC.request, unreachable.driver)).toMatchObject({ kind: 'unreachable', attempt: 1 });
    const aborted = scripted(() => ok());
    let n = 0;
    expect(await driveTrip(SPEC, SPEC.request, { ...aborted.driver, aborted: () => ++n > 3 })).toEqual({ kind: 'aborted', attempt: 4 });
    expect(aborted.calls).toHaveLength(3);
  });

  it('does not replay a RATE_LIMITED without a positive retry_after, or asking for more than the step waits', async () => {
    for (const [extra, kind] of [
      [{}, 'no_retry_after'],
      [{ retry_after: 0 }, 'no_retry_after'],
      [{ retry_after: 31 }, 'wait_exceeded'],
    ] as const) {
      const { driver, calls, waits } = scripted(() => refusal('RATE_LIMITED', extra));
      expect(await driveTrip(SPEC, SPEC.request, driver)).toMatchObject({ kind, attempt: 1 });
      expect(calls).toHaveLength(1);
      expect(waits).toEqual([]);
    }
  });
});

describe('replay_not_cached_rate_limit', () => {
  const v = { check: 'replay_not_cached_rate_limit', description: 'not cached', raw: {} };
  const limited: StepOutcome = { ok: false, payload: { code: 'RATE_LIMITED' }, errorCode: 'RATE_LIMITED' };
  const judge = (replay: StepOutcome, trip: StepOutcome = limited) => judgeValidation(v, replay, { context: new Map(), rateLimitTrip: { trip, replay } });

  it('fails a replay answered RATE_LIMITED again, with expected, actual and the pointer', () => {
    const r = judge({ ...limited, payload: { code: 'RATE_LIMITED', replayed: true } });
    expect(r).toMatchObject({
      check: 'replay_not_cached_rate_limit',
      outcome: 'failed',
      severity: 'required',
      expected: 'an answer other than RATE_LIMITED (the request run afresh)',
      actual: 'RATE_LIMITED',
      pointer: '/replay_response/error/code',
    });
    expect(r.message).toMatch(/^rate_limit_response_cached_as_replay: .*flagged replayed: true/);
  });

  it('passes a replay that ran afresh: a success, or another error', () => {
    expect(judge({ ok: true, payload: { media_buy_id: 'mb-1' } })).toMatchObject({ outcome: 'passed', message: expect.stringMatching(/without an error/) });
    expect(judge({ ok: false, payload: {}, errorCode: 'ACCOUNT_SUSPENDED' })).toMatchObject({
      outcome: 'passed',
      message: expect.stringMatching(/ACCOUNT_SUSPENDED/),
    });
  });

  it('is not applicable on a step without a trip, or a trip that was no RATE_LIMITED', () => {
    expect(judgeValidation(v, limited, { context: new Map() })).toMatchObject({
      outcome: 'not_applicable',
      message: expect.stringMatching(/rate_limit_trip step only/),
    });
    expect(judge(limited, { ok: true, payload: {} })).toMatchObject({ outcome: 'not_applicable' });
  });
});
