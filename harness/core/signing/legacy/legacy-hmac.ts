/**
 * Legacy HMAC-SHA256 webhooks (interface spec 5.2, digest 5.3; deprecated, removed in 4.0).
 * `X-<TOKEN>-Signature: sha256=<hex>` over `<timestamp>.<raw body>` with the secret's UTF-8
 * bytes as key; `X-<TOKEN>-Timestamp` in unix seconds, at most 300 s skew; constant-time
 * compare; duplicate JSON keys rejected only after the HMAC passes. Secrets need at least 32
 * characters.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProtocolIds } from '../../token.js';
import { errorCode, type FailureReason } from '../codes.js';
import { scanDuplicateKeys } from '../parse/duplicate-keys.js';
import { wwwAuthenticate } from '../parse/www-authenticate.js';

export const HMAC_MAX_SKEW_SECONDS = 300;
export const MIN_LEGACY_SECRET_CHARS = 32;

export class LegacyConfigError extends Error {
  override name = 'LegacyConfigError';
}

/** Throws LegacyConfigError when a shared secret / bearer credential is too short. */
export function assertLegacySecret(secret: string): void {
  if (typeof secret !== 'string' || [...secret].length < MIN_LEGACY_SECRET_CHARS) {
    throw new LegacyConfigError(`legacy credentials need at least ${MIN_LEGACY_SECRET_CHARS} characters`);
  }
}

const enc = new TextEncoder();

/** `sha256=<hex>` over `<timestamp>.<raw body>`. */
export function hmacSignature(secret: string, timestamp: string | number, body: Uint8Array | string): string {
  const mac = createHmac('sha256', enc.encode(secret));
  mac.update(`${timestamp}.`);
  mac.update(typeof body === 'string' ? enc.encode(body) : body);
  return `sha256=${mac.digest('hex')}`;
}

export type LegacyFailureKind = 'missing_header' | 'timestamp_invalid' | 'timestamp_skew' | 'signature_mismatch' | 'body_malformed';

export interface LegacyFailure {
  ok: false;
  kind: LegacyFailureKind;
  /** Closest profile code (the legacy schemes define none of their own). */
  code: string;
  wwwAuthenticate: string;
  detail: string;
}

const REASON: Record<LegacyFailureKind, FailureReason> = {
  missing_header: 'header_malformed',
  timestamp_invalid: 'header_malformed',
  timestamp_skew: 'window_invalid',
  signature_mismatch: 'invalid',
  body_malformed: 'body_malformed',
};

export function legacyFailure(kind: LegacyFailureKind, detail: string): LegacyFailure {
  const code = errorCode('webhook', REASON[kind]);
  return { ok: false, kind, code, wwwAuthenticate: wwwAuthenticate(code), detail };
}

export class DuplicateKeyInputError extends Error {
  override name = 'DuplicateKeyInputError';
  /** The identifier the signer-side fixtures expect. */
  readonly code = 'duplicate_key_input';
}

/** Signer side: the two headers for a raw body. Refuses bodies with duplicate keys. */
export function signHmacWebhook(ids: ProtocolIds, secret: string, body: Uint8Array | string, timestamp: number): Record<string, string> {
  assertLegacySecret(secret);
  const scan = scanDuplicateKeys(body);
  if (scan.kind === 'duplicate') throw new DuplicateKeyInputError(`duplicate_key_input: body repeats ${scan.keys[0]}`);
  const ts = String(Math.floor(timestamp));
  return { [ids.hmacTimestampHeader]: ts, [ids.hmacSignatureHeader]: hmacSignature(secret, ts, body) };
}

function header(headers: Readonly<Record<string, string | readonly string[] | undefined>>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const k in headers) {
    if (k.toLowerCase() !== lower) continue;
    const v = headers[k];
    return Array.isArray(v) ? (v.length === 1 ? v[0] : undefined) : (v as string | undefined);
  }
  return undefined;
}

export interface HmacVerifyOptions {
  ids: ProtocolIds;
  secret: string;
  /** During rotation: the previous secret, accepted until `until` (at most 5 minutes). */
  previous?: { secret: string; until: number };
  /** Unix seconds. */
  now: () => number;
}

const SIG_VALUE = /^sha256=([0-9a-fA-F]{64})$/;

/** Receiver side, in the digest's order. */
export function verifyHmacWebhook(
  req: { headers: Readonly<Record<string, string | readonly string[] | undefined>>; body: Uint8Array | string },
  opts: HmacVerifyOptions,
): { ok: true } | LegacyFailure {
  assertLegacySecret(opts.secret);
  const sig = header(req.headers, opts.ids.hmacSignatureHeader);
  const ts = header(req.headers, opts.ids.hmacTimestampHeader);
  if (sig === undefined || ts === undefined)
    return legacyFailure('missing_header', `${opts.ids.hmacSignatureHeader} and ${opts.ids.hmacTimestampHeader} are required`);
  if (!/^[0-9]{1,15}$/.test(ts)) return legacyFailure('timestamp_invalid', 'timestamp is not an integer');
  const now = opts.now();
  if (Math.abs(now - Number(ts)) > HMAC_MAX_SKEW_SECONDS)
    return legacyFailure('timestamp_skew', `timestamp differs from now by more than ${HMAC_MAX_SKEW_SECONDS} s`);
  const m = SIG_VALUE.exec(sig);
  const received = m ? Buffer.from(m[1]!, 'hex') : Buffer.alloc(32);
  const secrets = [opts.secret];
  if (opts.previous && now <= opts.previous.until) secrets.push(opts.previous.secret);
  let match = false;
  for (const secret of secrets) {
    const expected = Buffer.from(hmacSignature(secret, ts, req.body).slice('sha256='.length), 'hex');
    // Always compare (constant time), then combine with the format check.
    if (timingSafeEqual(received, expected) && m !== null) match = true;
  }
  if (!match) return legacyFailure('signature_mismatch', 'HMAC does not match');
  const scan = scanDuplicateKeys(req.body);
  if (scan.kind !== 'ok') return legacyFailure('body_malformed', scan.kind === 'duplicate' ? 'body repeats JSON keys' : 'body is not JSON');
  return { ok: true };
}
