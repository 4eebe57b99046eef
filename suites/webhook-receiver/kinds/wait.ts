/**
 * `receiver_wait`: waits until the signature of an earlier send step has expired, plus `after`
 * (digest 1.12 probe: a replay sent after `expires`, while the 60 s clock-skew allowance of
 * checklist step 5 still admits the window, must still meet the cached nonce). Bounded: the wait
 * never exceeds MAX_WAIT_MS, and ends early when the run is aborted.
 */
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';
import { NO_RECEIVER, receiverTarget } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { OFFSET_PATTERN, parseOffset, scopeOf } from '../../../harness/core/webhooks/receiver-probe/scope.js';
import { sleepUnlessAborted } from './state.js';

export const MAX_WAIT_MS = 30_000;

export const receiverWait: StepKind = {
  name: 'receiver_wait',
  waits: true,
  fields: {
    /** The id of an earlier receiver_send step whose signature must have expired. */
    until_expired: { type: 'string' },
    /** How long past that `expires` (default +0s). */
    after: { type: 'string', pattern: OFFSET_PATTERN },
  },
  required: ['until_expired'],
  async run(step, ctx) {
    if (!receiverTarget(ctx)) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    const sent = scopeOf(ctx).sent.get(String(step.until_expired));
    if (sent?.expires === undefined) throw new Error(`receiver_wait: no earlier RFC 9421 send step "${String(step.until_expired)}"`);
    const until = sent.expires * 1000 + parseOffset(String(step.after ?? '+0s'));
    const ms = Math.min(MAX_WAIT_MS, Math.max(0, until - Date.now()));
    await ctx.idle(() => sleepUnlessAborted(ms, ctx.signal));
    return { verdict: { status: 'ok' } };
  },
};
