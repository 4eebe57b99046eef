/**
 * The RFC 9421 verifier's checklist: pre-checks and the numbered steps including 9a (digest
 * 1.9), with the webhook substitutions (digest 1.16). Short-circuits on the first failure with
 * the exact code. Pure over its inputs: clock, keys, replay cache and revocation are injected,
 * and so are the parsing and building steps (`VerifierPaths`: the reference path, or the fast
 * path verifier.ts selects).
 *
 * The checklist runs synchronously from step to step while the injected stores answer
 * synchronously (the in-memory ones do); a store that answers with a promise continues the
 * checklist from that step when the promise settles. No step is skipped or reordered either way.
 */
import { duplicateKeyLog } from './body-log.js';
import { errorCode, SignatureFormatError, type FailureReason, type VerifyStep } from '../codes.js';
import type { DuplicateKeyScan } from '../parse/duplicate-keys.js';
import type { KeyLookup } from '../keys/key-resolver.js';
import { keyStateFor, verifyWithState, verifyWithStateOffloaded, type KeyState } from './key-state.js';
import { isAllowedSigAlg, type SignatureAlg } from '../keys/keys.js';
import { bodyRegistersLegacyWebhookAuth, signingMode } from './precheck.js';
import { combined, header, headerValue, lowerHeaders, type Headers } from '../parse/received-headers.js';
import { InMemoryReplayCache, replayTtlSeconds, type ReplayInsertOutcome } from './replay-cache.js';
import type { RevocationStatus } from './revocation.js';
import {
  COVERS_AUTHORITY,
  COVERS_CONTENT_DIGEST,
  COVERS_CONTENT_TYPE,
  COVERS_METHOD,
  COVERS_TARGET_URI,
  type SignatureView,
} from '../parse/signature-headers.js';
import { singleFieldValue, StructuredFieldError, trimmed } from '../parse/structured-fields.js';
import type { CanonicalTarget, TargetUriError } from '../parse/target-uri.js';
import { canonicalTarget, checkAuthority, isTargetError } from './verifier-target.js';
import type { ContentDigestCheck, VerifierPaths } from './verifier-paths.js';
import type { ReceivedRequest, VerifyContext, VerifyFailure, VerifyResult } from './verifier-types.js';
import { wwwAuthenticate } from '../parse/www-authenticate.js';

export const MAX_CLOCK_SKEW_SECONDS = 60;
export const MAX_WINDOW_SECONDS = 300;
const REQUIRED_PARAMS = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'] as const;
const BASE_COMPONENTS = ['@method', '@target-uri', '@authority'];
const BASE_COVERAGE = COVERS_METHOD | COVERS_TARGET_URI | COVERS_AUTHORITY;

const encoder = new TextEncoder();

type MaybePromise<T> = T | Promise<T>;

/** Only real promises wait: in-memory stores answer synchronously and cost no microtask hop. */
function isThenable<T>(v: MaybePromise<T>): v is Promise<T> {
  // Primitives (booleans, status strings) answer without a property lookup.
  return typeof v === 'object' && v !== null && typeof (v as Promise<T>).then === 'function';
}

function failure(ctx: VerifyContext, reason: FailureReason, step: VerifyStep, detail: string, signatureBase?: string): VerifyFailure {
  const code = errorCode(ctx.profile, reason);
  return { ok: false, code, reason, step, detail, wwwAuthenticate: wwwAuthenticate(code), signatureBase };
}

/** Run the checklist on a received request with the given parsing and building steps. */
export function runChecklist(req: ReceivedRequest, ctx: VerifyContext, paths: VerifierPaths): Promise<VerifyResult> {
  try {
    const result = verify(req, ctx, paths);
    return isThenable(result) ? result : Promise.resolve(result);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** What the pre-checks and Steps 1-6 established, carried through the later steps. */
class Checked {
  keyState: KeyState | undefined;
  agentUrl: string | undefined;
  base = '';
  /** Step 14's duplicate-key scan, when the body is checked. */
  scan: DuplicateKeyScan | undefined;

  constructor(
    readonly req: ReceivedRequest,
    readonly ctx: VerifyContext,
    readonly paths: VerifierPaths,
    readonly headers: Headers,
    readonly body: Uint8Array,
    readonly parsed: SignatureView,
    /** Covered header field values at their components' positions. */
    readonly fieldValues: readonly string[],
    readonly target: CanonicalTarget | TargetUriError,
    /** The covered Content-Digest, parsed (checked at Step 11). */
    readonly digest: ContentDigestCheck | undefined,
    readonly keyid: string,
    readonly nonce: string,
    readonly expires: number,
    readonly alg: SignatureAlg,
    readonly now: number,
  ) {}
}

function verify(req: ReceivedRequest, ctx: VerifyContext, paths: VerifierPaths): MaybePromise<VerifyResult> {
  const c = checkRequest(req, ctx, paths);
  if (!(c instanceof Checked)) return c;
  // Step 7: key.
  const lookup = ctx.keys.resolve(c.keyid);
  return isThenable(lookup) ? Promise.resolve(lookup).then((l) => withKey(c, l)) : withKey(c, lookup);
}

/** Pre-checks and Steps 1-6: a result (unsigned, or a failure), or what the later steps need. */
function checkRequest(req: ReceivedRequest, ctx: VerifyContext, paths: VerifierPaths): VerifyResult | Checked {
  const webhook = ctx.profile === 'webhook';
  if (!webhook && !ctx.capability?.supported) return { ok: true, signer: null };

  const headers = lowerHeaders(req.headers);
  const body = typeof req.body === 'string' ? encoder.encode(req.body) : req.body;
  const rawInput = headerValue(headers['signature-input']);
  const rawSig = headerValue(headers.signature);

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
  let parsed: SignatureView;
  let digest: ContentDigestCheck | undefined;
  const fieldValues: string[] = [];
  let target: CanonicalTarget | TargetUriError;
  try {
    parsed = paths.parseSignature(combined(rawInput), combined(rawSig), ctx.encoding);
    const components = parsed.components;
    for (let i = 0; i < components.length; i++) {
      const c = components[i]!;
      if (c.charCodeAt(0) === 0x40) {
        fieldValues.push('');
        continue;
      }
      const v = header(headers, c);
      if (v === undefined) return failure(ctx, 'header_malformed', 1, `covered field ${c} is absent`);
      if (c === 'content-digest') {
        const value = trimmed(combined(v));
        digest = paths.parseContentDigest(value, ctx.encoding);
        fieldValues.push(value);
      } else fieldValues.push(singleFieldValue(c, v));
    }
    target = canonicalTarget(req.url);
    if (isTargetError(target) && target.kind === 'non_ascii_host') {
      return failure(ctx, 'header_malformed', 1, `request URL: ${target.message}`);
    }
  } catch (err) {
    if (err instanceof SignatureFormatError) return failure(ctx, err.reason, 1, err.message);
    if (err instanceof StructuredFieldError) return failure(ctx, 'header_malformed', 1, err.message);
    throw err;
  }
  const p = parsed.params;

  // Step 2: all six parameters.
  if (p.created === undefined || p.expires === undefined || p.nonce === undefined || p.keyid === undefined || p.alg === undefined || p.tag === undefined) {
    const missing = REQUIRED_PARAMS.filter((k) => p[k] === undefined);
    return failure(ctx, 'params_incomplete', 2, `missing parameter(s): ${missing.join(', ')}`);
  }
  const created = p.created;
  const expires = p.expires;

  // Step 3: tag, byte for byte.
  const tag = webhook ? ctx.ids.webhookSigningTag : ctx.ids.requestSigningTag;
  if (p.tag !== tag) return failure(ctx, 'tag_invalid', 3, `tag ${JSON.stringify(p.tag)} is not ${JSON.stringify(tag)}`);

  // Step 4: algorithm allow-list.
  if (!isAllowedSigAlg(p.alg)) return failure(ctx, 'alg_not_allowed', 4, `alg ${JSON.stringify(p.alg)} is not allowed`);

  // Step 5: validity window.
  const now = ctx.now();
  if (expires <= created) return failure(ctx, 'window_invalid', 5, 'expires is not after created');
  if (created > now + MAX_CLOCK_SKEW_SECONDS) return failure(ctx, 'window_invalid', 5, 'created is in the future');
  if (expires < now - MAX_CLOCK_SKEW_SECONDS) return failure(ctx, 'window_invalid', 5, 'signature expired');
  if (expires - created > MAX_WINDOW_SECONDS) return failure(ctx, 'window_invalid', 5, `window of ${expires - created} s exceeds ${MAX_WINDOW_SECONDS} s`);

  // Step 6: covered components.
  const covered = parsed.components;
  const needType = body.length > 0 || webhook;
  const policy = webhook ? 'required' : (ctx.digestPolicy ?? 'either');
  const needDigest = policy === 'required' && (webhook || body.length > 0);
  const coverage = parsed.coverage;
  if ((coverage & BASE_COVERAGE) !== BASE_COVERAGE || (needType && !(coverage & COVERS_CONTENT_TYPE)) || (needDigest && !(coverage & COVERS_CONTENT_DIGEST))) {
    const required = [...BASE_COMPONENTS];
    if (needType) required.push('content-type');
    if (needDigest) required.push('content-digest');
    const absent = required.filter((c) => !covered.includes(c));
    return failure(ctx, 'components_incomplete', 6, `not covered: ${absent.join(', ')}`);
  }
  if (policy === 'forbidden' && coverage & COVERS_CONTENT_DIGEST) {
    return failure(ctx, 'components_unexpected', 6, 'content-digest covered but the endpoint forbids it');
  }

  return new Checked(req, ctx, paths, headers, body, parsed, fieldValues, target, digest, p.keyid, p.nonce, expires, p.alg, now);
}

/** Step 7's outcome, Step 8, then Step 9 (revocation). */
function withKey(c: Checked, lookup: KeyLookup): MaybePromise<VerifyResult> {
  const { ctx, keyid } = c;
  if (!lookup.ok) return failure(ctx, lookup.reason, 7, lookup.detail);
  c.agentUrl = lookup.key.agentUrl;

  // Step 8: key purpose and parameter consistency.
  const keyState = keyStateFor(lookup.key.jwk, ctx.profile, ctx.ids.keyUseMember, c.alg);
  if (keyState.policyFailure) return failure(ctx, 'key_purpose_invalid', 8, `key ${keyid}: ${keyState.policyFailure}`);
  if (keyState.importError !== undefined) return failure(ctx, 'key_purpose_invalid', 8, keyState.importError);
  c.keyState = keyState;

  // Step 9: revocation.
  if (!ctx.revocation) return afterRevocation(c, 'ok');
  const status = ctx.revocation.check(keyid, c.now);
  return isThenable(status) ? Promise.resolve(status).then((s) => afterRevocation(c, s)) : afterRevocation(c, status);
}

/** Step 9's outcome, then Step 9a (the per-keyid cap, read only, before any crypto). */
function afterRevocation(c: Checked, status: RevocationStatus): MaybePromise<VerifyResult> {
  const { ctx, keyid } = c;
  if (status === 'revoked') return failure(ctx, 'key_revoked', 9, `key ${keyid} is revoked`);
  if (status === 'stale') return failure(ctx, 'revocation_stale', 9, 'revocation list not refreshed within its grace period');
  const cap = ctx.replayCache.capReached(keyid, c.now);
  return isThenable(cap) ? Promise.resolve(cap).then((r) => afterCap(c, r)) : afterCap(c, cap);
}

/** Step 9a's outcome, then Step 10. */
function afterCap(c: Checked, capReached: boolean): MaybePromise<VerifyResult> {
  const { ctx, keyid, req, target } = c;
  if (capReached) return failure(ctx, 'rate_abuse', '9a', `replay cache cap reached for ${keyid}`);

  // Step 10: canonical target, authority, signature base, crypto.
  if (isTargetError(target)) return failure(ctx, 'target_uri_malformed', 10, target.message);
  const authorityProblem = checkAuthority(req.authority, headerValue(c.headers.host), target);
  if (authorityProblem) return failure(ctx, 'target_uri_malformed', 10, authorityProblem);
  const signatureBase = c.paths.signatureBase(c.parsed.components, c.fieldValues, c.parsed.signatureParams, req.method, target);
  const base = signatureBase.text;
  const baseBytes = signatureBase.bytes;
  c.base = base;
  // The body checks of Steps 11 and 14 are pure functions of the body: computed together here,
  // while the body is in cache, and each reported in its place.
  const digestOk = c.digest === undefined || c.digest.matches(c.body);
  c.scan = ctx.checkBody !== false && c.body.length > 0 ? c.paths.scanBody(c.body) : undefined;
  if (ctx.offloadCrypto) {
    return verifyWithStateOffloaded(c.keyState!, baseBytes, c.parsed.signature).then((ok) => afterCrypto(c, ok, digestOk));
  }
  return afterCrypto(c, verifyWithState(c.keyState!, baseBytes, c.parsed.signature), digestOk);
}

/** Step 10's crypto outcome, Step 11, then Step 12 (replay check). */
function afterCrypto(c: Checked, signatureOk: boolean, digestOk: boolean): MaybePromise<VerifyResult> {
  const { ctx, keyid, base } = c;
  if (!signatureOk) return failure(ctx, 'invalid', 10, 'signature does not verify over the signature base', base);

  // Step 11: content digest.
  if (!digestOk) return failure(ctx, 'digest_mismatch', 11, 'Content-Digest does not match the body', base);

  // Step 12: replay check. The in-memory store's insert checks for a live pair before
  // anything else and answers 'replayed' itself; other stores (subclasses included) are asked
  // first, as the interface describes.
  if (ctx.replayCache.constructor === InMemoryReplayCache) return afterReplayCheck(c, false);
  const seen = ctx.replayCache.has(keyid, nonceKey(c), c.now);
  return isThenable(seen) ? Promise.resolve(seen).then((s) => afterReplayCheck(c, s)) : afterReplayCheck(c, seen);
}

function nonceKey(c: Checked): string {
  return c.ctx.replayScope ? `${c.ctx.replayScope} ${c.nonce}` : c.nonce;
}

/** Step 12's outcome, then Step 13 (insert atomically with the cap). */
function afterReplayCheck(c: Checked, seen: boolean): MaybePromise<VerifyResult> {
  const { ctx, keyid, now } = c;
  if (seen) return failure(ctx, 'replayed', 12, `nonce already seen for ${keyid}`, c.base);
  const inserted = ctx.replayCache.insert(keyid, nonceKey(c), replayTtlSeconds(c.expires, now), now);
  return isThenable(inserted) ? Promise.resolve(inserted).then((r) => afterInsert(c, r)) : afterInsert(c, inserted);
}

/** Step 13's outcome, then Step 14 (duplicate JSON keys) and the verified signer. */
function afterInsert(c: Checked, inserted: ReplayInsertOutcome): VerifyResult {
  const { ctx, keyid, body, base } = c;
  if (inserted === 'replayed') return failure(ctx, 'replayed', 12, `nonce already seen for ${keyid}`, base);
  if (inserted === 'cap_reached') return failure(ctx, 'rate_abuse', 13, `replay cache cap reached for ${keyid}`, base);

  // Step 14: duplicate JSON keys.
  const scan = c.scan;
  if (scan !== undefined) {
    if (scan.kind === 'duplicate') {
      ctx.onDuplicateKeys?.(duplicateKeyLog(keyid, c.nonce, body.length, scan.keys));
      return failure(ctx, 'body_malformed', 14, `body has ${scan.keys.length} duplicate key(s)`, base);
    }
    if (scan.kind === 'invalid') return failure(ctx, 'body_malformed', 14, `body is not JSON: ${scan.message}`, base);
  }

  return {
    ok: true,
    signer: { keyid, agent_url: c.agentUrl, verified_at: c.now, label: c.parsed.label, alg: c.alg },
    signatureBase: base,
  };
}

function parseJsonOrUndefined(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
