/**
 * The harness authenticating a webhook the legacy ways, for the receiver suite: HMAC-SHA256
 * (interface spec 5.2, digest 5.3), and Bearer (5.3). HMAC: `X-<TOKEN>-Timestamp: <unix seconds>` and
 * `X-<TOKEN>-Signature: sha256=<hex HMAC(secret, "<timestamp>.<raw body>")>`. One deliberate
 * defect may be applied; each breaks one step of the digest's verifier order, and the HMAC is
 * always computed over the timestamp string exactly as sent, so only that step can refuse it.
 */
import { randomBytes } from 'node:crypto';
import type { ProtocolIds } from '../../token.js';
import type { AuthOverride } from '../../transport/types.js';
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

export const BEARER_DEFECTS = [
  /** The right length, the last character changed. */
  'wrong-credential',
  /** No Authorization header at all. */
  'missing',
] as const;

export type BearerDefect = (typeof BEARER_DEFECTS)[number];

/**
 * How the HTTP client authenticates a Bearer delivery (interface spec 5.3: `Authorization: Bearer
 * <credential>`), with at most one defect. The client sets the header itself and redacts the
 * credential from the evidence.
 */
export function bearerWebhookAuth(credential: string, defect?: BearerDefect): AuthOverride {
  if (defect === 'missing') return { mode: 'none' };
  const last = credential.at(-1) === 'A' ? 'B' : 'A';
  return { mode: 'bearer', token: defect === 'wrong-credential' ? credential.slice(0, -1) + last : credential };
}
