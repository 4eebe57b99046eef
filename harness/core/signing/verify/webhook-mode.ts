/**
 * Webhook authentication mode switch (digest 1.16, 5.3): the registration's `authentication`
 * block selects legacy HMAC-SHA256 or Bearer; its absence selects RFC 9421. A delivery in the
 * other mode is rejected with `webhook_mode_mismatch` — a switch, never a fallback. Non-JSON
 * content types are rejected before any verification.
 */
import { createHash } from 'node:crypto';
import type { ProtocolIds } from '../../token.js';
import { errorCode } from '../codes.js';
import { verifyBearerWebhook } from '../legacy/legacy-bearer.js';
import { verifyHmacWebhook, type HmacVerifyOptions } from '../legacy/legacy-hmac.js';
import { verifyRequestSignature } from './verifier.js';
import type { ReceivedRequest, VerifiedSigner, VerifyContext } from './verifier-types.js';
import { wwwAuthenticate } from '../parse/www-authenticate.js';

export interface WebhookAuthentication {
  schemes?: string[];
  /** Singular spelling seen in the wild (vector 027). */
  scheme?: string;
  credentials?: string;
}

export type WebhookMode = 'rfc9421' | 'hmac-sha256' | 'bearer';

export class WebhookModeError extends Error {
  override name = 'WebhookModeError';
}

/** The mode a registration selects. */
export function webhookMode(authentication: WebhookAuthentication | null | undefined): WebhookMode {
  if (authentication === undefined || authentication === null) return 'rfc9421';
  const schemes = authentication.schemes ?? (authentication.scheme !== undefined ? [authentication.scheme] : []);
  if (schemes.length !== 1) throw new WebhookModeError('authentication must name exactly one scheme');
  const s = schemes[0]!.toUpperCase();
  if (s === 'HMAC-SHA256') return 'hmac-sha256';
  if (s === 'BEARER') return 'bearer';
  if (s === 'HTTP_MESSAGE_SIGNATURES') return 'rfc9421';
  throw new WebhookModeError(`unknown authentication scheme ${JSON.stringify(schemes[0])}`);
}

export type WebhookSender = { kind: 'signature'; signer: VerifiedSigner; identity: string } | { kind: 'credential'; identity: string };

export type WebhookVerdict =
  | { ok: true; mode: WebhookMode; sender: WebhookSender }
  | { ok: false; status: 401 | 415; code?: string; wwwAuthenticate?: string; detail: string };

export interface WebhookVerifyOptions {
  ids: ProtocolIds;
  /** RFC 9421 verification context (profile `webhook`). */
  signature: Omit<VerifyContext, 'profile' | 'ids'>;
  /** Unix seconds, for the legacy timestamp check. */
  now: () => number;
  previousSecret?: HmacVerifyOptions['previous'];
}

function has(headers: ReceivedRequest['headers'], name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(headers).some((k) => k.toLowerCase() === lower && headers[k] !== undefined);
}

function contentTypeOk(headers: ReceivedRequest['headers']): boolean {
  for (const k in headers) {
    if (k.toLowerCase() !== 'content-type') continue;
    const v = headers[k];
    const s = Array.isArray(v) ? (v.length === 1 ? v[0] : '') : (v as string);
    return /^application\/json\s*(;.*)?$/i.test(s.trim());
  }
  return false;
}

function mismatch(detail: string) {
  const code = errorCode('webhook', 'mode_mismatch');
  return { ok: false as const, status: 401 as const, code, wwwAuthenticate: wwwAuthenticate(code), detail };
}

function credentialIdentity(credentials: string): string {
  return `legacy:${createHash('sha256').update(credentials).digest('hex').slice(0, 32)}`;
}

export async function verifyWebhook(
  req: ReceivedRequest,
  authentication: WebhookAuthentication | null | undefined,
  opts: WebhookVerifyOptions,
): Promise<WebhookVerdict> {
  const mode = webhookMode(authentication);
  if (!contentTypeOk(req.headers)) return { ok: false, status: 415, detail: 'Content-Type must be application/json' };
  const sig9421 = has(req.headers, 'signature-input') || has(req.headers, 'signature');
  const hmac = has(req.headers, opts.ids.hmacSignatureHeader) || has(req.headers, opts.ids.hmacTimestampHeader);
  if (mode === 'rfc9421') {
    if (hmac) return mismatch('HMAC headers on a webhook registered for RFC 9421 signatures');
    if (!sig9421 && has(req.headers, 'authorization')) return mismatch('Bearer credentials on a webhook registered for RFC 9421 signatures');
    const r = await verifyRequestSignature(req, { ...opts.signature, profile: 'webhook', ids: opts.ids });
    if (!r.ok) return { ok: false, status: 401, code: r.code, wwwAuthenticate: r.wwwAuthenticate, detail: r.detail };
    if (r.signer === null) return { ok: false, status: 401, detail: 'no signature' };
    return { ok: true, mode, sender: { kind: 'signature', signer: r.signer, identity: r.signer.agent_url ?? r.signer.keyid } };
  }
  if (sig9421) return mismatch(`RFC 9421 signature on a webhook registered for ${mode}`);
  const credentials = authentication!.credentials ?? '';
  if (mode === 'hmac-sha256') {
    const r = verifyHmacWebhook(req, { ids: opts.ids, secret: credentials, previous: opts.previousSecret, now: opts.now });
    if (!r.ok) return { ok: false, status: 401, code: r.code, wwwAuthenticate: r.wwwAuthenticate, detail: r.detail };
  } else {
    if (hmac) return mismatch('HMAC headers on a webhook registered for Bearer');
    const r = verifyBearerWebhook(req.headers, credentials);
    if (!r.ok) return { ok: false, status: 401, code: r.code, wwwAuthenticate: r.wwwAuthenticate, detail: r.detail };
  }
  return { ok: true, mode, sender: { kind: 'credential', identity: credentialIdentity(credentials) } };
}
