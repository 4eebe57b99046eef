/**
 * The harness signing a webhook the legacy HMAC-SHA256 way (interface spec 5.2, digest 5.3), for
 * the receiver suite: `X-<TOKEN>-Timestamp: <unix seconds>` and
 * `X-<TOKEN>-Signature: sha256=<hex HMAC(secret, "<timestamp>.<raw body>")>`. One deliberate
 * defect may be applied; each breaks one step of the digest's verifier order, and the HMAC is
 * always computed over the timestamp string exactly as sent, so only that step can refuse it.
 */
import { randomBytes } from 'node:crypto';
import type { ProtocolIds } from '../../token.js';
import { HMAC_MAX_SKEW_SECONDS, hmacSignature } from '../../signing/legacy/legacy-hmac.js';

export const HMAC_DEFECTS = [
  /** Step 1: the timestamp header is left out. */
  'missing-timestamp',
  /** Step 2: digits with a trailing letter (a lax integer parse reads the digits). */
  'non-numeric-timestamp',
  /** Step 3: the timestamp is more than 300 s in the past. */
  'skewed-past',
  /** Step 3: the timestamp is more than 300 s in the future. */
  'skewed-future',
  /** Step 4: `sha256=sha256=<hex>`, the right HMAC under a doubled prefix. */
  'doubled-prefix',
  /** Step 4: `sha1=<hex>`, the right HMAC under another prefix. */
  'wrong-prefix',
  /** Step 4: the right HMAC cut by one byte (a length mismatch). */
  'truncated',
  /** Step 4: an empty header value. */
  'empty',
] as const;

export type HmacDefect = (typeof HMAC_DEFECTS)[number];

/** How far off a skewed timestamp is: twice the allowed skew. */
const SKEW_SECONDS = 2 * HMAC_MAX_SKEW_SECONDS;

/** The two legacy headers (plus Content-Type) for `body`, with at most one defect. */
export function hmacWebhookHeaders(ids: ProtocolIds, secret: string, body: Uint8Array, nowSeconds: number, defect?: HmacDefect): Record<string, string> {
  const now = Math.floor(nowSeconds);
  const ts =
    defect === 'non-numeric-timestamp'
      ? `${now}z`
      : defect === 'skewed-past'
        ? String(now - SKEW_SECONDS)
        : defect === 'skewed-future'
          ? String(now + SKEW_SECONDS)
          : String(now);
  const good = hmacSignature(secret, ts, body);
  const hex = good.slice('sha256='.length);
  const signature =
    defect === 'doubled-prefix'
      ? `sha256=${good}`
      : defect === 'wrong-prefix'
        ? `sha1=${hex}`
        : defect === 'truncated'
          ? good.slice(0, -2)
          : defect === 'empty'
            ? ''
            : good;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', [ids.hmacSignatureHeader]: signature };
  if (defect !== 'missing-timestamp') headers[ids.hmacTimestampHeader] = ts;
  return headers;
}

/** A secret the harness makes up to sign HMAC deliveries to an endpoint registered for RFC 9421 (mode mismatch). */
export function throwawaySecret(): string {
  return randomBytes(32).toString('base64url');
}
