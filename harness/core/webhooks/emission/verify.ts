/**
 * Verification of captured deliveries, once each and in arrival order, at their arrival time:
 * the JSON body, the `Signature-Input` parameters as sent, the RFC 9421 webhook checklist with
 * the seller's published keys and the run's replay cache (interface spec 5.1), or legacy
 * HMAC-SHA256 with the registration's secret (spec 5.2). Results are kept on the delivery for
 * the grading rules (harness/core/webhooks/emission/rules.ts).
 */
import { parseBoundedJson, tooDeepMessage } from '../../transport/bounded-json.js';
import type { ProtocolIds } from '../../token.js';
import type { KeyResolver } from '../../signing/keys/key-resolver.js';
import { verifyHmacWebhook } from '../../signing/legacy/legacy-hmac.js';
import type { ReplayCache } from '../../signing/verify/replay-cache.js';
import { parseSignatureHeaders } from '../../signing/parse/signature-headers.js';
import { verifyRequestSignature } from '../../signing/verify/verifier.js';
import type { Capture } from './receiver.js';
import type { CaptureMode, Delivery, DeliveryVerification } from './delivery.js';

export type { DeliveryVerification };

export interface VerifyEnv {
  ids: ProtocolIds;
  resolver?: KeyResolver;
  /** Why no resolver could be built (then signatures cannot be verified). */
  resolverProblem?: string;
  replayCache: ReplayCache;
  /** Deliveries arrive through a public base URL (a proxy): the Host header is not compared. */
  behindProxy: boolean;
}

function header(d: Delivery, name: string): string | undefined {
  const v = d.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** One delivery: its JSON body, signature parameters, and the registered mode's verification. */
export async function verifyDelivery(d: Delivery, mode: CaptureMode, secret: string | undefined, env: VerifyEnv): Promise<DeliveryVerification> {
  const out: DeliveryVerification = { mode, verdict: { ok: false, detail: 'not verified' } };
  if (d.tooLarge) {
    out.jsonError = 'body above 1 MB (answered 413)';
    out.verdict = { ok: false, detail: 'body above 1 MB' };
    return out;
  }
  const parsedBody = parseBoundedJson(d.raw.toString('utf8'));
  if (parsedBody.ok) out.json = parsedBody.value;
  else out.jsonError = parsedBody.tooDeep ? tooDeepMessage('the webhook body') : 'the webhook body is not JSON';
  const input = header(d, 'signature-input');
  const sig = header(d, 'signature');
  if (input !== undefined && sig !== undefined) {
    try {
      const parsed = parseSignatureHeaders(input, sig, 'legacy');
      out.signature = { components: parsed.components, params: parsed.params };
    } catch (err) {
      out.signatureError = (err as Error).message;
    }
  }
  const nowS = Math.floor(d.receivedAt / 1000);
  const headers = { ...d.headers };
  if (env.behindProxy) delete headers.host;
  const request = { method: d.method, url: d.url, headers, body: new Uint8Array(d.raw) };
  if (mode === 'hmac') {
    const r = verifyHmacWebhook(request, { ids: env.ids, secret: secret ?? '', now: () => nowS });
    out.verdict = r.ok ? { ok: true } : { ok: false, code: r.code, detail: `${r.kind}: ${r.detail}` };
    return out;
  }
  if (out.signature?.params.keyid !== undefined && env.resolver) {
    const lookup = await env.resolver.resolve(out.signature.params.keyid);
    const use = lookup.ok ? lookup.key.jwk[env.ids.keyUseMember] : undefined;
    out.keyLookup = lookup.ok
      ? { ok: true, agentUrl: lookup.key.agentUrl, ...(typeof use === 'string' ? { use } : {}) }
      : { ok: false, reason: lookup.reason, detail: lookup.detail };
  }
  if (!env.resolver) {
    out.verdict = { ok: false, detail: `the seller's keys could not be resolved: ${env.resolverProblem ?? 'no resolver'}` };
    return out;
  }
  const r = await verifyRequestSignature(request, {
    profile: 'webhook',
    ids: env.ids,
    encoding: 'legacy',
    now: () => nowS,
    keys: env.resolver,
    replayCache: env.replayCache,
  });
  if (r.ok) out.verdict = { ok: true, keyid: r.signer?.keyid };
  else out.verdict = { ok: false, code: r.code, step: String(r.step), detail: r.detail };
  return out;
}

/** Verifies every delivery of the capture that has not been verified yet. */
export function verifyCapture(capture: Capture, env: VerifyEnv): Promise<void> {
  capture.verifying = capture.verifying.then(async () => {
    for (const d of capture.deliveries) {
      if (d.verification) continue;
      d.verification = await verifyDelivery(d, capture.spec.mode, capture.spec.secret, env);
    }
  });
  return capture.verifying;
}
