/**
 * `receiver_send`: the harness, acting as a seller, POSTs one webhook to the buyer's receiver
 * and judges the HTTP answer (status code, `WWW-Authenticate: Signature error="<code>"`).
 *
 * The event is built from `event` (aliases for task and key, status, a time offset), or is the
 * event of an earlier step (`resend`: same bytes, fresh signature, i.e. a transport retry), or
 * the exact wire of an earlier step (`replay`: same bytes and same signature headers). One
 * deliberate defect may be applied: a signing defect (`defect`), a body changed after signing
 * (`tamper`), another covered content type (`content_type`) or padding past 1 MB (`pad_bytes`).
 * With `auth: hmac` the delivery is signed the legacy HMAC-SHA256 way instead (with the secret of
 * the receiver's HMAC endpoint, or one made up for an endpoint registered for RFC 9421), with at
 * most one `hmac_defect`. `endpoint: hmac` posts to the HMAC endpoint (`--receiver-hmac`).
 * `auth: bearer` (with `endpoint: bearer`, `--receiver-bearer`) sends the legacy Bearer credential,
 * with at most one `bearer_defect`.
 * `body_layout: spaced` lays the event out with whitespace and a body-level `signature` member.
 * `digest_encoding: standard` sends the Content-Digest in padded standard base64 (digest 2.3).
 * `without_idempotency_key` sends an MCP envelope without `idempotency_key` on either column
 * (webhook vector positive 007); `expect_signature_verified` then fails only on a signature refusal.
 * `signed_at: <offset>` dates the signature's `created` that far from now (window `expires` =
 * created + 300 s), e.g. `-295s` for a signature that expires 5 s after it is sent.
 * `url_claims: <task alias>` appends that task's ids to the URL query (`task_id`, `operation_id`,
 * `context_id`), signed as sent, so a receiver that correlates on the URL is caught (spec 6.1 r2).
 * The envelope follows the run's transport dimension: MCP envelope or A2A envelope.
 */
import { DEFECTS, type DefectName } from '../../../harness/core/signing/sign/defects.js';
import { parseWwwAuthenticate } from '../../../harness/core/signing/parse/www-authenticate.js';
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import type { StepDef } from '../../../harness/core/engine/model.js';
import { NO_RECEIVER, postWebhook, probeEnv, receiverTarget, type PostResult } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { encodeEvent, spacedWithSignatureMember, tamperBody } from '../../../harness/core/webhooks/receiver-probe/events.js';
import { aliasValue, OFFSET_PATTERN, parseOffset, scopeOf, type SentWebhook } from '../../../harness/core/webhooks/receiver-probe/scope.js';
import { SENDER_ROLES, signWebhook, type SenderRole } from '../../../harness/core/webhooks/receiver-probe/sender.js';
import {
  BEARER_DEFECTS,
  bearerWebhookAuth,
  HMAC_DEFECTS,
  hmacWebhookHeaders,
  throwawaySecret,
  type BearerDefect,
  type HmacDefect,
} from '../../../harness/core/webhooks/receiver-probe/legacy-auth.js';
import { BEARER_TOKEN_ENV, HMAC_SECRET_ENV } from '../../../harness/core/webhooks/receiver-probe/credentials-env.js';

/** What a step aimed at an endpoint the run was not given says (a coverage gap). */
const MISSING_ENDPOINT: Record<string, { message: string; gap: string }> = {
  alt: { message: 'needs a second endpoint of the same receiver: give it with --receiver-alt URL', gap: 'receiver options (--receiver-alt)' },
  hmac: {
    message: `needs an endpoint of the receiver registered for legacy HMAC-SHA256: give it with --receiver-hmac URL and its shared secret in $${HMAC_SECRET_ENV}`,
    gap: 'receiver options (--receiver-hmac)',
  },
  bearer: {
    message: `needs an endpoint of the receiver registered for the legacy Bearer scheme: give it with --receiver-bearer URL and its credential in $${BEARER_TOKEN_ENV}`,
    gap: 'receiver options (--receiver-bearer)',
  },
};

export const STATUSES = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected'] as const;

const EXPECT_STATUS = { oneOf: [{ const: '2xx' }, { type: 'array', items: { type: 'integer', minimum: 100, maximum: 599 }, minItems: 1 }] };

interface EventSpec {
  task: string;
  key: string;
  status: string;
  at?: string;
  pad_bytes?: number;
  notification?: string;
}

export function statusAllowed(expect: unknown, status: number): boolean {
  if (expect === '2xx') return status >= 200 && status < 300;
  return Array.isArray(expect) && expect.includes(status);
}

function describeExpect(expect: unknown): string {
  return expect === '2xx' ? 'a 2xx answer' : `HTTP ${(expect as number[]).join(' or ')}`;
}

const TRUST_CODES = /key_unknown|brand_json|jwks|agent_not_in_brand/;

/** Judge one answer against `expect_status` / `expect_auth_error`. */
export function judgePost(step: StepDef, r: PostResult, trustHint: string): StepVerdict {
  const expect = step.expect_status;
  if (!r.result.ok && r.status === undefined) {
    const f = r.result.failure;
    const message = `the receiver gave no answer (${f.kind}: ${f.message})`;
    // A receiver must answer every webhook: no answer fails whatever was expected.
    return { status: 'failed', message: `${message}; expected ${describeExpect(expect)}`, expected: expect, actual: f };
  }
  const status = r.status!;
  const code = parseWwwAuthenticate(r.wwwAuthenticate);
  const actual = { status, www_authenticate: r.wwwAuthenticate, body: r.body?.slice(0, 300) };
  if (expect !== undefined && !statusAllowed(expect, status)) {
    const hint = expect === '2xx' && status === 401 && code && TRUST_CODES.test(code) ? ` — does the receiver trust the harness sender ${trustHint}?` : '';
    return {
      status: 'failed',
      message: `the receiver answered HTTP ${status}${code ? ` (${code})` : ''}, expected ${describeExpect(expect)}${hint}`,
      expected: expect,
      actual,
    };
  }
  const codes = step.expect_auth_error as string[] | undefined;
  if (codes !== undefined && (code === undefined || !codes.includes(code))) {
    return {
      status: 'failed',
      message:
        code === undefined
          ? `HTTP ${status} without WWW-Authenticate: Signature error="<code>"; expected ${codes.join(' or ')}`
          : `WWW-Authenticate names ${code}, expected ${codes.join(' or ')}`,
      expected: { www_authenticate: codes.map((c) => `Signature error="${c}"`) },
      actual,
    };
  }
  return { status: 'ok' };
}

export const receiverSend: StepKind = {
  name: 'receiver_send',
  fields: {
    event: {
      type: 'object',
      properties: {
        task: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
        key: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
        status: { enum: [...STATUSES] },
        at: { type: 'string', pattern: OFFSET_PATTERN },
        pad_bytes: { type: 'integer', minimum: 1, maximum: 4 * 1024 * 1024 },
        /** Alias of a typed notification_id (the same alias is the same id within the check). */
        notification: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
      },
      required: ['task', 'key', 'status'],
      additionalProperties: false,
    },
    resend: { type: 'string' },
    replay: { type: 'string' },
    endpoint: { enum: ['primary', 'alt', 'hmac', 'bearer'] },
    auth: { enum: ['rfc9421', 'hmac', 'bearer'] },
    hmac_defect: { enum: [...HMAC_DEFECTS] },
    bearer_defect: { enum: [...BEARER_DEFECTS] },
    /** `spaced`: the event with whitespace after separators and a body-level `signature` member. */
    body_layout: { enum: ['compact', 'spaced'] },
    sender: { enum: [...SENDER_ROLES] },
    defect: { enum: DEFECTS.map((d) => d.name) },
    tamper: { type: 'boolean' },
    content_type: { type: 'string', minLength: 1 },
    digest_encoding: { enum: ['base64url', 'standard'] },
    signed_at: { type: 'string', pattern: OFFSET_PATTERN },
    without_idempotency_key: { type: 'boolean' },
    url_claims: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    /**
     * A non-2xx answer is a coverage gap, not a failure: the probe needs the delivery taken (the
     * URL-claims probe posts to a URL the receiver never registered, which it may refuse).
     */
    unaccepted_is_gap: { type: 'boolean' },
    /**
     * Post a second copy of the event (same bytes, its own fresh signature) at the same moment, as
     * a sender retrying while the first is still being processed; both answers are judged.
     */
    with_concurrent_copy: { type: 'boolean' },
    /** The answer is not a signature refusal (no 401/403, no `webhook_signature_*` code); any other answer passes. */
    expect_signature_verified: { type: 'boolean' },
    expect_status: EXPECT_STATUS,
    expect_auth_error: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9_]+$' }, minItems: 1 },
  },
  async run(step, ctx) {
    const target = receiverTarget(ctx);
    if (!target) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    const sources = ['event', 'resend', 'replay'].filter((f) => step[f] !== undefined);
    if (sources.length !== 1) throw new Error(`receiver_send needs exactly one of event, resend, replay (got ${sources.join(', ') || 'none'})`);
    if (step.hmac_defect !== undefined && step.auth !== 'hmac') throw new Error('receiver_send: hmac_defect needs auth: hmac');
    if (step.bearer_defect !== undefined && step.auth !== 'bearer') throw new Error('receiver_send: bearer_defect needs auth: bearer');
    if (step.auth === 'bearer' && step.endpoint !== 'bearer') throw new Error('receiver_send: auth: bearer needs endpoint: bearer');
    const endpoint = (step.endpoint as string | undefined) ?? 'primary';
    const endpointUrl = { primary: target.url, alt: target.altUrl, hmac: target.hmac?.url, bearer: target.bearer?.url }[endpoint];
    if (!endpointUrl) return { verdict: { status: 'gap', ...MISSING_ENDPOINT[endpoint]! } };
    const url = step.url_claims !== undefined ? withUrlClaims(endpointUrl, ctx, String(step.url_claims)) : endpointUrl;
    const env = await probeEnv(ctx);
    const scope = scopeOf(ctx);

    let sent: SentWebhook;
    if (step.replay !== undefined) {
      const prev = scope.sent.get(String(step.replay));
      if (!prev) throw new Error(`receiver_send: no earlier send step "${String(step.replay)}"`);
      sent = { ...prev };
    } else {
      let eventBytes: Buffer;
      let taskId: string;
      let idempotencyKey: string;
      if (step.resend !== undefined) {
        const prev = scope.sent.get(String(step.resend));
        if (!prev) throw new Error(`receiver_send: no earlier send step "${String(step.resend)}"`);
        ({ eventBytes, taskId, idempotencyKey } = prev);
      } else {
        const e = step.event as EventSpec;
        taskId = aliasValue(ctx, 'task', e.task);
        idempotencyKey = aliasValue(ctx, 'key', e.key);
        eventBytes = encodeEvent({
          format: step.without_idempotency_key === true ? 'mcp' : ctx.kind,
          ...(step.without_idempotency_key === true ? { omitIdempotencyKey: true } : {}),
          idempotencyKey,
          taskId,
          operationId: aliasValue(ctx, 'op', e.task),
          contextId: aliasValue(ctx, 'ctx', e.task),
          status: e.status,
          timestamp: new Date(scope.baseMs + parseOffset(e.at ?? '+0s')).toISOString(),
          context: { probe: ctx.checkId },
          padBytes: e.pad_bytes,
          ...(e.notification !== undefined ? { notificationId: aliasValue(ctx, 'notification', e.notification) } : {}),
        });
        if (step.body_layout === 'spaced') eventBytes = spacedWithSignatureMember(eventBytes);
      }
      const signed =
        step.auth === 'bearer'
          ? { headers: { 'Content-Type': 'application/json' }, body: eventBytes }
          : step.auth === 'hmac'
            ? {
                headers: hmacWebhookHeaders(
                  env.identity.ids,
                  step.endpoint === 'hmac' ? target.hmac!.secret : throwawaySecret(),
                  eventBytes,
                  Date.now() / 1000,
                  step.hmac_defect as HmacDefect | undefined,
                ),
                body: eventBytes,
              }
            : signWebhook(env.identity, url, eventBytes, {
                role: (step.sender as SenderRole | undefined) ?? 'main',
                contentType: step.content_type as string | undefined,
                standardDigest: step.digest_encoding === 'standard',
                ...(step.signed_at !== undefined ? { now: signedAt(parseOffset(String(step.signed_at))) } : {}),
                defects: step.defect !== undefined ? [step.defect as DefectName] : undefined,
              });
      sent = {
        url,
        headers: signed.headers,
        body: Buffer.from(step.tamper === true ? tamperBody(Buffer.from(signed.body)) : signed.body),
        eventBytes,
        taskId,
        idempotencyKey,
        ...('params' in signed && signed.params.expires !== undefined ? { expires: signed.params.expires } : {}),
        ...(step.auth === 'bearer' ? { auth: bearerWebhookAuth(target.bearer!.secret, step.bearer_defect as BearerDefect | undefined) } : {}),
      };
    }
    if (step.id) scope.sent.set(step.id, sent);
    if (step.with_concurrent_copy === true) {
      if (step.event === undefined || (step.auth ?? 'rfc9421') !== 'rfc9421')
        throw new Error('receiver_send: with_concurrent_copy needs an event signed with RFC 9421');
      const copy = signWebhook(env.identity, url, sent.eventBytes, { role: (step.sender as SenderRole | undefined) ?? 'main' });
      const label = `webhook ${ctx.kind} envelope${step.id ? ` (${step.id})` : ''}`;
      const answers = await Promise.all([
        postWebhook(ctx, env, sent.url, sent.headers, sent.body, `${label}, copy 1`, {}),
        postWebhook(ctx, env, url, copy.headers, Buffer.from(copy.body), `${label}, copy 2 (concurrent)`, {}),
      ]);
      const record = {
        http_status: answers[0]!.status,
        payload: { statuses: answers.map((a) => a.status ?? null), task_id: sent.taskId, idempotency_key: sent.idempotencyKey },
      };
      for (const [i, a] of answers.entries()) {
        const v = judgePost(step, a, env.identity.brandJsonUrl);
        if (v.status !== 'ok')
          return { verdict: { ...v, message: `copy ${i + 1} of two concurrent identical deliveries: ${(v as { message: string }).message}` }, record };
      }
      return { verdict: { status: 'ok' }, record };
    }
    const r = await postWebhook(ctx, env, sent.url, sent.headers, sent.body, `webhook ${ctx.kind} envelope${step.id ? ` (${step.id})` : ''}`, {
      auth: sent.auth,
    });
    const record = {
      http_status: r.status,
      payload: { status: r.status, www_authenticate: r.wwwAuthenticate, task_id: sent.taskId, idempotency_key: sent.idempotencyKey },
    };
    if (step.unaccepted_is_gap === true && !(r.status !== undefined && r.status >= 200 && r.status < 300)) {
      const answer = r.status !== undefined ? `HTTP ${r.status}` : 'no answer';
      return {
        verdict: {
          status: 'gap',
          message: `the receiver did not take a delivery posted to its URL with a query string (${answer}), so the probe has nothing to read back`,
          gap: 'receiver takes deliveries at its URL with a query string',
        },
        record,
      };
    }
    const verdict = step.expect_signature_verified === true ? judgeVerified(r) : judgePost(step, r, env.identity.brandJsonUrl);
    return { verdict, record };
  },
};

/** A signer clock shifted by `offsetMs` (unix seconds). */
function signedAt(offsetMs: number): () => number {
  return () => Math.floor((Date.now() + offsetMs) / 1000);
}

/** The endpoint URL with the ids of another task of the check in its query (interface spec 6.1 rule 2 probe). */
function withUrlClaims(endpointUrl: string, ctx: CheckContext, alias: string): string {
  const u = new URL(endpointUrl);
  u.searchParams.set('task_id', aliasValue(ctx, 'task', alias));
  u.searchParams.set('operation_id', aliasValue(ctx, 'op', alias));
  u.searchParams.set('context_id', aliasValue(ctx, 'ctx', alias));
  return u.toString();
}

/**
 * The signature verified: any answer but a signature refusal (401 or 403, or a
 * `WWW-Authenticate: Signature error="webhook_signature_*"`). What the receiver does with the
 * body afterwards (schema validation) is not judged here.
 */
export function judgeVerified(r: PostResult): StepVerdict {
  if (!r.result.ok && r.status === undefined) {
    const f = r.result.failure;
    return { status: 'failed', message: `the receiver gave no answer (${f.kind}: ${f.message})`, actual: f };
  }
  const status = r.status!;
  const code = parseWwwAuthenticate(r.wwwAuthenticate);
  const actual = { status, www_authenticate: r.wwwAuthenticate, body: r.body?.slice(0, 300) };
  if (status === 401 || status === 403 || (code !== undefined && /^webhook_signature_/.test(code))) {
    return {
      status: 'failed',
      message: `the receiver refused a validly signed delivery as a signature failure (HTTP ${status}${code ? `, ${code}` : ''}): the signature must verify; a missing idempotency_key is a schema error found after verification`,
      expected: 'a non-signature answer (2xx, or a 4xx schema error such as 400)',
      actual,
    };
  }
  return { status: 'ok' };
}
