/**
 * Legacy Bearer webhooks (interface spec 5.3; deprecated, removed in 4.0):
 * `Authorization: Bearer <credentials>`, compared in constant time. No body integrity.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { assertLegacySecret, legacyFailure, type LegacyFailure } from './legacy-hmac.js';

/** Constant-time string equality that does not leak the length either. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function bearerHeaders(credentials: string): Record<string, string> {
  assertLegacySecret(credentials);
  return { Authorization: `Bearer ${credentials}` };
}

export function verifyBearerWebhook(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  credentials: string,
): { ok: true } | LegacyFailure {
  assertLegacySecret(credentials);
  let value: string | undefined;
  for (const k in headers) {
    if (k.toLowerCase() !== 'authorization') continue;
    const v = headers[k];
    value = Array.isArray(v) ? (v.length === 1 ? v[0] : undefined) : (v as string | undefined);
  }
  const m = value === undefined ? null : /^Bearer\s+(\S+)$/i.exec(value.trim());
  if (!m) return legacyFailure('missing_header', 'Authorization: Bearer <credentials> required');
  if (!constantTimeEqual(m[1]!, credentials)) return legacyFailure('signature_mismatch', 'bearer credentials do not match');
  return { ok: true };
}
