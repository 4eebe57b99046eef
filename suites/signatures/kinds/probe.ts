/**
 * Shared parts of the signature-probing step kinds: their field schemas, a note naming the keys
 * the agent must trust, and judging a reply against "accepted" or "401 with
 * `WWW-Authenticate: Signature error="<code>"`" (digest 1.14, 2.6).
 */
import { COUNTERPARTY_ROLES, probeKid } from '../../../harness/core/signing/keys/counterparty.js';
import { SIGNING_ALTERATIONS } from '../../../harness/core/signing/sign/defects.js';
import { parseWwwAuthenticate } from '../../../harness/core/signing/parse/www-authenticate.js';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { describeReply, type CheckContext, type StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';

export const KEY_FIELD = { enum: [...COUNTERPARTY_ROLES, 'impossible-jwk'] } as const;
export const DEFECTS_FIELD = {
  type: 'array',
  items: { enum: SIGNING_ALTERATIONS.map((d) => d.name) },
  uniqueItems: true,
} as const;
export const CODE_PATTERN = '^request_[a-z_]+$';
/**
 * `accepted`; `refused` (any HTTP 401: the spec names no code, digest 7 item 4); `{error: <code>,
 * also_allowed?: [<code>...]}`; or `{not_error: <code>}` (anything but a 401 carrying that code).
 */
export const EXPECT_FIELD = {
  oneOf: [
    { const: 'accepted' },
    { const: 'refused' },
    {
      type: 'object',
      properties: { not_error: { type: 'string', pattern: CODE_PATTERN } },
      required: ['not_error'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        error: { type: 'string', pattern: CODE_PATTERN },
        also_allowed: { type: 'array', items: { type: 'string', pattern: CODE_PATTERN }, minItems: 1 },
      },
      required: ['error'],
      additionalProperties: false,
    },
  ],
} as const;

export type SignedExpectation = 'accepted' | 'refused' | { not_error: string } | { error: string; also_allowed?: string[] };

/** Judging options: `exactChallenge` fails a WWW-Authenticate carrying more than the code (digest 1.14). */
export interface JudgeOptions {
  exactChallenge?: boolean;
  /** The probe was signed with this counterparty key other than the main one (its kid). */
  specialKey?: string;
}

const KEY_UNKNOWN = 'request_signature_key_unknown';

/** A note pointing at the keys the agent should trust, added to failing checks. */
export async function noteKeys(ctx: CheckContext): Promise<void> {
  const server = await counterpartyServer(ctx);
  ctx.notes.push(
    `the harness signs as a test counterparty whose keys are published at ${server.jwksUrl} (brand.json ${server.brandJsonUrl}); ` +
      'the agent must trust them, pre-revoke and cap them as `proto-comply keys --agent-config` describes',
  );
}

function failureFacts(reply: TaskReply): Record<string, unknown> {
  const f = reply.failure;
  if (!f) return { status: reply.status, is_error: reply.isError, error: reply.error?.raw };
  return { failure: f.kind, http_status: f.httpStatus, www_authenticate: f.wwwAuthenticate, message: f.message };
}

/** Did the agent's verifier reject the request (any HTTP 401)? */
export function isSignatureRejection(reply: TaskReply): boolean {
  return reply.failure?.kind === 'http_status' && reply.failure.httpStatus === 401;
}

/** The `Signature error` code of a 401, when there is one. */
export function rejectionCode(reply: TaskReply): string | undefined {
  return isSignatureRejection(reply) ? parseWwwAuthenticate(reply.failure?.wwwAuthenticate) : undefined;
}

export function judgeSigned(reply: TaskReply, expect: SignedExpectation, ctx: CheckContext, what: string, opts: JudgeOptions = {}): StepVerdict {
  const down = unreachable(reply);
  if (down) return down;
  if (expect === 'refused') {
    if (isSignatureRejection(reply)) {
      if (rejectionCode(reply) === undefined)
        ctx.notes.push(`refused with HTTP 401 but no Signature error code (WWW-Authenticate: ${reply.failure?.wwwAuthenticate ?? 'absent'})`);
      return { status: 'ok' };
    }
    const wanted = 'a refusal: HTTP 401 (any Signature error code; the spec names none)';
    return { status: 'failed', message: `${what}: expected ${wanted}, got ${describeReply(reply)}`, expected: wanted, actual: failureFacts(reply) };
  }
  if (typeof expect === 'object' && 'not_error' in expect) {
    if (rejectionCode(reply) !== expect.not_error) return { status: 'ok' };
    const wanted = `any answer but HTTP 401 with Signature error="${expect.not_error}"`;
    return { status: 'failed', message: `${what}: refused with ${expect.not_error}`, expected: wanted, actual: failureFacts(reply) };
  }
  if (expect === 'accepted') {
    if (reply.failure) {
      const www = reply.failure.wwwAuthenticate;
      return {
        status: 'failed',
        message: `${what} was not accepted: ${describeReply(reply)}${www ? ` (WWW-Authenticate: ${www})` : ''}`,
        expected: 'accepted: a 2xx answer with a successful task reply',
        actual: failureFacts(reply),
      };
    }
    const j = ctx.judge([{ kind: 'success' }], { reply, record: { ok: reply.ok, status: reply.status } });
    if (j.ok) return { status: 'ok' };
    return { status: 'failed', message: `${what} was let through but the task did not succeed: ${j.message}`, expected: j.expected, actual: j.actual };
  }
  const allowed = [expect.error, ...(expect.also_allowed ?? [])];
  // A probe signed with one of the counterparty's special keys (revoked, other purposes, the cap's)
  // meets key_unknown when the agent was configured with an older counterparty key set: its rule
  // cannot be judged (a coverage gap), and that is no evidence against the agent.
  if (opts.specialKey !== undefined && !allowed.includes(KEY_UNKNOWN) && rejectionCode(reply) === KEY_UNKNOWN)
    return {
      status: 'gap',
      message: `${what}: the agent does not know the test counterparty key ${opts.specialKey} (request_signature_key_unknown): give it the harness's current key set (proto-comply keys --agent-config)`,
      gap: `the test counterparty key ${opts.specialKey} in the agent's configuration`,
    };
  const wanted = `HTTP 401 with WWW-Authenticate: Signature error="${expect.error}"${expect.also_allowed ? ` (or ${expect.also_allowed.join(', ')})` : ''}`;
  if (isSignatureRejection(reply)) {
    const header = reply.failure!.wwwAuthenticate;
    const code = parseWwwAuthenticate(header);
    if (code !== undefined && allowed.includes(code)) {
      if (header === `Signature error="${code}"`) return { status: 'ok' };
      if (!opts.exactChallenge) {
        ctx.notes.push(`WWW-Authenticate carries more than the code (judged by signatures.header.challenge-code-only): ${header}`);
        return { status: 'ok' };
      }
      return {
        status: 'failed',
        message: `${what}: WWW-Authenticate is ${JSON.stringify(header)}, not exactly Signature error="${code}" (no realm, no other parameter)`,
        expected: `WWW-Authenticate: Signature error="${code}"`,
        actual: failureFacts(reply),
      };
    }
    return {
      status: 'failed',
      message: `${what}: HTTP 401, but ${header === undefined ? 'without a WWW-Authenticate header' : `WWW-Authenticate is ${JSON.stringify(header)}`}; expected Signature error="${expect.error}"`,
      expected: wanted,
      actual: failureFacts(reply),
    };
  }
  return { status: 'failed', message: `${what}: expected ${wanted}, got ${describeReply(reply)}`, expected: wanted, actual: failureFacts(reply) };
}

/** A short description of a signed probe for notes. */
export function describeProbe(task: string, spec: SignSpec, _ctx: CheckContext): string {
  const defects = spec.defects.length ? `, defect ${spec.defects.join(' + ')}` : '';
  return `${task} signed with ${probeKid(spec.key)}${spec.coverDigest ? ' covering content-digest' : ''}${defects}`;
}
