/**
 * The RFC 9421 verifier: pre-checks and the numbered checklist including 9a (digest 1.9),
 * with the webhook substitutions (digest 1.16). Short-circuits on the first failure with the
 * exact code. Pure over its inputs: clock, keys, replay cache and revocation are injected.
 */
import { errorCode, SignatureFormatError, type FailureReason, type VerifyStep } from './codes.js';
import { duplicateKeyLog } from './body-log.js';
import { contentDigestMatches, parseContentDigest } from './content-digest.js';
import { publicKeyOf, verifyBytes } from './crypto-verify.js';
import { scanDuplicateKeys } from './duplicate-keys.js';
import { checkKeyPolicy, isAllowedSigAlg, type SignatureAlg } from './keys.js';
import { bodyRegistersLegacyWebhookAuth, signingMode } from './precheck.js';
import { replayTtlSeconds } from './replay-cache.js';
import { buildSignatureBase } from './signature-base.js';
import { parseSignatureHeaders, type ParsedSignature } from './signature-headers.js';
import { singleFieldValue, StructuredFieldError } from './structured-fields.js';
import { canonicalizeAuthority, canonicalizeTargetUri, TargetUriError, type CanonicalTarget } from './target-uri.js';
import type { ReceivedRequest, VerifyContext, VerifyFailure, VerifyResult } from './verifier-types.js';
import { wwwAuthenticate } from './www-authenticate.js';

export const MAX_CLOCK_SKEW_SECONDS = 60;
export const MAX_WINDOW_SECONDS = 300;
const REQUIRED_PARAMS = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'] as const;
const BASE_COMPONENTS = ['@method', '@target-uri', '@authority'];

type Headers = Map<string, string | readonly string[]>;

function lowerHeaders(h: ReceivedRequest['headers']): Headers {
  const out: Headers = new Map();
  for (const name in h) {
    const v = h[name];
    if (v === undefined) continue;
    const key = name.toLowerCase();
    const prev = out.get(key);
    if (prev === undefined) out.set(key, v);
    else out.set(key, [...(Array.isArray(prev) ? prev : [prev as string]), ...(Array.isArray(v) ? v : [v as string])]);
  }
  return out;
}

/** Structured (dictionary) fields may arrive on several lines: combine them with ", ". */
function combined(v: string | readonly string[]): string {
  return typeof v === 'string' ? v : v.join(', ');
}

const encoder = new TextEncoder();

type MaybePromise<T> = T | Promise<T>;

/** Await only real promises: in-memory stores answer synchronously and cost no microtask hop. */
function isThenable<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as Promise<T> | undefined)?.then === 'function';
}

function failure(ctx: VerifyContext, reason: FailureReason, step: VerifyStep, detail: string, signatureBase?: string): VerifyFailure {
  const code = errorCode(ctx.profile, reason);
  return { ok: false, code, reason, step, detail, wwwAuthenticate: wwwAuthenticate(code), signatureBase };
}

export async function verifyRequestSignature(req: ReceivedRequest, ctx: VerifyContext): Promise<VerifyResult> {
  const webhook = ctx.profile === 'webhook';
  if (!webhook && !ctx.capability?.supported) return { ok: true, signer: null };

  const headers = lowerHeaders(req.headers);
  const body = typeof req.body === 'string' ? encoder.encode(req.body) : req.body;
  const rawInput = headers.get('signature-input');
  const rawSig = headers.get('signature');

  // P1: no signature at all.
  if (rawInput === undefined && rawSig === undefined) {
    if (webhook) return failure(ctx, 'required', 0, 'webhook carries no Signature-Input / Signature');
    if (body.length > 0 && bodyRegistersLegacyWebhookAuth(parseJsonOrUndefined(body))) {
      return failure(ctx, 'required', 0, 'unsigned request registers a webhook authentication block');
    }
    if (signingMode(ctx.capability, ctx) === 'required_for' && !ctx.fallbackAuthenticated) {
      return failure(ctx, 'required', 0, `signature required for ${ctx.operation ?? ctx.jsonRpcMethod}`);
    }
    return { ok: true, signer: null };
  }
  // P2: half a pair.
  if (rawInput === undefined) return failure(ctx, 'header_malformed', 1, 'Signature without Signature-Input');
  if (rawSig === undefined) return failure(ctx, 'header_malformed', 1, 'Signature-Input without Signature');

  // Step 1: parse.
  let parsed: ParsedSignature;
  let digestHeader: Map<string, Buffer> | undefined;
  const fieldValues = new Map<string, string>();
  let target: CanonicalTarget | TargetUriError;
  try {
    parsed = parseSignatureHeaders(combined(rawInput), combined(rawSig), ctx.encoding);
    for (const c of parsed.components) {
      if (c.startsWith('@')) continue;
      const v = headers.get(c);
      if (v === undefined) return failure(ctx, 'header_malformed', 1, `covered field ${c} is absent`);
      if (c === 'content-digest') {
        const value = combined(v).trim();
        digestHeader = parseContentDigest(value, ctx.encoding);
        fieldValues.set(c, value);
      } else fieldValues.set(c, singleFieldValue(c, v));
    }
    target = canonicalTarget(req.url);
    if (target instanceof TargetUriError && target.kind === 'non_ascii_host') {
      return failure(ctx, 'header_malformed', 1, `request URL: ${target.message}`);
    }
  } catch (err) {
    if (err instanceof SignatureFormatError) return failure(ctx, err.reason, 1, err.message);
    if (err instanceof StructuredFieldError) return failure(ctx, 'header_malformed', 1, err.message);
    throw err;
  }
  const p = parsed.params;

  // Step 2: all six parameters.
  const missing: string[] = [];
  for (const k of REQUIRED_PARAMS) if (p[k] === undefined) missing.push(k);
  if (missing.length > 0) return failure(ctx, 'params_incomplete', 2, `missing parameter(s): ${missing.join(', ')}`);
  const created = p.created!;
  const expires = p.expires!;
  const keyid = p.keyid!;
  const nonce = p.nonce!;

  // Step 3: tag, byte for byte.
  const tag = webhook ? ctx.ids.webhookSigningTag : ctx.ids.requestSigningTag;
  if (p.tag !== tag) return failure(ctx, 'tag_invalid', 3, `tag ${JSON.stringify(p.tag)} is not ${JSON.stringify(tag)}`);

  // Step 4: algorithm allow-list.
  if (!isAllowedSigAlg(p.alg!)) return failure(ctx, 'alg_not_allowed', 4, `alg ${JSON.stringify(p.alg)} is not allowed`);
  const alg: SignatureAlg = p.alg;

  // Step 5: validity window.
  const now = ctx.now();
  if (expires <= created) return failure(ctx, 'window_invalid', 5, 'expires is not after created');
  if (created > now + MAX_CLOCK_SKEW_SECONDS) return failure(ctx, 'window_invalid', 5, 'created is in the future');
  if (expires < now - MAX_CLOCK_SKEW_SECONDS) return failure(ctx, 'window_invalid', 5, 'signature expired');
  if (expires - created > MAX_WINDOW_SECONDS) return failure(ctx, 'window_invalid', 5, `window of ${expires - created} s exceeds ${MAX_WINDOW_SECONDS} s`);

  // Step 6: covered components.
  const required = [...BASE_COMPONENTS];
  if (body.length > 0 || webhook) required.push('content-type');
  const policy = webhook ? 'required' : (ctx.digestPolicy ?? 'either');
  if (policy === 'required' && (webhook || body.length > 0)) required.push('content-digest');
  const absent: string[] = [];
  for (const c of required) if (!parsed.components.includes(c)) absent.push(c);
  if (absent.length > 0) return failure(ctx, 'components_incomplete', 6, `not covered: ${absent.join(', ')}`);
  if (policy === 'forbidden' && parsed.components.includes('content-digest')) {
    return failure(ctx, 'components_unexpected', 6, 'content-digest covered but the endpoint forbids it');
  }

  // Step 7: key.
  const pending = ctx.keys.resolve(keyid);
  const lookup = isThenable(pending) ? await pending : pending;
  if (!lookup.ok) return failure(ctx, lookup.reason, 7, lookup.detail);
  const { jwk, agentUrl } = lookup.key;

  // Step 8: key purpose and parameter consistency.
  const policyFailure = checkKeyPolicy(jwk, { profile: ctx.profile, keyUseMember: ctx.ids.keyUseMember, sigAlg: alg });
  if (policyFailure) return failure(ctx, 'key_purpose_invalid', 8, `key ${keyid}: ${policyFailure}`);
  let key;
  try {
    key = publicKeyOf(jwk);
  } catch (err) {
    return failure(ctx, 'key_purpose_invalid', 8, (err as Error).message);
  }

  // Step 9: revocation.
  if (ctx.revocation) {
    const checked = ctx.revocation.check(keyid, now);
    const status = isThenable(checked) ? await checked : checked;
    if (status === 'revoked') return failure(ctx, 'key_revoked', 9, `key ${keyid} is revoked`);
    if (status === 'stale') return failure(ctx, 'revocation_stale', 9, 'revocation list not refreshed within its grace period');
  }

  // Step 9a: per-keyid cap (read only, before any crypto).
  const cap = ctx.replayCache.capReached(keyid, now);
  if (isThenable(cap) ? await cap : cap) return failure(ctx, 'rate_abuse', '9a', `replay cache cap reached for ${keyid}`);

  // Step 10: canonical target, authority, signature base, crypto.
  if (target instanceof TargetUriError) return failure(ctx, 'target_uri_malformed', 10, target.message);
  const authorityProblem = checkAuthority(req, headers, target);
  if (authorityProblem) return failure(ctx, 'target_uri_malformed', 10, authorityProblem);
  const method = req.method.toUpperCase();
  fieldValues.set('@method', method);
  fieldValues.set('@target-uri', target.targetUri);
  fieldValues.set('@authority', target.authority);
  const base = buildSignatureBase(parsed.components, fieldValues, parsed.signatureParams);
  if (!verifyBytes(alg, key, encoder.encode(base), parsed.signature)) {
    return failure(ctx, 'invalid', 10, 'signature does not verify over the signature base', base);
  }

  // Step 11: content digest.
  if (digestHeader && !contentDigestMatches(digestHeader, body)) {
    return failure(ctx, 'digest_mismatch', 11, 'Content-Digest does not match the body', base);
  }

  // Steps 12-13: replay check, then insert atomically with the cap.
  const nonceKey = ctx.replayScope ? `${ctx.replayScope} ${nonce}` : nonce;
  const seen = ctx.replayCache.has(keyid, nonceKey, now);
  if (isThenable(seen) ? await seen : seen) return failure(ctx, 'replayed', 12, `nonce already seen for ${keyid}`, base);
  const insertion = ctx.replayCache.insert(keyid, nonceKey, replayTtlSeconds(expires, now), now);
  const inserted = isThenable(insertion) ? await insertion : insertion;
  if (inserted === 'replayed') return failure(ctx, 'replayed', 12, `nonce already seen for ${keyid}`, base);
  if (inserted === 'cap_reached') return failure(ctx, 'rate_abuse', 13, `replay cache cap reached for ${keyid}`, base);

  // Step 14: duplicate JSON keys.
  if (ctx.checkBody !== false && body.length > 0) {
    const scan = scanDuplicateKeys(body);
    if (scan.kind === 'duplicate') {
      ctx.onDuplicateKeys?.(duplicateKeyLog(keyid, nonce, body.length, scan.keys));
      return failure(ctx, 'body_malformed', 14, `body has ${scan.keys.length} duplicate key(s)`, base);
    }
    if (scan.kind === 'invalid') return failure(ctx, 'body_malformed', 14, `body is not JSON: ${scan.message}`, base);
  }

  return {
    ok: true,
    signer: { keyid, agent_url: agentUrl, verified_at: now, label: parsed.label, alg },
    signatureBase: base,
  };
}

/** Canonicalization is pure and receivers see the same few URLs: memoize a bounded set. */
const TARGET_CACHE_MAX = 512;
const targetCache = new Map<string, CanonicalTarget | TargetUriError>();

function canonicalTarget(url: string): CanonicalTarget | TargetUriError {
  let t = targetCache.get(url);
  if (t !== undefined) return t;
  try {
    t = canonicalizeTargetUri(url);
  } catch (err) {
    if (!(err instanceof TargetUriError)) throw err;
    t = err;
  }
  if (targetCache.size >= TARGET_CACHE_MAX) targetCache.clear();
  targetCache.set(url, t);
  return t;
}

/** `:authority` / `Host` must agree with each other and with the target URI's authority. */
function checkAuthority(req: ReceivedRequest, headers: Headers, target: CanonicalTarget): string | undefined {
  const host = headers.get('host');
  if (Array.isArray(host) && host.length !== 1) return 'Host header is repeated';
  const received: string[] = [];
  if (req.authority !== undefined) received.push(req.authority);
  if (host !== undefined) received.push(combined(host));
  for (const value of received) {
    let canonical: string;
    try {
      canonical = canonicalizeAuthority(value, target.scheme);
    } catch (err) {
      if (err instanceof TargetUriError) return `authority ${JSON.stringify(value)}: ${err.message}`;
      throw err;
    }
    if (canonical !== target.authority) {
      return `authority ${JSON.stringify(canonical)} does not match the target URI authority ${JSON.stringify(target.authority)}`;
    }
  }
  return undefined;
}

function parseJsonOrUndefined(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
