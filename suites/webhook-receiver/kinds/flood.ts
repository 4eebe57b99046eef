/**
 * `receiver_flood` (interface spec 6.5 rule 5): the harness's flood sender (its own `agents[]`
 * identity, so the main sender's dedup budget is untouched) sends distinct valid events until the
 * receiver answers 429, at most the declared bound + 1 of them. Dedup rows of earlier runs count
 * against the same bound, so the 429 may come sooner; that is a pass too. Keys are fresh random
 * values on every run (a seeded rerun would otherwise only send duplicates).
 */
import { randomUUID } from 'node:crypto';
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';
import type { WireExchange } from '../../../harness/core/transport/types.js';
import { NO_RECEIVER, postWebhook, probeEnv, receiverTarget } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { encodeEvent } from '../../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook } from '../../../harness/core/webhooks/receiver-probe/sender.js';

/** Largest declared bound the suite floods in one run. */
export const MAX_FLOOD_BOUND = 10_000;
export const FLOOD_CONCURRENCY = 8;

export const receiverFlood: StepKind = {
  name: 'receiver_flood',
  fields: {
    expect_status: { type: 'integer', minimum: 400, maximum: 599 },
  },
  required: ['expect_status'],
  async run(step, ctx) {
    const target = receiverTarget(ctx);
    if (!target) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    const bound = target.dedupBound;
    if (bound === undefined) {
      return {
        verdict: {
          status: 'gap',
          message: 'the receiver declared no dedup bound for the harness flood sender: give it with --receiver-dedup-bound N',
          gap: 'receiver options (--receiver-dedup-bound)',
        },
      };
    }
    if (bound > MAX_FLOOD_BOUND) {
      return {
        verdict: {
          status: 'gap',
          message: `declared dedup bound ${bound} is above ${MAX_FLOOD_BOUND}: configure a lower bound for the harness flood sender`,
          gap: 'receiver options (--receiver-dedup-bound)',
        },
      };
    }
    const env = await probeEnv(ctx);
    const expected = step.expect_status as number;
    const total = bound + 1;
    const evidence: WireExchange[] = [];
    let next = 0;
    let accepted = 0;
    let stop: { index: number; status?: number; code?: string; message: string } | undefined;

    const worker = async () => {
      while (stop === undefined && next < total && !flood.signal.aborted) {
        const index = next++;
        const taskId = randomUUID();
        const body = encodeEvent({
          format: ctx.kind,
          idempotencyKey: randomUUID(),
          taskId,
          operationId: randomUUID(),
          contextId: taskId,
          status: 'working',
          timestamp: new Date().toISOString(),
          context: { probe: ctx.checkId, flood: index },
        });
        const signed = signWebhook(env.identity, target.url, body, { role: 'flood' });
        const r = await postWebhook(ctx, env, target.url, signed.headers, signed.body, `flood #${index + 1}`, { record: false, signal: flood.signal });
        if (evidence.length < 2) evidence.push(r.result.exchange);
        if (r.status !== undefined && r.status >= 200 && r.status < 300) {
          accepted++;
          continue;
        }
        stop ??= { index, status: r.status, message: r.status === undefined && !r.result.ok ? r.result.failure.message : `HTTP ${r.status}` };
        evidence.push(r.result.exchange);
      }
    };
    // One listener on the run budget for the whole flood, not one per request in flight.
    const flood = new AbortController();
    const onAbort = () => flood.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, worker));
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
    ctx.exchanges.push(...evidence);
    ctx.notes.push(
      `flood sender ${env.identity.agentUrls.flood}: ${accepted} accepted before ${stop ? `HTTP ${stop.status ?? 'none'} at send #${stop.index + 1}` : 'the end'} (declared bound ${bound})`,
    );
    const record = { payload: { accepted, stopped_at: stop?.index, stop_status: stop?.status } };
    if (stop?.status === expected) return { verdict: { status: 'ok' }, record };
    if (stop === undefined) {
      return {
        verdict: {
          status: 'failed',
          message: `all ${accepted} distinct events were accepted: no HTTP ${expected} beyond the declared dedup bound of ${bound}`,
          expected: { status: expected, within_sends: total },
          actual: { accepted },
        },
        record,
      };
    }
    if (stop.status === undefined) {
      return {
        verdict: { status: 'failed', message: `the receiver gave no answer during the flood: ${stop.message}`, expected: { status: expected } },
        record,
      };
    }
    return {
      verdict: {
        status: 'failed',
        message: `the receiver answered ${stop.message} at send #${stop.index + 1}, expected ${expected} beyond the bound (accepted ${accepted})`,
        expected: { status: expected },
        actual: { status: stop.status },
      },
      record,
    };
  },
};
