/**
 * The mock seller's RFC 9421 request verifier (digest 1.9-1.14), installed through the
 * `verifyRequest` hook: it trusts the harness's test counterparty keys, pre-revokes the
 * counterparty's revoked key id, caps live replay entries per keyid at the counterparty cap, and
 * declares the matching `request_signing` capability. The verifier faults (signing/faults.ts)
 * are applied here, each where the mock implements the rule it breaks.
 */
import { checkBearer } from '../http/auth.js';
import { jsonRpcError } from '../http/server.js';
import type { FaultSet } from '../faults.js';
import type { VerifyRequestHook, VerifyRequestInput, VerifyRequestResult } from '../options.js';
import type { ProtocolIds } from '../../../harness/core/token.js';
import {
  counterpartyKeys,
  IMPOSSIBLE_JWK_KID,
  impossibleJwkCounterparty,
  TEST_COUNTERPARTY_PER_KEYID_CAP,
} from '../../../harness/core/signing/keys/counterparty.js';
import { errorCode } from '../../../harness/core/signing/codes.js';
import { StaticKeyResolver, type KeyLookup, type KeyResolver } from '../../../harness/core/signing/keys/key-resolver.js';
import {
  bodyRegistersLegacyWebhookAuth,
  signingMode,
  operationFromJsonRpc,
  type DigestPolicy,
  type OperationRef,
  type RequestSigningCapability,
} from '../../../harness/core/signing/verify/precheck.js';
import { InMemoryReplayCache, REQUEST_PER_KEYID_CAP, type ReplayCache, type ReplayInsertOutcome } from '../../../harness/core/signing/verify/replay-cache.js';
import type { RevocationChecker, RevocationStatus } from '../../../harness/core/signing/verify/revocation.js';
import { parseSignatureHeaders, type ParsedSignature } from '../../../harness/core/signing/parse/signature-headers.js';
import { verifyRequestSignature } from '../../../harness/core/signing/verify/verifier.js';
import { HARD_REASONS } from '../../../harness/core/signing/verify/auth-decision.js';
import type { VerifyContext, VerifyFailure, VerifyResult } from '../../../harness/core/signing/verify/verifier-types.js';
import { wwwAuthenticate } from '../../../harness/core/signing/parse/www-authenticate.js';
import { VERIFIER_FAULTS as F } from './faults.js';
import { parseStrictDictionary } from '../../../harness/core/signing/parse/structured-fields.js';
import { contentDigestHeader } from '../../../harness/core/signing/parse/content-digest.js';
import type { ProtocolLine } from '../../../harness/core/protocol/lines.js';

/**
 * Operations the mock verifies signatures for; create_media_buy is required when a bearer exists.
 * The digest-policy faults declare a policy the verifier does not enforce (see `enforcedDigestPolicy`).
 */
export function mockRequestSigningCapability(
  opts: { authToken?: string; overrides?: Partial<RequestSigningCapability>; faults?: FaultSet; line?: ProtocolLine } = {},
): RequestSigningCapability {
  const declared =
    opts.faults?.has(F.digestEitherDeclared) || opts.faults?.has(F.v32EitherDeclared)
      ? 'either'
      : opts.faults?.has(F.digestForbiddenDeclared)
        ? 'forbidden'
        : 'required';
  const bearer = opts.authToken !== undefined;
  return {
    // Fault: declared unsupported while the verifier still runs (createMockRequestVerifier).
    supported: !opts.faults?.has(F.undeclaredVerifies),
    covers_content_digest: declared,
    supported_for: ['create_media_buy', 'update_media_buy', 'get_products', ...(bearer ? ['list_creative_formats'] : [])],
    // Without a bearer token there is no fallback credential: requiring signatures would lock
    // out every unsigned client, so nothing is required then, and nothing is in shadow mode
    // (warn_for lets a failed signature through only on another authenticator, digest 1.10).
    required_for: bearer ? ['create_media_buy'] : [],
    ...(bearer ? { warn_for: ['list_creative_formats'] } : {}),
    // The protocol-method lists exist from 3.1 on (digest 1.9 P1, vector 028).
    ...(opts.line === '3.0' ? {} : { protocol_methods_supported_for: ['tasks/cancel'], protocol_methods_required_for: bearer ? ['tasks/cancel'] : [] }),
    ...opts.overrides,
  };
}

export interface MockVerifierOptions {
  ids: ProtocolIds;
  capability: RequestSigningCapability;
  faults: FaultSet;
  /** The seller's bearer token: a valid bearer is the fallback credential (digest 1.10). */
  authToken?: string;
  /** Unix seconds. */
  now?: () => number;
  /** Called with the code of each failed signature shadow mode (warn_for) let on to the bearer check. */
  onShadowFailure?: (code: string) => void;
  /** The protocol line: 3.2 verifies the strict sf-binary profile (digest 1.5), earlier lines the legacy one. */
  line?: ProtocolLine;
}

/** The counterparty's revocation list, refreshed locally (never stale). */
class LocalRevocation implements RevocationChecker {
  constructor(private readonly revoked: ReadonlySet<string>) {}
  check(keyid: string): RevocationStatus {
    return this.revoked.has(keyid) ? 'revoked' : 'ok';
  }
}

/** Fault: a replay cache that never reports a nonce as seen (the cap still counts). */
class ForgetfulReplayCache implements ReplayCache {
  constructor(private readonly inner: ReplayCache) {}
  capReached(keyid: string, now: number) {
    return this.inner.capReached(keyid, now);
  }
  has() {
    return false;
  }
  insert(keyid: string, nonce: string, ttl: number, now: number) {
    const r = this.inner.insert(keyid, nonce, ttl, now) as ReplayInsertOutcome;
    return r === 'replayed' ? ('inserted' as const) : r;
  }
}

/** For the crypto-first fault: a cache that never reports the cap and stores nothing. */
class UncappedLookup implements ReplayCache {
  capReached() {
    return false;
  }
  has() {
    return false;
  }
  insert() {
    return 'inserted' as const;
  }
}

/**
 * The replay cache with the counterparty caps: 100 live entries per keyid (the runner contract),
 * and a small cap on the counterparty's rate-cap key so the 9a probe needs few requests (the
 * suite accepts any cap up to the contract's). One shared entry count per keyid either way.
 */
export const MOCK_RATE_CAP_KEY_CAP = 10;

class CounterpartyReplayCache implements ReplayCache {
  constructor(
    private readonly main: InMemoryReplayCache,
    private readonly small: InMemoryReplayCache,
    private readonly smallKid: string,
  ) {}
  private pick(keyid: string): InMemoryReplayCache {
    return keyid === this.smallKid ? this.small : this.main;
  }
  capReached(keyid: string, now: number) {
    return this.pick(keyid).capReached(keyid, now);
  }
  has(keyid: string, nonce: string, now: number) {
    return this.pick(keyid).has(keyid, nonce, now);
  }
  insert(keyid: string, nonce: string, ttl: number, now: number) {
    return this.pick(keyid).insert(keyid, nonce, ttl, now);
  }
}

/**
 * Fault: every resolved key passes as a request-signing key whatever its declared purpose
 * (`only`: just keys of that purpose, e.g. the deprecated webhook-signing usage).
 */
class PurposeBlindResolver implements KeyResolver {
  constructor(
    private readonly inner: StaticKeyResolver,
    private readonly member: string,
    private readonly only?: string,
  ) {}
  resolve(keyid: string): KeyLookup {
    const r = this.inner.resolve(keyid);
    if (!r.ok || (this.only !== undefined && r.key.jwk[this.member] !== this.only)) return r;
    return { ok: true, key: { ...r.key, jwk: { ...r.key.jwk, [this.member]: 'request-signing' } } };
  }
}

/** The content-digest policy the verifier applies: the declared one, unless a digest-policy fault declared another. */
function enforcedDigestPolicy(capability: RequestSigningCapability, faults: FaultSet): DigestPolicy {
  if (faults.has(F.digestEitherDeclared) || faults.has(F.v32EitherDeclared)) return 'required';
  if (faults.has(F.digestForbiddenDeclared)) return 'either';
  return capability.covers_content_digest ?? 'either';
}

/**
 * Faults that let one refused case through: the library's failure reason and the detail naming
 * the case, and whether the request then counts as unsigned (bearer auth decides) or as verified.
 */
const LET_THROUGH: readonly { fault: string; reason: VerifyFailure['reason']; detail?: RegExp; as: 'unsigned' | 'verified' }[] = [
  { fault: F.webhookAuthUnsigned, reason: 'required', detail: /webhook authentication block/, as: 'unsigned' },
  { fault: F.halfPairIgnored, reason: 'header_malformed', detail: /^Signature(-Input)? without Signature(-Input)?$/, as: 'unsigned' },
  { fault: F.malformedInputIgnored, reason: 'header_malformed', detail: /^Signature-Input: (?!duplicate (dictionary key|parameter))/, as: 'unsigned' },
  { fault: F.doubledTagAccepted, reason: 'header_malformed', detail: /^Signature-Input: duplicate parameter "tag"$/, as: 'verified' },
  {
    fault: F.lenientParse,
    reason: 'header_malformed',
    detail: /^Signature-Input: duplicate dictionary key|unquoted token|mixed base64 and base64url/,
    as: 'verified',
  },
  { fault: F.nonceUnchecked, reason: 'header_malformed', detail: /^nonce/, as: 'verified' },
  { fault: F.multiValuedAccepted, reason: 'header_malformed', detail: /is multi-valued$|^duplicate dictionary key/, as: 'verified' },
  { fault: F.hostUnvalidated, reason: 'header_malformed', detail: /^request URL:/, as: 'verified' },
  { fault: F.hostUnvalidated, reason: 'target_uri_malformed', as: 'verified' },
  // Digest 1.6 step 3's forms only (the canonicalizer's words for them), not two trailing dots or another authority.
  { fault: F.malformedHostAccepted, reason: 'target_uri_malformed', detail: /missing host|missing closing bracket|not bracketed/, as: 'verified' },
  { fault: F.coveredHeaderAbsentAccepted, reason: 'header_malformed', detail: /^covered field \S+ is absent$/, as: 'verified' },
  { fault: F.paramsUnchecked, reason: 'params_incomplete', as: 'verified' },
  { fault: F.windowBoundsIgnored, reason: 'window_invalid', detail: /^(?!signature expired)/, as: 'verified' },
  { fault: F.componentsUnchecked, reason: 'components_incomplete', detail: /^not covered: (?!.*@authority)/, as: 'verified' },
  { fault: F.unknownKeyAccepted, reason: 'key_unknown', as: 'verified' },
  { fault: F.keyConstraintsIgnored, reason: 'key_purpose_invalid', detail: /: (key_ops|use|alg_mismatch)/, as: 'verified' },
];

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A2A `message/send`: the `{skill, parameters}` data part. */
function a2aCall(json: unknown): { skill?: string; parameters?: unknown; configuration?: unknown } | undefined {
  if (!isObj(json) || !isObj(json.params)) return undefined;
  const parts = isObj(json.params.message) && Array.isArray(json.params.message.parts) ? json.params.message.parts : [];
  for (const p of parts) {
    const data = isObj(p) ? p.data : undefined;
    if (isObj(data) && typeof data.skill === 'string') return { skill: data.skill, parameters: data.parameters, configuration: json.params.configuration };
  }
  return { configuration: json.params.configuration };
}

/** Which operation / JSON-RPC method a request is (trusted routing: the endpoint's own envelope). */
function operationOf(input: VerifyRequestInput): OperationRef {
  if (input.route === 'mcp') return operationFromJsonRpc(input.json) ?? {};
  const method = isObj(input.json) && typeof input.json.method === 'string' ? input.json.method : undefined;
  if (method === 'message/send' || method === 'message/stream') {
    const skill = a2aCall(input.json)?.skill;
    return skill !== undefined ? { operation: skill } : { jsonRpcMethod: method };
  }
  return method !== undefined ? { jsonRpcMethod: method } : {};
}

/** A2A registers push notifications in `configuration.pushNotificationConfig` (the library reads MCP arguments). */
function a2aRegistersWebhookAuth(json: unknown): boolean {
  const call = a2aCall(json);
  if (!call) return false;
  const cfg = isObj(call.configuration) ? call.configuration.pushNotificationConfig : undefined;
  return (isObj(cfg) && cfg.authentication !== undefined && cfg.authentication !== null) || bodyRegistersLegacyWebhookAuth(call.parameters);
}

/** The task arguments of a call (MCP `params.arguments`, A2A data part `parameters`). */
function callArguments(input: VerifyRequestInput): Record<string, unknown> | undefined {
  if (!isObj(input.json)) return undefined;
  const args = input.route === 'mcp' ? (isObj(input.json.params) ? input.json.params.arguments : undefined) : a2aCall(input.json)?.parameters;
  return isObj(args) ? args : undefined;
}

/** Labels of a signature dictionary header (empty when absent or unparseable). */
function labels(value: string | undefined, encoding: 'strict' | 'legacy'): string[] {
  if (value === undefined) return [];
  try {
    return [...parseStrictDictionary(value, encoding).keys()];
  } catch {
    return [];
  }
}

function header(input: VerifyRequestInput, name: string): string | undefined {
  const v = input.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function parsed(input: VerifyRequestInput): ParsedSignature | undefined {
  const si = header(input, 'signature-input');
  const sig = header(input, 'signature');
  if (si === undefined || sig === undefined) return undefined;
  try {
    return parseSignatureHeaders(si, sig, 'legacy');
  } catch {
    return undefined;
  }
}

export function createMockRequestVerifier(opts: MockVerifierOptions): VerifyRequestHook {
  const { ids, faults } = opts;
  const keys = counterpartyKeys(ids);
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  // The separate impossible-key counterparty is trusted too (its own entry in --agent-config, digest 1.4).
  const resolver = new StaticKeyResolver([...keys.jwks.keys, ...impossibleJwkCounterparty(ids).jwks.keys]);
  const capIgnored = faults.has(F.rateCapIgnored);
  const cache = new CounterpartyReplayCache(
    new InMemoryReplayCache({ perKeyidCap: capIgnored ? REQUEST_PER_KEYID_CAP : TEST_COUNTERPARTY_PER_KEYID_CAP }),
    new InMemoryReplayCache({ perKeyidCap: capIgnored ? REQUEST_PER_KEYID_CAP : MOCK_RATE_CAP_KEY_CAP }),
    keys.kid('rate-cap'),
  );
  const base = {
    profile: 'request' as const,
    ids,
    encoding: opts.line === '3.2' && !faults.has(F.v32LegacyDecoder) ? ('strict' as const) : ('legacy' as const),
    // Fault: the declaration says unsupported, the verifier runs all the same.
    capability: faults.has(F.undeclaredVerifies) ? { ...opts.capability, supported: true } : opts.capability,
    digestPolicy: enforcedDigestPolicy(opts.capability, faults),
    keys: faults.has(F.keyPurposeIgnored)
      ? new PurposeBlindResolver(resolver, ids.keyUseMember)
      : faults.has(F.webhookUsageAccepted)
        ? new PurposeBlindResolver(resolver, ids.keyUseMember, 'webhook-signing')
        : resolver,
    replayCache: faults.has(F.replayAccepted) ? new ForgetfulReplayCache(cache) : cache,
    revocation: faults.has(F.revocationIgnored) ? undefined : new LocalRevocation(new Set(keys.revokedKids)),
    checkBody: !faults.has(F.duplicateKeysAccepted),
  };

  const reject = (input: VerifyRequestInput, code: string, detail: string): VerifyRequestResult => {
    const id = isObj(input.json) && (typeof input.json.id === 'string' || typeof input.json.id === 'number') ? input.json.id : null;
    return {
      outcome: 'rejected',
      wwwAuthenticate: faults.has(F.challengeRealm) ? `${wwwAuthenticate(code)}, realm="mock-seller"` : wwwAuthenticate(code),
      body: jsonRpcError(id, -32001, `request signature rejected: ${code}`, { code, detail }),
    };
  };
  const accepted = (input: VerifyRequestInput): VerifyRequestResult => ({ outcome: 'verified', signer: { keyid: parsed(input)?.params.keyid } });

  /** Faults that short-circuit the checklist after the library has refused a request. */
  async function faulty(input: VerifyRequestInput, ctx: VerifyContext, failure: VerifyFailure): Promise<VerifyResult | VerifyRequestResult> {
    const sig = parsed(input);
    switch (failure.reason) {
      case 'window_invalid': {
        const { created, expires } = sig?.params ?? {};
        const onlyExpired = created !== undefined && expires !== undefined && expires > created && expires - created <= 300 && created <= ctx.now() + 60;
        if (faults.has(F.expiredAccepted) && onlyExpired) return verifyRequestSignature(received(input), { ...ctx, now: () => created });
        break;
      }
      case 'digest_mismatch':
        if (faults.has(F.digestUnchecked)) return accepted(input);
        break;
      case 'tag_invalid':
        if (faults.has(F.tagWrongCode)) return reject(input, errorCode('request', 'invalid'), 'tag refused with the wrong code');
        break;
      case 'alg_not_allowed':
        if (faults.has(F.unknownAlgAccepted)) return accepted(input);
        break;
      case 'components_incomplete':
        if (faults.has(F.authorityOptional) && sig && !sig.components.includes('@authority')) return accepted(input);
        break;
      case 'invalid':
        if (faults.has(F.signatureUnchecked)) return accepted(input);
        if (faults.has(F.matchingDigestTrusted) && sig?.components.includes('content-digest') && digestMatches(input)) return accepted(input);
        break;
      case 'replayed':
        // Fault: the nonce is stored only after step 14, so a replayed malformed body fails step 14 again.
        if (faults.has(F.nonceAfterBody)) {
          const fresh = await verifyRequestSignature(received(input), { ...ctx, replayCache: new UncappedLookup() });
          if (!fresh.ok && fresh.reason === 'body_malformed') return fresh;
        }
        break;
      case 'key_revoked':
      case 'rate_abuse':
        // Fault: the crypto of step 10 runs before revocation (9) and the cap (9a).
        if (faults.has(F.cryptoFirst) && failure.step !== 13) {
          const cryptoOnly = await verifyRequestSignature(received(input), { ...ctx, revocation: undefined, replayCache: new UncappedLookup() });
          if (!cryptoOnly.ok && cryptoOnly.reason === 'invalid') return cryptoOnly;
        }
        break;
    }
    const through = LET_THROUGH.find((t) => t.reason === failure.reason && (!t.detail || t.detail.test(failure.detail)) && faults.has(t.fault));
    if (through) return through.as === 'unsigned' ? { outcome: 'absent' } : accepted(input);
    return failure;
  }

  /** The accept faults: a signature that verified is refused all the same (digest 1.3, step 10). */
  function refusedAlg(alg: string): boolean {
    return (alg === 'ed25519' && faults.has(F.ed25519Refused)) || (alg === 'ecdsa-p256-sha256' && faults.has(F.es256Refused));
  }

  /** Faults judging labels other than sig1 (digest 1.3), before the library's checklist. */
  function labelFault(input: VerifyRequestInput): VerifyRequestResult | undefined {
    const inputs = labels(header(input, 'signature-input'), base.encoding);
    const sigs = labels(header(input, 'signature'), base.encoding);
    const others = inputs.filter((l) => l !== 'sig1');
    if (faults.has(F.everyLabelVerified) && others.some((l) => sigs.includes(l))) {
      return reject(input, errorCode('request', 'invalid'), 'every signature label verified');
    }
    if (faults.has(F.unmatchedLabelRefused) && others.some((l) => !sigs.includes(l))) {
      return reject(input, errorCode('request', 'header_malformed'), 'Signature-Input label without a Signature entry');
    }
    if (
      faults.has(F.standardBase64Refused) &&
      base.encoding === 'legacy' &&
      /sig1=:(?=[A-Za-z0-9+/=]*:)[A-Za-z0-9]*[+/=]/.test(header(input, 'signature') ?? '')
    ) {
      return reject(input, errorCode('request', 'header_malformed'), 'Signature token is not base64url');
    }
    return undefined;
  }

  /** The digest policy of this request: the endpoint's, unless a fault lets the body's version member pick it. */
  function digestPolicyFor(input: VerifyRequestInput): DigestPolicy {
    const version = callArguments(input)?.[ids.versionMember];
    if (faults.has(F.bodyVersionPolicy) && typeof version === 'string' && /^3\.[01](\.|$)/.test(version)) return 'either';
    return base.digestPolicy;
  }

  return async (input) => {
    const routed = operationOf(input);
    // Fault: the method lists are never consulted (a listed method goes unrouted).
    const listedMethod = routed.jsonRpcMethod !== undefined && !!opts.capability.protocol_methods_required_for?.includes(routed.jsonRpcMethod);
    const ref = faults.has(F.protocolMethodsUnchecked) && routed.operation === undefined && listedMethod ? {} : routed;
    const signed = header(input, 'signature-input') !== undefined || header(input, 'signature') !== undefined;
    const labelled = signed ? labelFault(input) : undefined;
    if (labelled) return labelled;
    if (!signed && input.route === 'a2a' && a2aRegistersWebhookAuth(input.json) && !faults.has(F.webhookAuthUnsigned)) {
      return reject(input, errorCode('request', 'required'), 'unsigned request registers a webhook authentication block');
    }
    const bearerOk = opts.authToken !== undefined && checkBearer(input.headers, opts.authToken) === 'ok';
    const ctx: VerifyContext = {
      ...base,
      ...ref,
      ...(faults.has(F.namespacesMixed) ? { capability: mixedNamespaces(base.capability) } : {}),
      digestPolicy: digestPolicyFor(input),
      now,
      fallbackAuthenticated: bearerOk || faults.has(F.unsignedAccepted),
    };
    const forwarded = header(input, 'x-forwarded-host');
    const request = faults.has(F.queryDropped)
      ? { ...received(input), url: input.url.replace(/\?.*$/, '') }
      : faults.has(F.forwardedHostTrusted) && forwarded
        ? { ...received(input), url: input.url.replace(/^(https?:\/\/)[^/?#]*/, `$1${forwarded}`), headers: { ...input.headers, host: forwarded } }
        : received(input);
    // Fault: the host is not lower-cased, so a base built over an upper-cased Host header does not verify.
    const host = header(input, 'host');
    if (faults.has(F.hostCaseKept) && signed && host !== undefined && host !== host.toLowerCase())
      return reject(input, errorCode('request', 'invalid'), 'signature base built over the Host header as received');
    // Fault: the scheme's default port is kept in the authority, so a Host naming it builds another base.
    if (faults.has(F.defaultPortKept) && signed && host?.endsWith(input.url.startsWith('https:') ? ':443' : ':80'))
      return reject(input, errorCode('request', 'invalid'), 'signature base built over the authority with its default port');
    let result: VerifyResult | VerifyRequestResult = await verifyRequestSignature(request, ctx);
    // The query-dropping fault answers for itself (the let-through faults must not mask it in a fault group).
    if ((faults.has(F.queryDropped) || faults.has(F.forwardedHostTrusted)) && request.url !== input.url && 'ok' in result && !result.ok) {
      return reject(input, result.code, result.detail);
    }
    if ('ok' in result && !result.ok && signingMode(base.capability, ref) === 'warn_for') {
      // Fault: no shadow mode, the signature is judged as under supported_for (before any other fault can let it through).
      if (faults.has(F.warnForEnforced)) return reject(input, result.code, result.detail);
      // Shadow mode (digest 1.10): a well-formed signature failing crypto or body binding is
      // recorded, establishes no signer, and the request goes on only if the bearer check passes.
      // Malformed or partial pairs still hard-reject.
      if (!HARD_REASONS.has(result.reason)) {
        opts.onShadowFailure?.(result.code);
        // Fault: the failed signature is taken as authentication, so no other authenticator is needed.
        return faults.has(F.warnForAuthenticates) ? { outcome: 'verified' } : { outcome: 'absent' };
      }
    }
    // Fault: the JWK's parameters are never checked for consistency, so the impossible key goes on to the crypto step and fails there.
    if (
      faults.has(F.impossibleJwkAccepted) &&
      'ok' in result &&
      !result.ok &&
      result.reason === 'key_purpose_invalid' &&
      parsed(input)?.params.keyid === IMPOSSIBLE_JWK_KID
    )
      return reject(input, errorCode('request', 'invalid'), 'signature did not verify under the key as published');
    if ('ok' in result && !result.ok) result = await faulty(input, ctx, result);
    if (!('ok' in result)) return result;
    if (!result.ok) return reject(input, result.code, result.detail);
    if (result.signer && refusedAlg(result.signer.alg)) return reject(input, errorCode('request', 'invalid'), `${result.signer.alg} signature refused`);
    return result.signer ? { outcome: 'verified', signer: result.signer } : { outcome: 'absent' };
  };
}

/** Fault: both namespaces in both lists, so a name matches whichever list holds it. */
function mixedNamespaces(cap: RequestSigningCapability): RequestSigningCapability {
  const both = [...(cap.required_for ?? []), ...(cap.protocol_methods_required_for ?? [])];
  return { ...cap, required_for: both, protocol_methods_required_for: both };
}

/** Does the received Content-Digest equal the body's sha-256 (either encoding)? */
function digestMatches(input: VerifyRequestInput): boolean {
  const got = header(input, 'content-digest')?.trim();
  const body = input.rawBody;
  return got !== undefined && (got === contentDigestHeader(body, 'legacy') || got === contentDigestHeader(body, 'strict'));
}

function received(input: VerifyRequestInput) {
  return { method: input.method, url: input.url, headers: input.headers, body: input.rawBody };
}
