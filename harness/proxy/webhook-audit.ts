/**
 * The passive audit of webhooks the agent posts through the relay (webhook-relay.ts), under the
 * webhooks suite's check ids and, where the suite has a grading rule, with that very rule
 * (harness/core/webhooks/emission/rules.ts) applied to the delivery: the envelope (key form, schema,
 * operation_id and context echoed from the registration seen in the buyer's call), RFC 9421
 * signatures verified with the 14-step checklist and the agent's published keys (fetched under
 * the proxy's address policy), HMAC with the registered secret, retries (same key, same payload,
 * fresh nonce: a retry is a delivery after one the agent was refused), keys never reused for
 * another event, report sequence numbers, and nothing after a buy's final report.
 *
 * Only the agent's own acts are judged: copies the relay made itself are not. A rule traffic
 * never exercised stays a coverage gap; a registration the proxy never saw (made before it
 * started) leaves operation_id and context unjudged.
 */
import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import { RULES, type RuleContext, TERMINAL_TASK_STATUSES, taskStatusOf } from '../core/webhooks/emission/rules.js';
import type { KeyResolver } from '../core/signing/keys/key-resolver.js';
import { InMemoryReplayCache, WEBHOOK_PER_KEYID_CAP } from '../core/signing/verify/replay-cache.js';
import { createSchemaValidator, detectWebhookFormat, type SchemaValidator } from '../core/schemas/validator.js';
import { protocolIds, type ProtocolIds } from '../core/token.js';
import { isObject } from '../core/transport/jsonrpc.js';
import type { TransportKind, WireExchange } from '../core/transport/types.js';
import type { CaptureMode, Delivery } from '../core/webhooks/emission/delivery.js';
import { deliveryView, envelopeKey, snapshotOf } from '../core/webhooks/emission/snapshot.js';
import { verifyDelivery } from '../core/webhooks/emission/verify.js';
import type { Verdict } from './audit.js';
import { KEY_FORMAT, remember, UUID_V4 } from './audit-shared.js';
import type { ProxiedExchange } from './http-parts.js';
import type { ObservedCall } from './observe.js';

/** The webhooks suite's checks the relay's traffic can judge. */
export const WEBHOOK_AUDITED_CHECKS = [
  'webhooks.envelope.idempotency-key',
  'webhooks.envelope.idempotency-key-uuid',
  'webhooks.envelope.operation-id',
  'webhooks.envelope.context',
  'webhooks.envelope.schema',
  'webhooks.envelope.unique-keys',
  'webhooks.signature.signed',
  'webhooks.signature.verifies',
  'webhooks.signature.components',
  'webhooks.signature.tag',
  'webhooks.signature.window',
  'webhooks.signature.key-published',
  'webhooks.signature.fresh-nonce',
  'webhooks.auth.hmac',
  'webhooks.retry.same-key',
  'webhooks.retry.same-payload',
  'webhooks.report.sequence',
  'webhooks.report.silent-after-final',
  'webhooks.task.silent-after-terminal',
] as const;

/** A first answer with one of these statuses makes the call an asynchronous task (interface spec 3.2 rule 2). */
const ASYNC_STATUSES = new Set(['submitted', 'working', 'input-required']);

interface Registration {
  /** The URL the agent was given, as given (what it signs). */
  url: string;
  operationId: unknown;
  hasContext: boolean;
  context: unknown;
  mode: CaptureMode | 'bearer';
  secret?: string;
  transport: TransportKind;
  /** The agent endpoint the registering call went to (its brand.json agents[] entry signs). */
  endpoint: string;
}

interface SeenDelivery {
  seq: number;
  body: string;
  /** The body without key and timestamp: what makes it the same event. */
  event: string;
  /** The answer the agent got was 2xx. */
  acknowledged: boolean;
  nonce?: string;
}

/** Where the agent posted: host and path (the scheme may differ behind a TLS terminator). */
function placeOf(url: URL): string {
  return `${url.host.toLowerCase()}${url.pathname}${url.search}`;
}

/** A body without its key and timestamp, canonical: two deliveries of one event give the same text. */
function eventOf(body: unknown): string {
  if (!isObject(body)) return canonicalize(body) ?? '';
  const { idempotency_key: _k, timestamp: _t, ...rest } = body;
  return canonicalize(rest) ?? '';
}

export interface AgentKeys {
  resolver?: KeyResolver;
  /** Why there is no resolver. */
  problem?: string;
}

export interface WebhookAuditOptions {
  token: string;
  /** The agent's base URL (call paths are resolved against it). */
  upstream: string;
  /** The agent's published keys for the endpoint that registered the webhook (undefined: any of its agents), built on first use. */
  keys: (endpoint: string | undefined, capabilities: Record<string, unknown> | undefined) => AgentKeys;
}

export class WebhookAudit {
  private readonly ids: ProtocolIds;
  private readonly ctx: RuleContext;
  private readonly registrations = new Map<string, Registration>();
  private readonly byKey = new Map<string, SeenDelivery>();
  /** Events (eventOf) of deliveries the agent was refused: a retry of one must keep its key. */
  private readonly refused = new Map<string, { key: string; seq: number }>();
  /** Task ids an answer gave as asynchronous (submitted, working, input-required): their webhooks are task-status webhooks. */
  private readonly asyncTasks = new Map<string, true>();
  /** task id → the terminal status posted for it first. */
  private readonly ended = new Map<string, { status: string; exchange: WireExchange }>();
  /** media_buy_id → key of its final report. */
  private readonly finals = new Map<string, string>();
  /** media_buy_id → sequence_number → key and cumulative impressions. */
  private readonly sequences = new Map<string, Map<number, { key: string; event: string; impressions?: number }>>();
  private readonly replayCache = new InMemoryReplayCache({ perKeyidCap: WEBHOOK_PER_KEYID_CAP });
  private capabilities: Record<string, unknown> | undefined;
  private readonly keys = new Map<string, AgentKeys>();
  private readonly schemas: SchemaValidator;

  constructor(private readonly o: WebhookAuditOptions) {
    this.ids = protocolIds(o.token);
    this.ctx = { ids: this.ids };
    this.schemas = createSchemaValidator({ token: o.token });
  }

  /** The agent's capabilities as last seen in the traffic. */
  get agentCapabilities(): Record<string, unknown> | undefined {
    return this.capabilities;
  }

  private keysFor(endpoint: string | undefined): AgentKeys {
    const id = endpoint ?? '';
    let k = this.keys.get(id);
    if (!k) {
      k = this.o.keys(endpoint, this.capabilities);
      this.keys.set(id, k);
    }
    return k;
  }

  /** Registrations (push_notification_config, reporting_webhook) and capabilities the agent accepted in a call. */
  noteCall(c: ObservedCall): void {
    if (!c.reply.ok || c.reply.isError) return;
    if (c.task === this.ids.capabilitiesTask && isObject(c.reply.payload)) this.capabilities = c.reply.payload;
    if (ASYNC_STATUSES.has(c.reply.status)) {
      const payloadTask = isObject(c.reply.payload) ? c.reply.payload.task_id : undefined;
      for (const id of [c.reply.taskId, payloadTask]) if (typeof id === 'string') remember(this.asyncTasks, id, true);
    }
    for (const reg of [c.args.push_notification_config, c.args.reporting_webhook, c.a2aPush]) {
      if (!isObject(reg) || typeof reg.url !== 'string' || !URL.canParse(reg.url)) continue;
      const auth = isObject(reg.authentication) ? reg.authentication : undefined;
      const schemes = Array.isArray(auth?.schemes) ? auth.schemes : [];
      const mode = schemes.includes('HMAC-SHA256') ? 'hmac' : schemes.includes('Bearer') ? 'bearer' : 'signature';
      remember(this.registrations, placeOf(new URL(reg.url)), {
        url: reg.url,
        operationId: reg.operation_id,
        // The A2A envelope has no context member: only the protocol's own registrations echo it.
        hasContext: reg !== c.a2aPush && 'context' in c.args,
        context: c.args.context,
        mode,
        ...(mode === 'hmac' && typeof auth?.credentials === 'string' ? { secret: auth.credentials } : {}),
        transport: c.transport,
        endpoint: new URL(c.exchange.request.url.split('?')[0] ?? '/', this.o.upstream).href,
      });
    }
  }

  /** The verdicts one webhook the agent sent gives, and the transport they count under. */
  async judge(x: ProxiedExchange, exchange: WireExchange): Promise<{ transport: TransportKind; verdicts: Verdict[] }> {
    const out: Verdict[] = [];
    const host = x.request.headers.host ?? 'unknown-host';
    const reg = this.registrations.get(placeOf(new URL(x.request.path, `http://${host}`)));
    const url = reg?.url ?? `http://${host}${x.request.path}`;
    const mode: CaptureMode = reg?.mode === 'hmac' ? 'hmac' : 'signature';
    const d: Delivery = {
      n: x.seq,
      receivedAt: Date.parse(x.started_at),
      method: x.request.method,
      url,
      headers: x.request.headers,
      raw: Buffer.from(x.request.body, 'utf8'),
      tooLarge: x.request.body_truncated === true,
      answered: { status: x.response?.status ?? 502 },
      exchange,
    };
    const signed = x.request.headers['signature-input'] !== undefined && x.request.headers.signature !== undefined;
    // Signed with RFC 9421 is due when the agent declares webhook signing and the registration seen asked for no other scheme.
    const declared = isObject(this.capabilities?.webhook_signing) && this.capabilities.webhook_signing.supported === true;
    const due = mode === 'signature' && !!reg && reg.mode === 'signature' && declared;
    const verifying = (mode === 'signature' && (signed || due)) || (mode === 'hmac' && reg?.secret !== undefined);
    const keys = verifying && mode === 'signature' ? this.keysFor(reg?.endpoint) : undefined;
    d.verification = await verifyDelivery(d, mode, reg?.secret, {
      ids: this.ids,
      resolver: keys?.resolver,
      resolverProblem: keys?.problem,
      replayCache: this.replayCache,
      behindProxy: false,
    });
    const body = d.verification.json;
    const format = detectWebhookFormat(body);
    const transport: TransportKind = reg?.transport ?? (format === 'a2a' ? 'a2a' : 'mcp');
    const v = (checkId: string, ok: boolean, message: string, more: Partial<Verdict> = {}): void => {
      out.push({ checkId, ok, message: `webhook ${x.request.path}: ${message}`, exchanges: [exchange], ...more });
    };
    if (d.tooLarge) return { transport, verdicts: out };

    const view = deliveryView(d);
    const snap = snapshotOf('proxy', url, mode, [view]);
    const rule = (checkId: string, name: string, what: string): void => {
      const j = RULES[name]!(snap, {}, this.ctx);
      v(checkId, j.ok, j.ok ? what : (j.message ?? 'breaks the rule'), { expected: j.expected, actual: j.actual });
    };
    if (mode === 'signature' && reg?.mode !== 'bearer') {
      if (due) rule('webhooks.signature.signed', 'signed', 'signed with RFC 9421 and nothing else');
      if (signed || due) {
        rule('webhooks.signature.components', 'components', 'covers exactly the five components');
        rule('webhooks.signature.tag', 'tag', 'carries the webhook-signing tag');
        rule('webhooks.signature.window', 'window', 'valid for at most 5 minutes');
        // Not knowing which of the agent's endpoints registered the webhook, a kid listed for
        // several of them cannot be attributed: no verdict rather than a false failure.
        const unattributed = !reg && (view.verify_code ?? '').endsWith('brand_json_ambiguous');
        // A reused nonce is the fresh-nonce rule's (judged on the retry below), not a bad signature.
        const replayed = (view.verify_code ?? '').endsWith('_replayed');
        if (keys?.resolver && !unattributed) {
          if (!replayed) rule('webhooks.signature.verifies', 'verifies', `verifies with key ${view.signature?.keyid ?? '?'}`);
          if (view.key_published !== undefined) rule('webhooks.signature.key-published', 'key_published', 'signing key published in the brand declaration');
        }
      }
    }
    if (mode === 'hmac' && reg?.secret !== undefined) rule('webhooks.auth.hmac', 'hmac', 'HMAC-SHA256 verifies with the registered secret');

    if (body === undefined) {
      v('webhooks.envelope.schema', false, d.verification.jsonError ?? 'the body is not JSON');
      return { transport, verdicts: out };
    }
    if (format === 'mcp' && isObject(body)) this.judgeEnvelope(body, reg, v);
    const key = envelopeKey(body);
    if (key !== undefined) this.judgeKeys(x, key, body, view.signature?.nonce, v);
    if (isObject(body) && body.task_type === 'media_buy_delivery' && isObject(body.result)) this.judgeReport(key, eventOf(body), body.result, body.task_id, v);
    const status = taskStatusOf(body);
    if (status && this.asyncTasks.has(status.task)) this.judgeTaskStatus(status, exchange, v);
    return { transport, verdicts: out };
  }

  /** Nothing but the same status for a task once its terminal status was posted (the suite's silent_after_terminal). */
  private judgeTaskStatus(
    t: { task: string; status: string },
    exchange: WireExchange,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const end = this.ended.get(t.task);
    if (end && t.status !== end.status) {
      v(
        'webhooks.task.silent-after-terminal',
        false,
        `task ${t.task} posted ${JSON.stringify(t.status)} after its terminal status ${JSON.stringify(end.status)}`,
        {
          exchanges: [end.exchange, exchange],
          expected: `nothing after ${end.status}`,
          actual: t.status,
        },
      );
    } else if (!end && TERMINAL_TASK_STATUSES.has(t.status)) {
      remember(this.ended, t.task, { status: t.status, exchange });
      v('webhooks.task.silent-after-terminal', true, `task ${t.task} ${t.status}; nothing else posted for it after`);
    }
  }

  private judgeEnvelope(
    body: Record<string, unknown>,
    reg: Registration | undefined,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const key = body.idempotency_key;
    const formOk = typeof key === 'string' && KEY_FORMAT.test(key);
    v('webhooks.envelope.idempotency-key', formOk, formOk ? 'idempotency_key of the required form' : `idempotency_key is ${JSON.stringify(key ?? null)}`, {
      expected: KEY_FORMAT.source,
      actual: key,
    });
    if (typeof key === 'string') {
      const uuid = UUID_V4.test(key);
      v('webhooks.envelope.idempotency-key-uuid', uuid, uuid ? 'idempotency_key is a UUID v4' : `idempotency_key ${JSON.stringify(key)} is not a UUID v4`);
    }
    const schema = this.schemas.validate('mcp-webhook-payload', body);
    const errs = schema.errors.slice(0, 3).map((e) => `${e.pointer || '/'} ${e.message}`);
    v('webhooks.envelope.schema', schema.valid, schema.valid ? 'valid MCP envelope' : `MCP envelope: ${errs.join('; ')}`, {
      actual: schema.valid ? undefined : schema.errors.slice(0, 5),
    });
    if (reg && reg.operationId !== undefined) {
      const same = isDeepStrictEqual(body.operation_id, reg.operationId);
      v('webhooks.envelope.operation-id', same, same ? 'operation_id echoed' : 'operation_id differs from the registration', {
        expected: reg.operationId,
        actual: body.operation_id,
      });
    }
    if (reg?.hasContext) {
      const same = isDeepStrictEqual(body.context, reg.context);
      v('webhooks.envelope.context', same, same ? 'context echoed' : "context is not the registering request's, verbatim", {
        expected: reg.context,
        actual: body.context,
      });
    }
  }

  /** Keys across deliveries: a retry (after a refusal) keeps key, payload and gets a fresh nonce; a key never names another event. */
  private judgeKeys(
    x: ProxiedExchange,
    key: string,
    body: unknown,
    nonce: string | undefined,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const text = canonicalize(body) ?? '';
    const event = eventOf(body);
    const acknowledged = !!x.response && x.response.status >= 200 && x.response.status < 300 && !x.error;
    const prev = this.byKey.get(key);
    // After a refusal, the same key again is a retry when it is the same event (all but the timestamp
    // alike): its payload must not change at all. Anything else under that key is another event.
    const retry = prev && !prev.acknowledged && (prev.body === text || prev.event === event);
    if (prev && retry) {
      const same = prev.body === text;
      v('webhooks.retry.same-payload', same, same ? `retry of #${prev.seq} re-sends the same payload` : `retry of #${prev.seq} changes the payload`, {
        expected: JSON.parse(prev.body),
        actual: body,
      });
      v('webhooks.retry.same-key', true, `retry of #${prev.seq} keeps idempotency_key ${key}`);
      if (prev.nonce !== undefined && nonce !== undefined) {
        const fresh = prev.nonce !== nonce;
        v('webhooks.signature.fresh-nonce', fresh, fresh ? `retry of #${prev.seq} carries a fresh nonce` : `retry reuses the nonce of #${prev.seq}`);
      }
    } else if (prev && prev.body !== text) {
      v('webhooks.envelope.unique-keys', false, `reuses idempotency_key ${key} of #${prev.seq} for a different event`, {
        expected: JSON.parse(prev.body),
        actual: body,
      });
    } else if (!prev) {
      v('webhooks.envelope.unique-keys', true, `idempotency_key ${key} names one event`);
      const rotated = this.refused.get(event);
      if (rotated && rotated.key !== key)
        v('webhooks.retry.same-key', false, `re-sends the event refused in #${rotated.seq} under a new idempotency_key (${rotated.key} -> ${key})`, {
          expected: rotated.key,
          actual: key,
        });
    }
    remember(this.byKey, key, { seq: x.seq, body: prev?.body ?? text, event: prev?.event ?? event, acknowledged, ...(nonce !== undefined ? { nonce } : {}) });
    if (acknowledged) this.refused.delete(event);
    else remember(this.refused, event, { key, seq: x.seq });
  }

  /** Delivery reports of one buy: sequence numbers name one report each and follow its totals; nothing after the final one. */
  private judgeReport(
    key: string | undefined,
    event: string,
    result: Record<string, unknown>,
    taskId: unknown,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const first = Array.isArray(result.media_buy_deliveries) && isObject(result.media_buy_deliveries[0]) ? result.media_buy_deliveries[0] : undefined;
    const buy = typeof first?.media_buy_id === 'string' ? first.media_buy_id : typeof taskId === 'string' ? taskId : undefined;
    if (!buy || key === undefined) return;
    const final = this.finals.get(buy);
    if (final !== undefined && final !== key)
      v('webhooks.report.silent-after-final', false, `a report for buy ${buy} after its final report`, { actual: result });
    if (result.notification_type === 'final' && final === undefined) {
      remember(this.finals, buy, key);
      v('webhooks.report.silent-after-final', true, `final report for buy ${buy}; nothing for it after`);
    }
    const seq = result.sequence_number;
    if (!Number.isInteger(seq)) return;
    const totals = isObject(first?.totals) ? first.totals : undefined;
    const impressions = typeof totals?.impressions === 'number' ? totals.impressions : undefined;
    const seen = this.sequences.get(buy) ?? new Map<number, { key: string; event: string; impressions?: number }>();
    const same = seen.get(seq as number);
    // The same report again under another key is a retry (its key is the retry rule's), not another report.
    if (same && same.key !== key && same.event !== event)
      v('webhooks.report.sequence', false, `buy ${buy}: sequence_number ${String(seq)} repeated for another report`);
    else if (!same && seen.size > 0) {
      const out = [...seen].find(
        ([s, r]) =>
          impressions !== undefined && r.impressions !== undefined && (s < (seq as number) ? r.impressions > impressions : r.impressions < impressions),
      );
      v(
        'webhooks.report.sequence',
        !out,
        out
          ? `buy ${buy}: sequence_number ${String(seq)} reports ${impressions} cumulative impressions against ${out[1].impressions} at sequence_number ${out[0]}: the numbers do not follow the reports' order`
          : `buy ${buy}: sequence_number ${String(seq)} follows the earlier reports`,
      );
    }
    if (!same) {
      seen.set(seq as number, { key, event, ...(impressions !== undefined ? { impressions } : {}) });
      if (seen.size > 1000) seen.delete(seen.keys().next().value as number);
      remember(this.sequences, buy, seen);
    }
  }
}
