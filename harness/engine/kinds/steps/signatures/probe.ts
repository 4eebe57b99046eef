/**
 * Shared parts of the signature-probing step kinds: signing the exact outgoing request (through
 * the transport's `prepare` hook, so `@target-uri` and `@authority` are the URL as sent), the
 * harness's test-counterparty key server (a run-scoped resource), and judging a reply against
 * "accepted" or "401 with `WWW-Authenticate: Signature error="<code>"`" (digest 1.14, 2.6).
 */
import { counterpartyKeys, COUNTERPARTY_ROLES, type CounterpartyRole } from '../../../../signing/counterparty.js';
import { startCounterpartyServer, type RunningCounterpartyServer } from '../../../../signing/counterparty-server.js';
import { DEFECTS, type DefectName } from '../../../../signing/defects.js';
import { signRequest } from '../../../../signing/signer.js';
import { parseWwwAuthenticate } from '../../../../signing/www-authenticate.js';
import type { OutgoingRequest, TaskReply } from '../../../../transport/types.js';
import { describeReply, type CheckContext, type StepVerdict } from '../../types.js';
import { unreachable } from '../util.js';
import { declaredDigestPolicy } from './target.js';

export const KEY_FIELD = { enum: [...COUNTERPARTY_ROLES] } as const;
export const DEFECTS_FIELD = {
  type: 'array',
  items: { enum: DEFECTS.map((d) => d.name) },
  uniqueItems: true,
} as const;
export const CODE_PATTERN = '^request_[a-z_]+$';
/** `accepted`, or `{error: <code>, also_allowed?: [<code>...]}` (the spec names no single code). */
export const EXPECT_FIELD = {
  oneOf: [
    { const: 'accepted' },
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

export type SignedExpectation = 'accepted' | { error: string; also_allowed?: string[] };

export interface SignSpec {
  key: CounterpartyRole;
  defects: readonly DefectName[];
  /** Cover content-digest. */
  coverDigest: boolean;
}

/** `policy`: cover content-digest unless the agent declares `covers_content_digest: forbidden`. */
export function coverDigest(mode: unknown, ctx: CheckContext): boolean {
  if (mode === 'covered') return true;
  if (mode === 'uncovered') return false;
  return declaredDigestPolicy(ctx) !== 'forbidden';
}

function authorityOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  const authority = m?.[1] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

/**
 * Change the body after it was digested and signed while keeping it valid JSON (a space after
 * the opening brace), so the agent's verifier, not its JSON parser, has to notice (step 11).
 */
function tamperKeepingJson(body: Uint8Array): Uint8Array {
  const at = body.indexOf(0x7b);
  if (at < 0) throw new Error('digest-mismatch probe needs a JSON object body');
  const out = new Uint8Array(body.length + 1);
  out.set(body.subarray(0, at + 1), 0);
  out[at + 1] = 0x20;
  out.set(body.subarray(at + 1), at + 2);
  return out;
}

/**
 * A `prepare` hook that signs the request exactly as it will be sent. Defects that move the
 * request to another host (a raw U-label, two trailing dots) are carried in the Host header:
 * the connection still goes to the agent, which sees the defective authority.
 */
export function signingPrepare(ctx: CheckContext, spec: SignSpec, onSigned?: (req: OutgoingRequest) => void) {
  const keys = counterpartyKeys(ctx.ids);
  const tamperDigest = spec.defects.includes('digest-mismatch');
  const defects = spec.defects.filter((d) => d !== 'digest-mismatch');
  return (req: OutgoingRequest): OutgoingRequest => {
    const signed = signRequest(
      { method: req.method, url: req.url, headers: { ...req.headers }, body: req.body },
      { profile: 'request', ids: ctx.ids, key: keys.signingKey(spec.key), encoding: 'legacy', coverContentDigest: spec.coverDigest, defects },
    );
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(signed.headers)) headers[k.toLowerCase()] = v;
    if (signed.url !== req.url) headers.host = authorityOf(signed.url);
    const out: OutgoingRequest = { method: req.method, url: req.url, headers, body: tamperDigest ? tamperKeepingJson(signed.body) : signed.body };
    onSigned?.(out);
    return out;
  };
}

/** The run-scoped server publishing the harness's test keys (brand.json + JWKS on loopback). */
export function counterpartyServer(ctx: CheckContext): Promise<RunningCounterpartyServer> {
  return ctx.resources.get(`signatures.counterparty.${ctx.ids.token}`, async () => {
    const server = await startCounterpartyServer({ ids: ctx.ids });
    return { value: server, close: () => server.close() };
  });
}

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

export function judgeSigned(reply: TaskReply, expect: SignedExpectation, ctx: CheckContext, what: string): StepVerdict {
  const down = unreachable(reply);
  if (down) return down;
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
  const wanted = `HTTP 401 with WWW-Authenticate: Signature error="${expect.error}"${expect.also_allowed ? ` (or ${expect.also_allowed.join(', ')})` : ''}`;
  if (isSignatureRejection(reply)) {
    const header = reply.failure!.wwwAuthenticate;
    const code = parseWwwAuthenticate(header);
    if (code !== undefined && allowed.includes(code)) {
      if (header !== `Signature error="${code}"`) ctx.notes.push(`WWW-Authenticate carries more than the code (tolerated): ${header}`);
      return { status: 'ok' };
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
export function describeProbe(task: string, spec: SignSpec, ctx: CheckContext): string {
  const keys = counterpartyKeys(ctx.ids);
  const defects = spec.defects.length ? `, defect ${spec.defects.join(' + ')}` : '';
  return `${task} signed with ${keys.kid(spec.key)}${spec.coverDigest ? ' covering content-digest' : ''}${defects}`;
}

/**
 * A well-formed counterparty signature for an ordinary call (e.g. a registration carrying a
 * webhook `authentication` block, which a signing-capable seller refuses unsigned, digest 1.9 P1):
 * `ctx.call(task, args, { prepare: counterpartySigning(ctx) })`.
 */
export function counterpartySigning(ctx: CheckContext): (req: OutgoingRequest) => OutgoingRequest {
  return signingPrepare(ctx, { key: 'ed25519', defects: [], coverDigest: coverDigest('policy', ctx) });
}
