/**
 * Code-only step kinds of the `webhooks` suite (grading a seller's webhook emission):
 *
 *   webhook_receiver  open (once per run) the capture receiver and make a capture for this check;
 *                     saves {url, capture, secret?} for the registration templates
 *   webhook_wait      wait (bounded by the per-step limit and the run budget) until the capture
 *                     holds enough deliveries or events, optionally watch a quiet period, verify
 *                     what arrived, save a snapshot and judge it
 *   webhook_activity  poll get_media_buys {include_webhook_activity: true} until the attempts of
 *                     one event are recorded (the seller records after the receiver answered)
 */
import { parseBoundedJson } from '../../../harness/core/transport/bounded-json.js';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExpectationDef, StepDef } from '../../../harness/core/engine/model.js';
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { recordOf } from '../../../harness/core/engine/kinds/types.js';
import { timing } from '../../../harness/core/webhooks/emission/config.js';
import type { AnswerSpec, Capture, Delivery } from '../../../harness/core/webhooks/emission/receiver.js';
import {
  isVerdict,
  receiverSettings as settingsOf,
  runReceiver as receiverOf,
  unreachableReceiver,
  verifyEnvOf as verifyEnv,
} from '../../../harness/core/webhooks/emission/run-receiver.js';
import { envelopeKey, matchesWhere, snapshot } from '../../../harness/core/webhooks/emission/snapshot.js';
import { verifyCapture } from '../../../harness/core/webhooks/emission/verify.js';

const ANSWER = {
  oneOf: [
    { type: 'integer', minimum: 200, maximum: 599 },
    {
      type: 'object',
      properties: {
        status: { type: 'integer', minimum: 200, maximum: 599 },
        www_authenticate: { type: 'string', minLength: 1 },
        /** A Location header (templates expanded), e.g. another capture's URL for a 307. */
        location: { type: 'string', minLength: 1 },
      },
      required: ['status'],
      additionalProperties: false,
    },
  ],
};

/** The capture a `webhook_receiver` step of this check made. */
export async function captureOf(ctx: CheckContext, stepId: string): Promise<Capture | StepVerdict> {
  const rec = ctx.steps[stepId]?.payload as { capture?: string } | undefined;
  if (!rec?.capture) return { status: 'unmet', message: `no webhook_receiver step "${stepId}" ran before` };
  const settings = settingsOf(ctx);
  if (isVerdict(settings)) return settings;
  const capture = (await receiverOf(ctx, settings)).get(rec.capture);
  return capture ?? { status: 'unmet', message: `capture ${rec.capture} is unknown to the receiver` };
}

export const webhookReceiver: StepKind = {
  name: 'webhook_receiver',
  fields: {
    /** Answers to the first deliveries (an HTTP status or {status, www_authenticate}); later ones get 200. */
    answers: { type: 'array', items: ANSWER, maxItems: 10 },
    /** How the registration authenticates deliveries: RFC 9421 (default) or legacy HMAC with a fresh secret. */
    mode: { enum: ['signature', 'hmac'] },
    /** Answer an account-level activation challenge (3.1 core/webhook-challenge.json) by echoing its value. */
    answer_challenges: { type: 'boolean' },
  },
  async run(step, ctx) {
    const settings = settingsOf(ctx);
    if (isVerdict(settings)) return { verdict: settings };
    const unreachable = unreachableReceiver(ctx, settings);
    if (unreachable) return { verdict: unreachable };
    const receiver = await receiverOf(ctx, settings);
    const answers: AnswerSpec[] = ((step.answers as unknown[] | undefined) ?? []).map((a) =>
      typeof a === 'number'
        ? { status: a }
        : (a as AnswerSpec).location !== undefined
          ? { ...(a as AnswerSpec), location: String(ctx.expand((a as AnswerSpec).location)) }
          : (a as AnswerSpec),
    );
    const mode = (step.mode as 'signature' | 'hmac' | undefined) ?? 'signature';
    const secret = mode === 'hmac' ? randomBytes(33).toString('base64url') : undefined;
    const capture = receiver.create({ answers, mode, secret, ...(step.answer_challenges === true ? { answerChallenges: true } : {}) });
    return { verdict: { status: 'ok' }, record: { payload: { url: capture.url, capture: capture.id, ...(secret ? { secret } : {}) } } };
  },
};

const parsed = new WeakMap<Delivery, unknown>();
function bodyOf(d: Delivery): unknown {
  if (!parsed.has(d)) {
    const body = parseBoundedJson(d.raw.toString('utf8'));
    const v: unknown = body.ok ? body.value : null;
    parsed.set(d, v);
  }
  return parsed.get(d);
}

function counts(capture: Capture, where: Record<string, unknown> | undefined): { deliveries: number; events: number } {
  const matching = capture.deliveries.filter((d) => matchesWhere(bodyOf(d), where));
  const keys = new Set(matching.map((d, i) => envelopeKey(bodyOf(d)) ?? `#${i}`));
  return { deliveries: matching.length, events: keys.size };
}

export const webhookWait: StepKind = {
  name: 'webhook_wait',
  waits: true,
  fields: {
    /** Id of this check's webhook_receiver step. */
    receiver: { type: 'string', minLength: 1 },
    /** Wait for at least this many distinct events (idempotency keys) / deliveries matching `where`. */
    events: { type: 'integer', minimum: 0, maximum: 50 },
    deliveries: { type: 'integer', minimum: 0, maximum: 50 },
    /** JSON pointer → value that counted deliveries must carry, e.g. {"/result/notification_type": final}. */
    where: { type: 'object' },
    /** After the counts are reached, keep listening for the quiet period (to see what should not come). */
    quiet: { type: 'boolean' },
    /** Override of the per-step wait limit, seconds. */
    wait_s: { type: 'number', exclusiveMinimum: 0, maximum: 600 },
    expect: { type: 'array' },
  },
  required: ['receiver'],
  expectationFields: ['expect'],
  async run(step: StepDef, ctx) {
    const settings = settingsOf(ctx);
    if (isVerdict(settings)) return { verdict: settings };
    const capture = await captureOf(ctx, step.receiver as string);
    if (isVerdict(capture)) return { verdict: capture };
    const where = step.where === undefined ? undefined : (ctx.expand(step.where) as Record<string, unknown>);
    const quiet = step.quiet === true;
    const wantEvents = (step.events as number | undefined) ?? 0;
    const wantDeliveries = (step.deliveries as number | undefined) ?? (step.events === undefined && !quiet ? 1 : 0);
    const limits = timing(settings, ctx.transport.endpoint);
    const waitMs = step.wait_s !== undefined ? Math.round((step.wait_s as number) * 1000) : limits.waitMs;
    // Waiting for the seller's deliveries and watching the quiet period send nothing to the agent:
    // the check's concurrency slot is lent out meanwhile.
    const { reached, upto } = await ctx.idle(async () => {
      const got = await capture.waitUntil(
        () => {
          const c = counts(capture, where);
          return c.events >= wantEvents && c.deliveries >= wantDeliveries;
        },
        waitMs,
        ctx.signal,
      );
      if (got && quiet && !ctx.signal.aborted) await sleep(limits.quietMs, undefined, { signal: ctx.signal }).catch(() => undefined);
      // Judge what had arrived when the wait ended (not when the slot came back); anything later
      // is not verified yet and stays out.
      return { reached: got, upto: capture.deliveries.length };
    });
    if (ctx.signal.aborted) return { verdict: { status: 'unmet', message: 'the run budget ran out while waiting for webhooks' } };
    await verifyCapture(capture, await verifyEnv(ctx, capture, settings));
    for (const d of capture.deliveries.slice(0, upto)) if (!ctx.exchanges.includes(d.exchange)) ctx.exchanges.push(d.exchange);
    const snap = snapshot(capture, upto);
    const record = { task: 'webhooks received', payload: snap };
    if (!reached) {
      const c = counts(capture, where);
      const wanted = [wantEvents ? `${wantEvents} event(s)` : '', wantDeliveries ? `${wantDeliveries} deliver${wantDeliveries === 1 ? 'y' : 'ies'}` : '']
        .filter(Boolean)
        .join(' and ');
      return {
        verdict: {
          status: 'failed',
          message: `expected ${wanted}${where ? ` matching ${JSON.stringify(where)}` : ''} at the webhook receiver (${step.receiver as string}) within ${waitMs / 1000} s; got ${c.events} event(s) in ${c.deliveries} matching deliver${c.deliveries === 1 ? 'y' : 'ies'} (${capture.deliveries.length} in all)`,
          expected: { events: wantEvents, deliveries: wantDeliveries, where },
          actual: snap.deliveries.map((d) => ({ answered: d.answered, body: d.body })),
        },
        record,
      };
    }
    const j = ctx.judge(step.expect as ExpectationDef[] | undefined, { record });
    if (j.ok) return { verdict: { status: 'ok' }, record };
    return {
      verdict: { status: 'failed', message: `webhooks: ${j.message ?? 'expectation failed'}`, expected: j.expected, actual: j.actual, pointer: j.pointer },
      record,
    };
  },
};

interface ActivityEntry {
  idempotency_key?: unknown;
  status?: unknown;
  http_status_code?: unknown;
}

export const webhookActivity: StepKind = {
  name: 'webhook_activity',
  waits: true,
  fields: {
    /** get_media_buys arguments naming the buy (include_webhook_activity is added). */
    args: { type: 'object' },
    /** The event whose attempts must be recorded (a template such as {{steps.hooks.payload.keys.0}}). */
    key: { type: 'string', minLength: 1 },
    /** An attempt answered with this HTTP status must be recorded besides the successful one. */
    failed_status: { type: 'integer', minimum: 200, maximum: 599 },
    wait_s: { type: 'number', exclusiveMinimum: 0, maximum: 120 },
    /** The check whose rule a read that does not answer at all breaks (get_media_buys reads a created buy back). */
    read_owner: { type: 'string', minLength: 1 },
  },
  required: ['args', 'key'],
  async run(step, ctx) {
    const settings = settingsOf(ctx);
    if (isVerdict(settings)) return { verdict: settings };
    const args = { ...(ctx.expand(step.args) as Record<string, unknown>), include_webhook_activity: true };
    const key = String(ctx.expand(step.key));
    const failedStatus = step.failed_status as number | undefined;
    const deadline = Date.now() + (step.wait_s !== undefined ? (step.wait_s as number) * 1000 : timing(settings, ctx.transport.endpoint).waitMs);
    let pause = 50;
    for (;;) {
      const reply = await ctx.call('get_media_buys', args, { purpose: 'get_media_buys (webhook activity)' });
      const record = recordOf(reply);
      if (!reply.ok)
        return {
          verdict: {
            status: 'failed',
            message: `get_media_buys with include_webhook_activity failed: ${reply.error?.code ?? reply.failure?.message ?? reply.status}`,
            ...(step.read_owner !== undefined ? { owner: String(step.read_owner) } : {}),
          },
          record,
        };
      const buys = (reply.payload as { media_buys?: { webhook_activity?: unknown }[] } | undefined)?.media_buys;
      if (step.read_owner !== undefined && (!Array.isArray(buys) || buys.length === 0))
        return { verdict: { status: 'failed', message: 'get_media_buys did not list the buy', owner: String(step.read_owner) }, record };
      const activity = Array.isArray(buys) && buys.length > 0 ? buys[0]!.webhook_activity : undefined;
      if (!Array.isArray(activity)) {
        return {
          verdict: {
            status: 'failed',
            message: 'get_media_buys {include_webhook_activity: true} returned no webhook_activity[] for the buy',
            pointer: '/media_buys/0/webhook_activity',
          },
          record,
        };
      }
      const mine = (activity as ActivityEntry[]).filter((e) => e.idempotency_key === key);
      const succeeded = mine.some((e) => e.status === 'success');
      const failed = failedStatus === undefined || mine.some((e) => e.http_status_code === failedStatus && e.status !== 'success');
      if (succeeded && failed) return { verdict: { status: 'ok' }, record };
      if (Date.now() + pause > deadline || ctx.signal.aborted) {
        return {
          verdict: {
            status: 'failed',
            message: `webhook_activity[] does not record the attempts of event ${key}: ${succeeded ? '' : 'no successful attempt'}${!succeeded && !failed ? ' and ' : ''}${failed ? '' : `no attempt answered ${failedStatus}`}`,
            expected: { idempotency_key: key, statuses: ['success', ...(failedStatus ? [`failed with http_status_code ${failedStatus}`] : [])] },
            actual: activity,
            pointer: '/media_buys/0/webhook_activity',
          },
          record,
        };
      }
      await ctx.idle(() => sleep(pause, undefined, { signal: ctx.signal }).catch(() => undefined));
      pause = Math.min(pause * 2, 500);
    }
  },
};
