/**
 * Account-level webhook subscriptions (3.1 and later; digest 5.2, 5.9; released 3.1 sync_accounts
 * "Account-level webhook subscriptions" and "Endpoint proof of control", core/notification-config.json,
 * core/webhook-challenge.json) and, with `scope: agent`, agent-level ones (3.2 betas:
 * sync_agent_notification_configs, core/agent-webhook-challenge.json, capabilities.changed in
 * core/capabilities-changed-webhook.json). The harness is the subscriber:
 *
 *   webhook_subscribe           registers this check's capture (made with `answer_challenges`) as an
 *                               active `notification_configs[]` entry through sync_accounts (or
 *                               sync_agent_notification_configs), then
 *                               judges what reached the capture before the answer (`judge`)
 *   webhook_subscription_event  waits for the events that reach the subscriber (challenges left
 *                               out) and judges each against its event-specific schema
 *
 * A seller that refuses the entry (its URL, say, under digest 5.9), echoes nothing and sent
 * nothing, or proves control by some request other than the standard challenge is a coverage
 * gap, never a failure: the released text allows "an activation challenge or equivalent
 * proof-of-control".
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordOf, type CheckContext, type StepKind, type StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { timing } from '../../../harness/core/webhooks/emission/config.js';
import type { Delivery } from '../../../harness/core/webhooks/emission/receiver.js';
import { isVerdict, receiverSettings as settingsOf, verifyEnvOf as verifyEnv } from '../../../harness/core/webhooks/emission/run-receiver.js';
import { deliveryView, snapshot } from '../../../harness/core/webhooks/emission/snapshot.js';
import { verifyCapture } from '../../../harness/core/webhooks/emission/verify.js';
import { parseBoundedJson } from '../../../harness/core/transport/bounded-json.js';
import { captureOf } from './steps.js';

const GAP = 'account-level notification_configs (sync_accounts, 3.1)';
const AGENT_GAP = 'agent-level notification_configs (sync_agent_notification_configs, 3.2)';

/** What differs between the account-level (sync_accounts) and agent-level (sync_agent_notification_configs) subscriber. */
interface Scope {
  gap: string;
  task: string;
  /** The fixture schema of its activation challenge. */
  challengeSchema: string;
  /** The check that judges its challenge's signature (blocks the shape check when no challenge came). */
  signedCheck: string;
  source: string;
}
const SCOPES: Record<'account' | 'agent', Scope> = {
  account: {
    gap: GAP,
    task: 'sync_accounts',
    challengeSchema: 'webhook-challenge',
    signedCheck: 'webhooks.subscription.challenge-signed',
    source: 'released 3.1 sync_accounts "Endpoint proof of control"',
  },
  agent: {
    gap: AGENT_GAP,
    task: 'sync_agent_notification_configs',
    challengeSchema: 'agent-webhook-challenge',
    signedCheck: 'webhooks.agent-subscription.challenge-signed',
    source: '3.2 core/agent-notification-config.json: proof of control before a new active subscriber is treated as active',
  },
};
const scopeOf = (step: Record<string, unknown>): Scope => SCOPES[step.scope === 'agent' ? 'agent' : 'account'];
const MAX_TEXT = 300;

function bodyOf(d: Delivery): Record<string, unknown> | undefined {
  const r = parseBoundedJson(d.raw.toString('utf8'));
  return r.ok && typeof r.value === 'object' && r.value !== null && !Array.isArray(r.value) ? (r.value as Record<string, unknown>) : undefined;
}

const isChallenge = (d: Delivery) => bodyOf(d)?.type === 'webhook.challenge';
const short = (v: unknown) => JSON.stringify(v)?.slice(0, MAX_TEXT) ?? String(v);

/** The sync_accounts entry for the account: settings-update mode for an account_id, provisioning mode otherwise. */
function entryFor(account: Record<string, unknown>, config: Record<string, unknown>): Record<string, unknown> {
  if (typeof account.account_id === 'string') return { account: { account_id: account.account_id }, notification_configs: [config] };
  const { brand, operator, sandbox } = account;
  return { brand, operator, billing: account.billing ?? 'operator', ...(sandbox === true ? { sandbox: true } : {}), notification_configs: [config] };
}

function sameSet(a: unknown, b: string[]): boolean {
  return Array.isArray(a) && a.length === b.length && b.every((x) => a.includes(x));
}

export const webhookSubscribe: StepKind = {
  name: 'webhook_subscribe',
  fields: {
    /** Id of this check's webhook_receiver step (made with answer_challenges: true). */
    receiver: { type: 'string', minLength: 1 },
    /** account (default): sync_accounts notification_configs[] (3.1+); agent: sync_agent_notification_configs (3.2). */
    scope: { enum: ['account', 'agent'] },
    /** The account reference (templated, account scope only): {account_id} or a natural key {brand, operator, sandbox?}. */
    account: {},
    subscriber_id: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
    event_types: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 11 },
    /** What is judged: the challenge's signature and order, its body, or nothing (setup of an event check). */
    judge: { enum: ['challenge-signed', 'challenge-shape', 'none'] },
  },
  required: ['receiver', 'subscriber_id', 'event_types'],
  async run(step, ctx) {
    const settings = settingsOf(ctx);
    if (isVerdict(settings)) return { verdict: settings };
    const capture = await captureOf(ctx, step.receiver as string);
    if (isVerdict(capture)) return { verdict: capture };
    const scope = scopeOf(step);
    const sid = String(step.subscriber_id);
    const eventTypes = step.event_types as string[];
    const config = { subscriber_id: sid, url: capture.url, event_types: eventTypes, active: true };
    const args =
      scope === SCOPES.agent
        ? { idempotency_key: randomUUID(), notification_configs: [config] }
        : { idempotency_key: randomUUID(), accounts: [entryFor(ctx.expand(step.account) as Record<string, unknown>, config)] };
    const reply = await ctx.call(scope.task, args, { purpose: `${scope.task} registering a webhook subscriber (${scope.gap})` });
    const record = recordOf(reply);
    const upto = capture.deliveries.length;
    await verifyCapture(capture, await verifyEnv(ctx, capture, settings));
    for (const d of capture.deliveries.slice(0, upto)) if (!ctx.exchanges.includes(d.exchange)) ctx.exchanges.push(d.exchange);
    const verdict = judgeSubscription(ctx, scope, capture.deliveries.slice(0, upto), reply, sid, eventTypes, String(step.judge ?? 'none'));
    return { verdict, record };
  },
};

function judgeSubscription(
  ctx: CheckContext,
  scope: Scope,
  before: Delivery[],
  reply: Awaited<ReturnType<CheckContext['call']>>,
  sid: string,
  eventTypes: string[],
  judge: string,
): StepVerdict {
  if (!reply.ok) {
    const why = reply.error ? `${reply.error.code}: ${reply.error.message ?? ''}` : (reply.failure?.message ?? reply.status);
    return { status: 'gap', gap: scope.gap, message: `${scope.task} with notification_configs[] was refused (${String(why).slice(0, MAX_TEXT)})` };
  }
  const payload = reply.payload as { accounts?: Record<string, unknown>[] } | undefined;
  const entry = scope === SCOPES.agent ? (payload as Record<string, unknown> | undefined) : payload?.accounts?.[0];
  if (entry?.action === 'failed') {
    const where = scope === SCOPES.agent ? 'the replacement' : 'accounts[0]';
    return { status: 'gap', gap: scope.gap, message: `the seller did not take the subscriber: ${where} failed with ${short(entry.errors)}` };
  }
  const configs = Array.isArray(entry?.notification_configs) ? (entry.notification_configs as Record<string, unknown>[]) : [];
  const echoed = configs.find((c) => c?.subscriber_id === sid);
  const echoedActive = echoed !== undefined && echoed.active !== false;
  const challenge = before.find(isChallenge);
  const firstOther = before.find((d) => !isChallenge(d));
  if (!challenge && firstOther) {
    return {
      status: 'gap',
      gap: scope.gap,
      message: `the seller proved control of the URL by a request other than the standard webhook.challenge (${short(bodyOf(firstOther) ?? '(not JSON)')}); this harness answers only the standard one`,
    };
  }
  if (!challenge && !echoedActive) {
    return {
      status: 'gap',
      gap: scope.gap,
      message: `the seller sent no activation challenge and did not echo the subscriber as active: it does not take ${scope.gap} (or activates later)`,
    };
  }
  if (judge === 'none') return { status: 'ok' };
  if (!challenge) {
    if (judge === 'challenge-shape') return { status: 'unmet', message: 'no activation challenge reached the subscriber', blocked_by: scope.signedCheck };
    return {
      status: 'failed',
      message: `${scope.task} echoed the new subscriber as active although nothing reached its URL: no activation challenge (${scope.source})`,
      actual: echoed,
      pointer: scope === SCOPES.agent ? '/notification_configs' : '/accounts/0/notification_configs',
    };
  }
  const body = bodyOf(challenge)!;
  const v = challenge.verification;
  if (judge === 'challenge-signed') {
    if (v?.verdict.ok) return { status: 'ok' };
    const detail = v && !v.verdict.ok ? `${v.verdict.code ?? ''} ${v.verdict.detail}`.trim() : 'not verified';
    return {
      status: 'failed',
      message: `the activation challenge does not verify under the RFC 9421 webhook profile (${detail.slice(0, MAX_TEXT)}); the challenge POST itself must be signed`,
      actual: deliveryView(challenge),
    };
  }
  const schema = ctx.schemas.validate(scope.challengeSchema, body);
  if (!schema.valid) {
    const e = schema.errors[0]!;
    return {
      status: 'failed',
      message: `the activation challenge is not shaped as core/${scope.challengeSchema}.json: ${e.pointer} ${e.message}`,
      actual: body,
      pointer: e.pointer,
    };
  }
  const wrong = [
    body.subscriber_id !== sid ? `subscriber_id ${short(body.subscriber_id)} (registered ${sid})` : '',
    sameSet(body.event_types, eventTypes) ? '' : `event_types ${short(body.event_types)} (registered ${short(eventTypes)})`,
    (body.delivery_auth as { mode?: unknown })?.mode === 'rfc9421'
      ? ''
      : `delivery_auth ${short(body.delivery_auth)} (registered without authentication: rfc9421)`,
  ].filter(Boolean);
  if (wrong.length > 0)
    return { status: 'failed', message: `the activation challenge does not name the pending registration: ${wrong.join('; ')}`, actual: body };
  return { status: 'ok' };
}

export const webhookSubscriptionEvent: StepKind = {
  name: 'webhook_subscription_event',
  waits: true,
  fields: {
    receiver: { type: 'string', minLength: 1 },
    /** The subscriber's scope (names the coverage gap): account (default) or agent. */
    scope: { enum: ['account', 'agent'] },
    /** The fixture schema each event must match (e.g. creative-status-changed-webhook). */
    schema: { type: 'string', minLength: 1 },
    /** The coverage gap reported when no event arrives (the rule judges events, not whether one fires). */
    none_reason: { type: 'string', minLength: 1 },
    wait_s: { type: 'number', exclusiveMinimum: 0, maximum: 120 },
  },
  required: ['receiver', 'schema', 'none_reason'],
  async run(step, ctx) {
    const settings = settingsOf(ctx);
    if (isVerdict(settings)) return { verdict: settings };
    const capture = await captureOf(ctx, step.receiver as string);
    if (isVerdict(capture)) return { verdict: capture };
    const limits = timing(settings, ctx.transport.endpoint);
    const waitMs = step.wait_s !== undefined ? Math.round((step.wait_s as number) * 1000) : limits.waitMs;
    const events = () => capture.deliveries.filter((d) => !isChallenge(d));
    const upto = await ctx.idle(async () => {
      const got = await capture.waitUntil(() => events().length > 0, waitMs, ctx.signal);
      // Late duplicates and further events of the same fire are judged too.
      if (got && !ctx.signal.aborted) await sleep(limits.quietMs, undefined, { signal: ctx.signal }).catch(() => undefined);
      return capture.deliveries.length;
    });
    if (ctx.signal.aborted) return { verdict: { status: 'unmet', message: 'the run budget ran out while waiting for webhooks' } };
    await verifyCapture(capture, await verifyEnv(ctx, capture, settings));
    const seen = capture.deliveries.slice(0, upto);
    for (const d of seen) if (!ctx.exchanges.includes(d.exchange)) ctx.exchanges.push(d.exchange);
    const record = { task: 'webhooks received', payload: snapshot(capture, upto) };
    const evs = seen.filter((d) => !isChallenge(d));
    if (evs.length === 0) return { verdict: { status: 'gap', gap: scopeOf(step).gap, message: String(step.none_reason) }, record };
    const name = String(step.schema);
    for (const d of evs) {
      const body = bodyOf(d);
      const r = ctx.schemas.validate(name, body ?? d.raw.toString('utf8').slice(0, MAX_TEXT));
      if (!r.valid) {
        const e = r.errors[0]!;
        return {
          verdict: {
            status: 'failed',
            message: `delivery ${d.n} to the subscriber is not the event-specific payload (schema ${name}): ${e.pointer || '(body)'} ${e.message}`,
            expected: r.errors.slice(0, 5).map((x) => `${x.pointer} ${x.message}`),
            actual: body ?? null,
            pointer: e.pointer,
          },
          record,
        };
      }
    }
    return { verdict: { status: 'ok' }, record };
  },
};
