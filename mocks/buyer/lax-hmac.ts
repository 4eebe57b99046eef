/**
 * The mock buyer's legacy HMAC-SHA256 verifier as its HMAC fault profiles break it. Each fault
 * loosens exactly one step of the digest's verifier order (5.3): the timestamp read as a leading
 * integer, the 300 s skew never judged, any run of `sha256=` prefixes taken, or the HMAC taken
 * over the body alone or over the body re-serialized compactly (so valid deliveries, or the
 * spaced ones, are refused). Without those faults the buyer uses the
 * signing library's `verifyHmacWebhook`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProtocolIds } from '../../harness/core/token.js';
import { HMAC_MAX_SKEW_SECONDS, hmacSignature } from '../../harness/core/signing/legacy/legacy-hmac.js';
import type { ReceivedRequest } from '../../harness/core/signing/verify/verifier-types.js';
import type { BuyerFaultSet } from './faults.js';

export const HMAC_FAULTS = ['hmac-lax-timestamp', 'hmac-ignores-skew', 'hmac-lax-prefix', 'hmac-body-only', 'hmac-reserializes-body'] as const;

function header(req: ReceivedRequest, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const k in req.headers) {
    if (k.toLowerCase() !== lower) continue;
    const v = req.headers[k];
    return Array.isArray(v) ? v.join(', ') : (v as string | undefined);
  }
  return undefined;
}

export function hasHmacFault(faults: BuyerFaultSet): boolean {
  return HMAC_FAULTS.some((f) => faults.has(f));
}

/** Whether the faulty verifier takes the delivery. */
export function laxHmacAccepts(req: ReceivedRequest, secret: string, ids: ProtocolIds, nowSeconds: number, faults: BuyerFaultSet): boolean {
  const sig = header(req, ids.hmacSignatureHeader);
  const ts = header(req, ids.hmacTimestampHeader);
  if (sig === undefined || ts === undefined) return false;
  const seconds = faults.has('hmac-lax-timestamp') ? Number.parseInt(ts, 10) : /^[0-9]{1,15}$/.test(ts) ? Number(ts) : Number.NaN;
  if (!Number.isFinite(seconds)) return false;
  if (!faults.has('hmac-ignores-skew') && Math.abs(nowSeconds - seconds) > HMAC_MAX_SKEW_SECONDS) return false;
  const hex = faults.has('hmac-lax-prefix') ? sig.replace(/^(?:sha256=)+/i, '') : /^sha256=([0-9a-fA-F]{64})$/.exec(sig)?.[1];
  if (hex === undefined || !/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const raw = typeof req.body === 'string' ? Buffer.from(req.body) : Buffer.from(req.body);
  const body = faults.has('hmac-reserializes-body') ? reserialized(raw) : raw;
  if (body === undefined) return false;
  const expected = faults.has('hmac-body-only')
    ? createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')
    : hmacSignature(secret, ts, body).slice('sha256='.length);
  return timingSafeEqual(Buffer.from(hex.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'));
}

function reserialized(raw: Buffer): Buffer | undefined {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))), 'utf8');
  } catch {
    return undefined;
  }
}
