/**
 * Webhook authentication for the mock buyer: `verifyWebhook` of the signing library with the
 * endpoint's registration (RFC 9421 through the trusted senders' brand declarations, or legacy
 * HMAC-SHA256 / Bearer when the registration chose them). The fault switches for signature
 * rules live here, each neutralizing exactly one checklist rule.
 */
import type { ProtocolIds } from '../../harness/core/token.js';
import { errorCode, type FailureReason } from '../../harness/core/signing/codes.js';
import type { KeyResolver } from '../../harness/core/signing/keys/key-resolver.js';
import type { ReplayCache } from '../../harness/core/signing/verify/replay-cache.js';
import { parseSignatureHeaders, type SignatureParams } from '../../harness/core/signing/parse/signature-headers.js';
import { verifyRequestSignature } from '../../harness/core/signing/verify/verifier.js';
import type { ReceivedRequest } from '../../harness/core/signing/verify/verifier-types.js';
import { verifyWebhook, type WebhookVerdict, type WebhookVerifyOptions } from '../../harness/core/signing/verify/webhook-mode.js';
import { wwwAuthenticate } from '../../harness/core/signing/parse/www-authenticate.js';
import type { BuyerFaultSet } from './faults.js';
import { hasHmacFault, laxHmacAccepts } from './lax-hmac.js';
import { ClockedReplayCache, NoGraceReplayCache, NoReplayCache } from './replay-cache.js';
import type { Registration } from './store/endpoints.js';
import type { TrustResolver } from './trust.js';

export interface BuyerVerifierOptions {
  ids: ProtocolIds;
  trust: TrustResolver;
  replayCache: ReplayCache;
  faults: BuyerFaultSet;
  /** Unix seconds. */
  nowSeconds: () => number;
}

const CODE = {
  tag: errorCode('webhook', 'tag_invalid'),
  window: errorCode('webhook', 'window_invalid'),
  digest: errorCode('webhook', 'digest_mismatch'),
  purpose: errorCode('webhook', 'key_purpose_invalid'),
  mode: errorCode('webhook', 'mode_mismatch'),
  malformed: errorCode('webhook', 'header_malformed'),
  incomplete: errorCode('webhook', 'params_incomplete'),
};

function refusal(code: string, detail: string): WebhookVerdict {
  return { ok: false, status: 401, code, wwwAuthenticate: wwwAuthenticate(code), detail };
}

/** Fault `key-required-as-signature`: an MCP envelope (status string + task_id) without idempotency_key. */
function mcpWithoutKey(body: Uint8Array | string): boolean {
  try {
    const doc = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as Record<string, unknown>;
    return typeof doc === 'object' && doc !== null && typeof doc.status === 'string' && doc.task_id !== undefined && doc.idempotency_key === undefined;
  } catch {
    return false;
  }
}

function header(req: ReceivedRequest, name: string): string | undefined {
  for (const k in req.headers) {
    if (k.toLowerCase() !== name) continue;
    const v = req.headers[k];
    return Array.isArray(v) ? v.join(', ') : (v as string | undefined);
  }
  return undefined;
}

/** The sig1 parameters as sent (fault switches only). */
function sentParams(req: ReceivedRequest): SignatureParams | undefined {
  const input = header(req, 'signature-input');
  const sig = header(req, 'signature');
  if (input === undefined || sig === undefined) return undefined;
  try {
    return parseSignatureHeaders(input, sig, 'legacy').params;
  } catch {
    return undefined;
  }
}

export class BuyerVerifier {
  private readonly noReplay = new NoReplayCache();
  private readonly noGrace: ReplayCache;

  constructor(private readonly o: BuyerVerifierOptions) {
    this.noGrace = new NoGraceReplayCache(o.replayCache);
  }

  private options(keys: KeyResolver, ids: ProtocolIds, now: () => number): WebhookVerifyOptions {
    const cache = this.o.faults.has('accepts-replayed-nonce') ? this.noReplay : this.o.faults.has('replay-ttl-no-grace') ? this.noGrace : this.o.replayCache;
    // The replay cache keeps the receiver's own clock when the window is judged at another time.
    const replayCache = now === this.o.nowSeconds ? cache : new ClockedReplayCache(cache, this.o.nowSeconds);
    // The Ed25519/ECDSA check runs on libuv's pool: the event loop keeps reading, answering and
    // committing other deliveries meanwhile (npm run bench -- buyer).
    return { ids, now: this.o.nowSeconds, signature: { encoding: 'legacy', now, keys, replayCache, offloadCrypto: true } };
  }

  async verify(req: ReceivedRequest, reg: Registration): Promise<WebhookVerdict> {
    const keys = reg.senderAgent !== undefined ? this.o.trust.forAgent(reg.senderAgent) : this.o.trust.forEndpoint(reg.senderBrand);
    const { ids, faults, nowSeconds } = this.o;
    if (reg.mode === 'rfc9421' && faults.has('rejects-standard-base64-digest') && /:[^:]*[+/=][^:]*:/.test(header(req, 'content-digest') ?? '')) {
      return refusal(CODE.malformed, 'Content-Digest is not base64url');
    }
    const verdict = await verifyWebhook(req, reg.authentication, this.options(keys, ids, nowSeconds));
    if (reg.mode === 'hmac-sha256') return this.hmacFaults(req, reg, verdict);
    if (reg.mode === 'bearer') return this.bearerFaults(req, reg, verdict);
    if (verdict.ok) {
      if (faults.has('key-required-as-signature') && verdict.sender.kind === 'signature' && mcpWithoutKey(req.body)) {
        return refusal(CODE.incomplete, 'idempotency_key is required');
      }
      if (faults.has('refuses-webhook-signing-usage') && verdict.sender.kind === 'signature') {
        const key = await keys.resolve(verdict.sender.signer.keyid);
        if (key.ok && key.key.jwk[ids.keyUseMember] === 'webhook-signing') {
          return {
            ok: false,
            status: 401,
            code: CODE.purpose,
            wwwAuthenticate: wwwAuthenticate(CODE.purpose),
            detail: 'webhook-signing keys are not accepted',
          };
        }
      }
      return verdict;
    }
    if (reg.mode !== 'rfc9421') return verdict;
    if (verdict.code === CODE.mode && faults.has('mode-fallback')) {
      // "9421 first, then HMAC": the legacy headers are not looked at, the 9421 verifier finds no signature.
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => ![ids.hmacSignatureHeader, ids.hmacTimestampHeader].some((h) => h.toLowerCase() === k.toLowerCase())),
      );
      return verifyWebhook({ ...req, headers }, reg.authentication, this.options(keys, ids, nowSeconds));
    }

    if (verdict.status === 415 && faults.has('accepts-wrong-content-type')) {
      const r = await verifyRequestSignature(req, { ...this.options(keys, ids, nowSeconds).signature, profile: 'webhook', ids });
      if (!r.ok) return { ok: false, status: 401, code: r.code, wwwAuthenticate: r.wwwAuthenticate, detail: r.detail };
      if (r.signer === null) return verdict;
      return { ok: true, mode: 'rfc9421', sender: { kind: 'signature', signer: r.signer, identity: r.signer.agent_url ?? r.signer.keyid } };
    }
    const sent = sentParams(req);
    if (verdict.code === CODE.tag && faults.has('accepts-wrong-tag') && sent?.tag !== undefined) {
      return verifyWebhook(req, reg.authentication, this.options(keys, { ...ids, webhookSigningTag: sent.tag }, nowSeconds));
    }
    if (verdict.code === CODE.window && faults.has('accepts-expired-window') && sent?.created !== undefined) {
      const created = sent.created;
      return verifyWebhook(
        req,
        reg.authentication,
        this.options(keys, ids, () => created + 1),
      );
    }
    if (verdict.code === CODE.digest && faults.has('skips-digest') && sent?.keyid !== undefined) {
      // Step 11 runs after the crypto of step 10, so the signature itself verified.
      const key = await keys.resolve(sent.keyid);
      if (key.ok) {
        const signer = {
          keyid: sent.keyid,
          agent_url: key.key.agentUrl,
          verified_at: nowSeconds(),
          label: 'sig1',
          alg: sent.alg === 'ecdsa-p256-sha256' ? ('ecdsa-p256-sha256' as const) : ('ed25519' as const),
        };
        return { ok: true, mode: 'rfc9421', sender: { kind: 'signature', signer, identity: key.key.agentUrl ?? sent.keyid } };
      }
    }
    // Faults that skip one checklist rule outright: the delivery is taken as from its keyid as sent.
    const skipped =
      Object.entries(SKIPPED_RULES).some(([fault, reason]) => verdict.code === errorCode('webhook', reason) && faults.has(fault)) ||
      (verdict.code === CODE.window &&
        sent?.created !== undefined &&
        sent.expires !== undefined &&
        ((faults.has('accepts-long-window') && sent.expires - sent.created > MAX_WINDOW_SECONDS && sent.expires > nowSeconds()) ||
          (faults.has('accepts-future-created') && sent.created > nowSeconds())));
    if (skipped) {
      const keyid = sent?.keyid ?? 'unsigned';
      const key = sent?.keyid !== undefined ? await keys.resolve(sent.keyid) : undefined;
      const signer = {
        keyid,
        verified_at: nowSeconds(),
        label: 'sig1',
        alg: sent?.alg === 'ecdsa-p256-sha256' ? ('ecdsa-p256-sha256' as const) : ('ed25519' as const),
      };
      return { ok: true, mode: 'rfc9421', sender: { kind: 'signature', signer, identity: (key?.ok ? key.key.agentUrl : undefined) ?? keyid } };
    }
    return verdict;
  }

  /** An endpoint registered for the legacy Bearer scheme, under the faults that break its rules. */
  private bearerFaults(req: ReceivedRequest, reg: Registration, verdict: WebhookVerdict): WebhookVerdict {
    const { faults } = this.o;
    if (verdict.ok && faults.has('bearer-header-ignored')) return { ok: false, status: 401, detail: 'X-Api-Key required' };
    if (!verdict.ok && faults.has('bearer-prefix-compare')) {
      const m = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
      const expected = reg.authentication?.credentials ?? '';
      if (m && m[1]!.slice(0, 16) === expected.slice(0, 16)) return { ok: true, mode: 'bearer', sender: { kind: 'credential', identity: `legacy:${reg.id}` } };
    }
    return verdict;
  }

  /** An endpoint registered for legacy HMAC-SHA256, under the faults that break its rules. */
  private async hmacFaults(req: ReceivedRequest, reg: Registration, verdict: WebhookVerdict): Promise<WebhookVerdict> {
    const { ids, faults, nowSeconds } = this.o;
    if (!verdict.ok && verdict.code === CODE.mode && faults.has('hmac-endpoint-accepts-9421')) {
      // Verified as RFC 9421 instead, as if the endpoint had no authentication block.
      return verifyWebhook(req, null, this.options(this.o.trust, ids, nowSeconds));
    }
    if (!hasHmacFault(faults) || (!verdict.ok && verdict.code === CODE.mode)) return verdict;
    if (laxHmacAccepts(req, reg.authentication?.credentials ?? '', ids, nowSeconds(), faults)) {
      return verdict.ok ? verdict : { ok: true, mode: 'hmac-sha256', sender: { kind: 'credential', identity: `legacy:${reg.id}` } };
    }
    return verdict.ok ? { ok: false, status: 401, detail: 'HMAC does not match' } : verdict;
  }
}

/** Interface spec 8: a webhook signature is valid for at most 5 minutes. */
const MAX_WINDOW_SECONDS = 300;

/** Buyer faults that skip one rule of the webhook checklist (digest 1.16): the reason they no longer reject. */
const SKIPPED_RULES: Readonly<Record<string, FailureReason>> = {
  'accepts-unsigned': 'required',
  'accepts-malformed-header': 'header_malformed',
  'accepts-incomplete-params': 'params_incomplete',
  'accepts-any-alg': 'alg_not_allowed',
  'accepts-digest-uncovered': 'components_incomplete',
  'accepts-unknown-key': 'key_unknown',
  'accepts-bad-signature': 'invalid',
  'accepts-wrong-purpose': 'key_purpose_invalid',
  'accepts-duplicate-keys': 'body_malformed',
};
