/**
 * The passive audit of the agent's request-signature verifier (digest 1.9), under the signatures
 * suite's check ids: every signed request the buyer sends through the proxy is run through our
 * verifier as far as it goes without the buyer's keys (pre-checks and steps 1-6: header, the six
 * parameters, tag, algorithm, window, covered components), and checked for what any acceptance
 * rules out whatever the keys (a content-digest that does not match the body, a (keyid, nonce)
 * already accepted, a body repeating a JSON key). The agent must refuse such a request with 401
 * and exactly the checklist's code; accepting it is a finding. Judged only when the agent's
 * capabilities seen in the traffic declare request_signing.supported.
 */
import { IMPOSSIBLE_JWK_KID } from '../core/signing/keys/counterparty.js';
import { scanDuplicateKeys } from '../core/signing/parse/duplicate-keys.js';
import { contentDigestMatches, parseContentDigest } from '../core/signing/parse/content-digest.js';
import { parseSignatureHeaders, type ParsedSignature } from '../core/signing/parse/signature-headers.js';
import type { KeyLookup, KeyResolver } from '../core/signing/keys/key-resolver.js';
import { type Jwk, sigAlgOfJwk } from '../core/signing/keys/keys.js';
import { parseWwwAuthenticate } from '../core/signing/parse/www-authenticate.js';
import { type RequestSigningCapability, signingMode } from '../core/signing/verify/precheck.js';
import { InMemoryReplayCache, REQUEST_PER_KEYID_CAP } from '../core/signing/verify/replay-cache.js';
import { verifyRequestSignature } from '../core/signing/verify/verifier.js';
import { MAX_CLOCK_SKEW_SECONDS, MAX_WINDOW_SECONDS } from '../core/signing/verify/checklist.js';
import type { ProtocolIds } from '../core/token.js';
import { isObject, tryParseJson } from '../core/transport/jsonrpc.js';
import type { Verdict } from './audit.js';
import { remember } from './audit-shared.js';
import type { ProxiedExchange } from './http-parts.js';
import type { ObservedCall } from './observe.js';

/** The signatures suite's checks the buyer's own signed traffic can judge. */
export const SIGNATURE_AUDITED_CHECKS = [
  'signatures.precheck.unsigned-required',
  'signatures.precheck.unsigned-webhook-auth',
  'signatures.precheck.signature-without-input',
  'signatures.precheck.input-without-signature',
  'signatures.header.covered-header-absent',
  'signatures.params.missing-created',
  'signatures.params.missing-expires',
  'signatures.params.missing-nonce',
  'signatures.params.missing-keyid',
  'signatures.params.missing-alg',
  'signatures.params.missing-tag',
  'signatures.tag.wrong-tag',
  'signatures.alg.not-allowed',
  'signatures.window.expired',
  'signatures.window.too-long',
  'signatures.window.expires-equals-created',
  'signatures.window.created-in-future',
  'signatures.components.method-not-covered',
  'signatures.components.target-uri-not-covered',
  'signatures.components.authority-not-covered',
  'signatures.components.content-type-not-covered',
  'signatures.digest.required-enforced',
  'signatures.digest.forbidden-enforced',
  'signatures.digest.mismatch',
  'signatures.replay.replayed-nonce',
  'signatures.body.duplicate-json-key',
] as const;

/** What the buyer's published keys (`--caller-jwks`) add: the steps from the key lookup to the crypto. */
export const KEYED_SIGNATURE_CHECKS = [
  'signatures.key.unknown-keyid',
  'signatures.key.governance-purpose',
  'signatures.key.verify-not-allowed',
  'signatures.key.use-not-sig',
  'signatures.key.alg-mismatch',
  'signatures.crypto.bad-signature',
  'signatures.target.malformed-authority',
] as const;

/** The proxy holds none of the buyer's keys: the checklist stops at the key lookup (step 7). */
const NO_KEYS: KeyResolver = {
  resolve: (): KeyLookup => ({ ok: false, reason: 'key_unknown', detail: "the proxy does not hold the caller's keys" }),
};

const PARAMS = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'] as const;
const COMPONENTS: Array<[string, string]> = [
  ['@method', 'method'],
  ['@target-uri', 'target-uri'],
  ['@authority', 'authority'],
  ['content-type', 'content-type'],
];

function header(x: ProxiedExchange, name: string): string | undefined {
  return x.request.headers[name];
}

/** Which of the suite's checks a checklist failure of steps P-6 is, read from the request itself. */
function checkFor(
  reason: string,
  sig: ParsedSignature | undefined,
  now: number,
  policy: string,
  args: Record<string, unknown>,
  headers: Record<string, string>,
): string | undefined {
  if (reason === 'header_malformed') {
    // Only the malformations the request itself names unambiguously; the parser's own (labels,
    // alphabets, nonces, multi-valued fields) are left unjudged rather than guessed.
    const [hasInput, hasSig] = [headers['signature-input'] !== undefined, headers.signature !== undefined];
    if (hasSig && !hasInput) return 'signatures.precheck.signature-without-input';
    if (hasInput && !hasSig) return 'signatures.precheck.input-without-signature';
    if (sig?.components.some((c) => !c.startsWith('@') && headers[c] === undefined)) return 'signatures.header.covered-header-absent';
    return undefined;
  }
  if (reason === 'required') {
    const push = args.push_notification_config;
    return isObject(push) && push.authentication !== undefined ? 'signatures.precheck.unsigned-webhook-auth' : 'signatures.precheck.unsigned-required';
  }
  if (!sig) return undefined;
  const p = sig.params;
  if (reason === 'params_incomplete') {
    const missing = PARAMS.filter((k) => p[k] === undefined);
    return missing.length === 1 ? `signatures.params.missing-${missing[0]}` : undefined;
  }
  if (reason === 'tag_invalid') return 'signatures.tag.wrong-tag';
  if (reason === 'alg_not_allowed') return 'signatures.alg.not-allowed';
  if (reason === 'window_invalid' && p.created !== undefined && p.expires !== undefined) {
    if (p.expires === p.created) return 'signatures.window.expires-equals-created';
    if (p.expires < p.created) return undefined;
    if (p.created > now + MAX_CLOCK_SKEW_SECONDS) return 'signatures.window.created-in-future';
    if (p.expires < now - MAX_CLOCK_SKEW_SECONDS) return 'signatures.window.expired';
    if (p.expires - p.created > MAX_WINDOW_SECONDS) return 'signatures.window.too-long';
    return undefined;
  }
  if (reason === 'components_incomplete') {
    const missing = COMPONENTS.filter(([c]) => !sig.components.includes(c));
    if (missing.length === 1) return `signatures.components.${missing[0][1]}-not-covered`;
    if (missing.length === 0 && policy === 'required' && !sig.components.includes('content-digest')) return 'signatures.digest.required-enforced';
    return undefined;
  }
  if (reason === 'components_unexpected' && policy === 'forbidden') return 'signatures.digest.forbidden-enforced';
  return undefined;
}

/** Which key rule a failure of steps 7-10 is, from the key the caller published. */
function keyCheckFor(reason: string, sig: ParsedSignature, jwk: Jwk | undefined, ids: ProtocolIds): string | undefined {
  if (reason === 'key_unknown') return 'signatures.key.unknown-keyid';
  if (reason === 'target_uri_malformed') return 'signatures.target.malformed-authority';
  const keyAlg = jwk ? sigAlgOfJwk(jwk) : undefined;
  const algMismatch = keyAlg !== undefined && sig.params.alg !== undefined && keyAlg !== sig.params.alg;
  if (reason === 'invalid') return algMismatch ? 'signatures.key.alg-mismatch' : 'signatures.crypto.bad-signature';
  if (reason !== 'key_purpose_invalid' || !jwk) return undefined;
  const use = (jwk as Record<string, unknown>)[ids.keyUseMember];
  if (use !== undefined && use !== 'request-signing') return 'signatures.key.governance-purpose';
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')) return 'signatures.key.verify-not-allowed';
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'signatures.key.use-not-sig';
  return algMismatch ? 'signatures.key.alg-mismatch' : undefined;
}

/** What a failure after step 6 is, when the caller's keys are known. */
const POST_KEY: Record<string, string> = {
  digest_mismatch: 'signatures.digest.mismatch',
  replayed: 'signatures.replay.replayed-nonce',
  body_malformed: 'signatures.body.duplicate-json-key',
};

/** The request verifier's error codes (`request_signature_<reason>`). */
const ERROR_PREFIX = 'request_signature_';

export class SignatureAudit {
  /** (keyid, nonce) of signed requests that got past the agent's verifier → their exchange. */
  private readonly accepted = new Map<string, ProxiedExchange['seq']>();
  private readonly replayCache = new InMemoryReplayCache({ perKeyidCap: REQUEST_PER_KEYID_CAP });

  /** `keys`: the caller's published keys (`--caller-jwks`); without them the checklist stops at the key lookup. */
  constructor(
    private readonly ids: ProtocolIds,
    private readonly keys?: KeyResolver,
  ) {}

  /**
   * caller.signature.verifies: the buyer's own signature through our checklist. Without its keys
   * the checklist stops at the key lookup; the digest and the body are then checked here.
   */
  private callerVerdict(c: ObservedCall, x: ProxiedExchange, r: Awaited<ReturnType<typeof verifyRequestSignature>>): Verdict {
    const verdict = (ok: boolean, message: string): Verdict => ({
      checkId: 'caller.signature.verifies',
      ok,
      message: `${c.task}: ${message}`,
      exchanges: [c.exchange],
      ...(ok ? {} : { actual: r.ok ? undefined : r.code }),
    });
    if (r.ok) return verdict(true, 'the signature passes every step of the checklist');
    if (this.keys || r.reason !== 'key_unknown') return verdict(false, `the signature fails the checklist: ${r.code}${r.detail ? ` (${r.detail})` : ''}`);
    const digest = header(x, 'content-digest');
    if (digest !== undefined && /"content-digest"/i.test(header(x, 'signature-input') ?? '')) {
      let digests: Map<string, Buffer> | undefined;
      try {
        digests = parseContentDigest(digest, 'legacy');
      } catch {
        return verdict(false, 'the signature covers a malformed Content-Digest');
      }
      if (!contentDigestMatches(digests, Buffer.from(x.request.body, 'utf8'))) return verdict(false, 'the Content-Digest does not match the body sent');
    }
    if (scanDuplicateKeys(x.request.body).kind === 'duplicate') return verdict(false, 'the signed body repeats a JSON member name');
    return verdict(true, "the signature passes the checklist up to the key lookup (the proxy does not hold the buyer's keys)");
  }

  async judge(c: ObservedCall, x: ProxiedExchange, capabilities: Record<string, unknown> | undefined): Promise<Verdict[]> {
    const capability = isObject(capabilities?.request_signing) ? (capabilities.request_signing as unknown as RequestSigningCapability) : undefined;
    if (capability?.supported !== true || !x.response || x.request.body_truncated) return [];
    const out: Verdict[] = [];
    const got = parseWwwAuthenticate(x.response.headers['www-authenticate']);
    const now = Math.floor(Date.parse(x.started_at) / 1000);
    const policy = capability.covers_content_digest ?? 'either';
    const input = header(x, 'signature-input');
    const signature = header(x, 'signature');
    let sig: ParsedSignature | undefined;
    if (input !== undefined && signature !== undefined) {
      try {
        sig = parseSignatureHeaders(input, signature, 'legacy');
      } catch {
        sig = undefined;
      }
    }
    // Anything but a 401 got past the agent's verifier (an answer, or a refusal further on): for
    // every rule here, that is the verifier letting the request through.
    const passed = x.response.status !== 401;
    const v = (checkId: string, expected: string, strict: boolean): void => {
      if (!passed && got === expected) {
        out.push({ checkId, ok: true, message: `${c.task}: refused with 401 ${expected}`, exchanges: [c.exchange] });
      } else if (passed) {
        out.push({
          checkId,
          ok: false,
          message: `${c.task}: the agent's verifier let through a request it must refuse with 401 ${expected} (answered HTTP ${x.response?.status})`,
          exchanges: [c.exchange],
          expected,
        });
      } else if (strict) {
        out.push({
          checkId,
          ok: false,
          message: `${c.task}: refused with 401 ${got ?? 'without a Signature error'}, expected ${expected}`,
          exchanges: [c.exchange],
          expected,
          actual: got ?? null,
        });
      }
    };
    if (input === undefined && signature === undefined && c.transport === 'a2a') {
      // The checklist reads MCP arguments; over A2A a legacy webhook credential sits in the skill's
      // parameters or the native configuration, and still needs a signature (P1).
      const auth = (cfg: unknown) => isObject(cfg) && cfg.authentication !== undefined && cfg.authentication !== null;
      if (auth(c.args.push_notification_config) || auth(c.a2aPush)) {
        v('signatures.precheck.unsigned-webhook-auth', 'request_signature_required', true);
        return out;
      }
    }
    // The harness's own probe under the separate impossible-key counterparty (signatures.key.impossible-jwk,
    // digest 1.4): its key is in no caller's JWKS the audit holds, so the audit has no rule to judge it by.
    if (sig?.params.keyid === IMPOSSIBLE_JWK_KID) return out;
    const msg = tryParseJson(x.request.body);
    const method = msg.ok && isObject(msg.value) && typeof msg.value.method === 'string' ? msg.value.method : undefined;
    const r = await verifyRequestSignature(
      { method: x.request.method, url: `http://${header(x, 'host') ?? 'unknown-host'}${x.request.path}`, headers: x.request.headers, body: x.request.body },
      {
        profile: 'request',
        ids: this.ids,
        encoding: 'legacy',
        capability,
        digestPolicy: policy,
        // Where the call sits in the capability lists: the task for tools/call and for an A2A skill.
        operation: c.task,
        ...(method && method !== 'message/send' ? { jsonRpcMethod: method } : {}),
        now: () => now,
        // A bearer (or other credential) went with it: the agent may accept an unsigned call on it (digest 1.10).
        fallbackAuthenticated: header(x, 'authorization') !== undefined,
        keys: this.keys ?? NO_KEYS,
        replayCache: this.replayCache,
        checkBody: this.keys !== undefined,
      },
    );
    if (input !== undefined || signature !== undefined) out.push(this.callerVerdict(c, x, r));
    // Shadow mode (digest 1.10): under warn_for a failed signature is recorded, no signer is
    // established, and another credential carries the request, so letting it through is the rule.
    const mode = signingMode(capability, { operation: c.task, ...(method && method !== 'message/send' ? { jsonRpcMethod: method } : {}) });
    if (mode === 'warn_for' && passed && header(x, 'authorization') !== undefined) return out;
    if (this.keys) {
      // The whole checklist ran, in order: a failure's code is exactly the one the agent owes.
      if (r.ok || !sig) {
        if (!r.ok) {
          const id = checkFor(r.reason, sig, now, policy, c.args, x.request.headers);
          if (id) v(id, r.code, true);
        }
        return out;
      }
      let id: string | undefined = checkFor(r.reason, sig, now, policy, c.args, x.request.headers) ?? POST_KEY[r.reason];
      if (!id && sig.params.keyid !== undefined) {
        const lookup = await this.keys.resolve(sig.params.keyid);
        id = keyCheckFor(r.reason, sig, lookup.ok ? lookup.key.jwk : undefined, this.ids);
      }
      // Revocation (step 9) and the per-keyid cap (9a) run before the crypto (digest 1.9): a bad
      // signature refused for either is refused in the right order, and the audit, which sees
      // neither the agent's revocation list nor its cache, has nothing to hold against it.
      if (r.reason === 'invalid' && !passed && (got === `${ERROR_PREFIX}key_revoked` || got === `${ERROR_PREFIX}rate_abuse`)) return out;
      // An alg that differs from the key's may also surface as a signature that does not verify (digest 1.3).
      if (id === 'signatures.key.alg-mismatch' && got === 'request_signature_invalid' && !passed) v(id, got, true);
      else if (id) v(id, r.code, true);
      return out;
    }
    if (!r.ok && r.reason !== 'key_unknown') {
      // Steps P-6 failed: every earlier step held, so the code is the checklist's for this request.
      const id = checkFor(r.reason, sig, now, policy, c.args, x.request.headers);
      if (id) v(id, r.code, true);
      return out;
    }
    if (!sig || r.ok) return out;
    // Past step 6: what no acceptance can survive, whatever the keys say (a refusal for another,
    // earlier reason is possible, so only the exact code counts as the rule holding).
    const digest = header(x, 'content-digest');
    if (sig.components.includes('content-digest') && digest !== undefined) {
      let digests: Map<string, Buffer> | undefined;
      try {
        digests = parseContentDigest(digest, 'legacy');
      } catch {
        digests = undefined; // a malformed header is the checklist's, judged by the agent's own steps
      }
      if (digests && !contentDigestMatches(digests, Buffer.from(x.request.body, 'utf8')))
        v('signatures.digest.mismatch', 'request_signature_digest_mismatch', false);
    }
    const key = `${sig.params.keyid}\u0000${sig.params.nonce}`;
    const before = this.accepted.get(key);
    if (before !== undefined && before !== x.seq) v('signatures.replay.replayed-nonce', 'request_signature_replayed', false);
    else if (passed) remember(this.accepted, key, x.seq);
    if (scanDuplicateKeys(x.request.body).kind === 'duplicate') v('signatures.body.duplicate-json-key', 'request_body_malformed', false);
    return out;
  }
}
