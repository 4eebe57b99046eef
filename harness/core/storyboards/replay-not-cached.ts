/**
 * `replay_not_cached_rate_limit`, the cross-response kind of the `rate_limit_trip_runner` contract
 * (rate-limit-trip.ts; digest 3.2 rules 3 and 8): after the burst tripped the agent's limiter and the
 * harness waited the refusal's `retry_after`, the same key sent again must not come back RATE_LIMITED,
 * the refusal served from the idempotency cache. Any other answer holds: a success (the request ran
 * afresh) or another error (it ran and met a state-dependent refusal). Judged on a trip step only; on
 * any other step it is not applicable.
 */
import { fail, na, pass, type Judge } from './judge.js';

export const replayNotCachedRateLimit: Judge = (_v, _o, env) => {
  const trip = env.rateLimitTrip;
  if (!trip) return na('judged on a rate_limit_trip step only (the rate_limit_trip_runner contract); this step ran no trip');
  if (trip.trip.errorCode !== 'RATE_LIMITED') return na(`the trip answer is ${trip.trip.errorCode ?? 'no error'}, not RATE_LIMITED: nothing to judge`);
  const replay = trip.replay;
  if (replay.errorCode !== 'RATE_LIMITED')
    return {
      ...pass,
      message: `the replay after retry_after answered ${replay.ok ? 'without an error' : replay.errorCode ? `${replay.errorCode}` : 'an error'}: run afresh, not the cached RATE_LIMITED`,
    };
  const flagged = (replay.payload as { replayed?: unknown } | undefined)?.replayed === true ? ', flagged replayed: true' : '';
  return fail(
    `rate_limit_response_cached_as_replay: the key refused with RATE_LIMITED was sent again after its retry_after and answered RATE_LIMITED again${flagged}; a rate-limited request is never cached as the key's replay (digest 3.2 rules 3 and 8)`,
    'an answer other than RATE_LIMITED (the request run afresh)',
    'RATE_LIMITED',
    '/replay_response/error/code',
  );
};
