/**
 * The webhook pseudo-tasks of storyboards (digest 6.1, 2.7; the bundle's storyboard schema,
 * "Webhook-assertion steps"), judged on what reached the harness's receiver at the URLs the
 * `triggered_by` step sent (runner-webhooks.ts), never by calling the agent:
 *
 *   expect_webhook                     a delivery matching `filter` arrives within `timeout_seconds`
 *                                      (30) with a well-formed idempotency_key (unless
 *                                      `expect_idempotency_key: false`), valid against
 *                                      `webhook_payload_schema_ref`; with
 *                                      `expect_max_deliveries_per_logical_event` the whole window
 *                                      is watched and distinct keys counted
 *   expect_no_webhook                  nothing matching arrives within `timeout_seconds` (5)
 *   expect_webhook_retry_keys_stable   the receiver answered the first deliveries as
 *                                      `retry_trigger` says; at least `expect_min_deliveries` (2)
 *                                      arrive within `timeout_seconds` (90), ending when one was
 *                                      answered 2xx, all with the byte-identical key; signed ones
 *                                      must verify (fresh nonces) unless
 *                                      `verify_signature_on_every_delivery: false`
 *   expect_webhook_signature_valid     the first matching delivery verifies under the RFC 9421
 *                                      webhook profile with the agent's published keys and the
 *                                      run's replay cache, carrying `require_tag`
 *
 * `filter.operation_id` written `{{prior_step.<id>.operation_id}}` is the operation_id that step
 * registered (its push_notification_config); without one, the step's own URL alone scopes the
 * deliveries, as the reference runner's URL-minted id does. Other filter members match top-level
 * members of the payload, `filter.body` dotted paths. Waits are bounded (300 s at most) and end
 * early when the outcome is decided. Failure messages start with the schema's error codes.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CheckContext, StepRecord, StepVerdict } from '../engine/kinds/types.js';
import { parseBoundedJson } from '../transport/bounded-json.js';
import type { EmissionSettings } from '../webhooks/emission/config.js';
import type { Capture, Delivery } from '../webhooks/emission/receiver.js';
import { isVerdict, receiverSettings, verifyEnvOf } from '../webhooks/emission/run-receiver.js';
import { deliveryView, type DeliveryView } from '../webhooks/emission/snapshot.js';
import { verifyCapture } from '../webhooks/emission/verify.js';
import type { StoryboardStep } from './model.js';
import { resolveStoryboardPath } from './path.js';
import type { StoryboardState } from './state.js';

export const WEBHOOK_STEPS = new Set(['expect_webhook', 'expect_no_webhook', 'expect_webhook_retry_keys_stable', 'expect_webhook_signature_valid']);

/** The receiver contract these steps need (a step naming another one is not applicable). */
export const RECEIVER_CONTRACT = 'webhook_receiver_runner';
const DEFAULT_TIMEOUT_S: Record<string, number> = {
  expect_webhook: 30,
  expect_no_webhook: 5,
  expect_webhook_retry_keys_stable: 90,
  expect_webhook_signature_valid: 30,
};
const MAX_TIMEOUT_S = 300;
/** digest 5.2: the MCP envelope's idempotency_key. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,255}$/;

interface Filter {
  operationId?: string;
  fields: Record<string, unknown>;
  body: Record<string, unknown>;
}

export interface WebhookStepEnv {
  /** A filter value after the step's substitutions (throws UnresolvedSubstitution). */
  substitute(value: unknown): unknown;
  state: StoryboardState;
}

type Result = { verdict: StepVerdict; record?: StepRecord };

const bodies = new WeakMap<Delivery, unknown>();
function bodyOf(d: Delivery): unknown {
  if (!bodies.has(d)) {
    const parsed = d.tooLarge ? undefined : parseBoundedJson(d.raw.toString('utf8'));
    bodies.set(d, parsed?.ok ? parsed.value : undefined);
  }
  return bodies.get(d);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const registrationOf = (sent: Record<string, unknown> | undefined) => (isObject(sent?.push_notification_config) ? sent.push_notification_config : undefined);

function buildFilter(step: StoryboardStep, trigger: string, env: WebhookStepEnv, notes: string[]): Filter {
  const authored = isObject(step.raw.filter) ? step.raw.filter : {};
  const filter: Filter = { fields: {}, body: {} };
  for (const [k, v] of Object.entries(authored)) {
    const registered = typeof v === 'string' ? /^\{\{\s*prior_step\.([^.}\s]+)\.operation_id\s*\}\}$/.exec(v)?.[1] : undefined;
    if (k === 'operation_id' && registered !== undefined) {
      const op = registrationOf(env.state.sent.get(registered))?.operation_id;
      if (typeof op === 'string') filter.operationId = op;
      else notes.push(`step ${registered} registered no operation_id: deliveries are matched by the URL it sent alone`);
    } else if (k === 'body' && isObject(v)) filter.body = env.substitute(v) as Record<string, unknown>;
    else if (k === 'operation_id') filter.operationId = String(env.substitute(v));
    else filter.fields[k] = env.substitute(v);
  }
  if (Object.keys(authored).length === 0) notes.push(`no filter: every delivery to the URLs step ${trigger} sent counts`);
  return filter;
}

function matches(d: Delivery, f: Filter): boolean {
  const body = bodyOf(d);
  const hasMembers = f.operationId !== undefined || Object.keys(f.fields).length + Object.keys(f.body).length > 0;
  if (!hasMembers) return true;
  if (!isObject(body)) return false;
  if (f.operationId !== undefined && body.operation_id !== f.operationId) return false;
  if (!Object.entries(f.fields).every(([k, v]) => isDeepStrictEqual(body[k], v))) return false;
  return Object.entries(f.body).every(([path, v]) => {
    try {
      return isDeepStrictEqual(resolveStoryboardPath(body, path), v);
    } catch {
      return false;
    }
  });
}

/** Waits (bounded, lending the check's slot) until `done` holds over the matching deliveries; true when it did. */
async function waitFor(ctx: CheckContext, captures: Capture[], filter: Filter, done: (m: Delivery[]) => boolean, ms: number): Promise<boolean> {
  const matching = () => captures.flatMap((c) => c.deliveries.filter((d) => matches(d, filter)));
  return ctx.idle(async () => {
    if (captures.length === 1) return captures[0]!.waitUntil(() => done(matching()), ms, ctx.signal);
    // Several URLs: every capture wakes the same check.
    const wakes = captures.map((c) => c.waitUntil(() => done(matching()), ms, ctx.signal));
    return (await Promise.race(wakes)) || done(matching());
  });
}

const failed = (message: string, expected?: unknown, actual?: unknown): StepVerdict => ({ status: 'failed', message, expected, actual });
const keyOf = (d: Delivery) => (isObject(bodyOf(d)) ? (bodyOf(d) as Record<string, unknown>).idempotency_key : undefined);

function keyProblem(d: Delivery, formatCode = 'invalid_idempotency_key_format'): StepVerdict | undefined {
  const body = bodyOf(d);
  if (!isObject(body)) return failed(`schema_violation: delivery ${d.n} is not a JSON object`, 'a JSON object body', d.raw.toString('utf8').slice(0, 256));
  const key = body.idempotency_key;
  if (typeof key !== 'string' || key === '')
    return failed(`missing_idempotency_key: delivery ${d.n} carries no idempotency_key`, 'a non-empty string', key ?? null);
  if (!IDEMPOTENCY_KEY.test(key)) return failed(`${formatCode}: delivery ${d.n} carries ${JSON.stringify(key)}`, IDEMPOTENCY_KEY.source, key);
  return undefined;
}

/** The signature failure of a verified delivery, as the schema's `signature_*` code. */
function signatureProblem(v: DeliveryView, requireTag: string | undefined): StepVerdict | undefined {
  if (!v.verified)
    return failed(
      `${(v.verify_code ?? 'webhook_signature_invalid').replace(/^webhook_/, '')}: delivery ${v.n} does not verify under the RFC 9421 webhook profile (${v.verify_code ?? 'no code'}: ${v.verify_detail ?? ''})`,
      'a signature that verifies with a key the agent publishes',
      v.signature ?? v.headers,
    );
  if (requireTag !== undefined && v.signature?.tag !== requireTag)
    return failed(`signature_tag_invalid: delivery ${v.n} is signed with tag ${JSON.stringify(v.signature?.tag)}`, requireTag, v.signature?.tag);
  return undefined;
}

export async function runWebhookStep(step: StoryboardStep, ctx: CheckContext, env: WebhookStepEnv): Promise<Result> {
  const contract = step.raw.requires_contract;
  if (contract !== undefined && contract !== RECEIVER_CONTRACT)
    return { verdict: { status: 'not_applicable', message: `${step.task} requires the ${String(contract)} contract, which the harness does not host` } };
  const trigger = step.raw.triggered_by;
  if (typeof trigger !== 'string')
    return {
      verdict: { status: 'not_applicable', message: `the storyboard's ${step.task} step names no triggered_by step, so no delivery can be attributed to it` },
    };
  const urls = env.state.hookUrlsOf.get(trigger) ?? [];
  const captures = urls.map((u) => env.state.hooks.get(u)).filter((c): c is Capture => c !== undefined);
  if (captures.length === 0)
    return {
      verdict: { status: 'not_applicable', message: `step ${trigger} sent no {{runner.webhook_url}} of the harness, so no delivery can be attributed to it` },
    };
  const settings = receiverSettings(ctx);
  if (isVerdict(settings)) return { verdict: settings };
  const notes: string[] = [];
  const filter = buildFilter(step, trigger, env, notes);
  const authored = typeof step.raw.timeout_seconds === 'number' && step.raw.timeout_seconds > 0 ? step.raw.timeout_seconds : DEFAULT_TIMEOUT_S[step.task]!;
  if (authored > MAX_TIMEOUT_S) notes.push(`timeout_seconds ${authored} is waited as ${MAX_TIMEOUT_S}`);
  const ms = Math.min(authored, MAX_TIMEOUT_S) * 1000;
  const matching = () => captures.flatMap((c) => c.deliveries.filter((d) => matches(d, filter)));
  const registration = registrationOf(env.state.sent.get(trigger));
  const rfc9421 = registration?.authentication === undefined;

  let verdict: StepVerdict;
  let shown: Delivery[];
  switch (step.task) {
    case 'expect_no_webhook': {
      await waitFor(ctx, captures, filter, (m) => m.length > 0, ms);
      shown = matching();
      verdict = shown.length === 0 ? { status: 'ok' } : failed(`unexpected_webhook: ${shown.length} matching deliveries arrived`, 'no delivery', shown.length);
      break;
    }
    case 'expect_webhook': {
      const cap = typeof step.raw.expect_max_deliveries_per_logical_event === 'number' ? step.raw.expect_max_deliveries_per_logical_event : undefined;
      // A cap needs the whole window: a duplicate may come late. Otherwise the first match decides.
      await waitFor(ctx, captures, filter, (m) => cap === undefined && m.length > 0, ms);
      shown = matching();
      verdict = judgeExpectWebhook(step, ctx, shown, cap, ms);
      break;
    }
    case 'expect_webhook_retry_keys_stable': {
      const min = typeof step.raw.expect_min_deliveries === 'number' ? step.raw.expect_min_deliveries : 2;
      // Once a delivery was answered 2xx the event is delivered and no further retry of it is due.
      await waitFor(ctx, captures, filter, (m) => m.length >= min && m.some((d) => d.answered.status < 300), ms);
      shown = matching();
      verdict = judgeRetries(shown, min, ms);
      if (verdict.status === 'ok' && rfc9421 && step.raw.verify_signature_on_every_delivery !== false) {
        const signed = await verifiedViews(
          ctx,
          captures,
          settings,
          shown.filter((d) => d.headers['signature-input'] !== undefined),
        );
        verdict = signed.map((v) => signatureProblem(v, undefined)).find((p) => p !== undefined) ?? verdict;
        if (signed.length < shown.length)
          notes.push(`${shown.length - signed.length} of ${shown.length} deliveries carry no signature (expect_webhook_signature_valid judges that)`);
      }
      break;
    }
    default: {
      if (!rfc9421)
        return {
          verdict: {
            status: 'not_applicable',
            message: `step ${trigger} registered an authentication block (legacy HMAC or Bearer), so RFC 9421 is not in effect`,
          },
        };
      await waitFor(ctx, captures, filter, (m) => m.length > 0, ms);
      shown = matching().slice(0, 1);
      const tag = typeof step.raw.require_tag === 'string' ? step.raw.require_tag : ctx.ids.webhookSigningTag;
      const [view] = await verifiedViews(ctx, captures, settings, shown);
      verdict = view ? (signatureProblem(view, tag) ?? { status: 'ok' }) : noWebhook(ms);
    }
  }
  for (const d of shown) if (!ctx.exchanges.includes(d.exchange)) ctx.exchanges.push(d.exchange);
  const all = captures.reduce((n, c) => n + c.deliveries.length, 0);
  ctx.notes.push(
    `${shown.length} matching of ${all} deliveries to ${urls.length === 1 ? 'the URL' : `the ${urls.length} URLs`} step ${trigger} sent`,
    ...notes,
  );
  return {
    verdict,
    record: { task: step.task, payload: { deliveries: shown.map((d) => ({ n: d.n, answered: d.answered.status, body: bodyOf(d) ?? null })) } },
  };
}

const noWebhook = (ms: number) => failed(`no_webhook_received: no matching delivery arrived within ${ms / 1000} s`, 'a matching delivery', null);

function judgeExpectWebhook(step: StoryboardStep, ctx: CheckContext, m: Delivery[], cap: number | undefined, ms: number): StepVerdict {
  const first = m[0];
  if (!first) return noWebhook(ms);
  if (step.raw.expect_idempotency_key !== false) {
    const problem = keyProblem(first);
    if (problem) return problem;
  } else if (!isObject(bodyOf(first))) return failed(`schema_violation: delivery ${first.n} is not a JSON object`, 'a JSON object body', null);
  const ref = step.raw.webhook_payload_schema_ref;
  const schema = typeof ref === 'string' ? ref.replace(/^.*\//, '').replace(/\.json$/, '') : undefined;
  if (schema !== undefined && ctx.schemas.hasSchema(schema)) {
    const v = ctx.schemas.validate(schema, bodyOf(first));
    if (!v.valid)
      return failed(
        `schema_violation: delivery ${first.n} is not valid against ${String(ref)}: ${v.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`,
        String(ref),
        bodyOf(first),
      );
  } else if (schema !== undefined) ctx.notes.push(`webhook_payload_schema_ref ${String(ref)}: the harness has no such schema, not validated`);
  if (cap !== undefined) {
    const keys = [...new Set(m.map(keyOf).filter((k): k is string => typeof k === 'string'))];
    if (keys.length > cap)
      return failed(
        `duplicate_webhook_on_replay: ${keys.length} distinct logical events (idempotency_keys) arrived, at most ${cap} expected`,
        `≤ ${cap}`,
        keys,
      );
  }
  return { status: 'ok' };
}

function judgeRetries(m: Delivery[], min: number, ms: number): StepVerdict {
  if (m.length < min)
    return failed(
      `insufficient_retries: ${m.length} deliveries arrived within ${ms / 1000} s, at least ${min} expected (does the sender retry on the receiver's failures?)`,
      `≥ ${min}`,
      m.length,
    );
  for (const d of m) {
    const problem = keyProblem(d, 'idempotency_key_format_changed');
    if (problem) return problem;
  }
  const keys = m.map(keyOf);
  if (keys.some((k) => k !== keys[0]))
    return failed('idempotency_key_rotated: the retries of one event carry different idempotency_keys', 'one key on every delivery', keys);
  return { status: 'ok' };
}

/** The deliveries verified (once each, in arrival order) and viewed. */
async function verifiedViews(ctx: CheckContext, captures: Capture[], settings: EmissionSettings, ds: Delivery[]): Promise<DeliveryView[]> {
  for (const c of captures) await verifyCapture(c, await verifyEnvOf(ctx, c, settings));
  return ds.map(deliveryView);
}
