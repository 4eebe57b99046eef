/**
 * What a `webhook_wait` step saves: a JSON view of one capture's deliveries (bodies, answers,
 * signature parameters, verification outcomes) that expectations and later templates read,
 * e.g. `{{steps.hooks.payload.keys.0}}` or `/deliveries/0/body/operation_id`.
 */
import { resolvePointer } from '../../engine/pointer.js';
import type { Capture, Delivery } from './receiver.js';

export interface DeliveryView {
  n: number;
  received_at: string;
  /** HTTP status the harness answered. */
  answered: number;
  /** Parsed body (null when it is not JSON). */
  body: unknown;
  /** Exact body text as received. */
  raw: string;
  json_error?: string;
  idempotency_key?: string;
  /** Lower-case header names as received. */
  headers: Record<string, string>;
  signature?: { components: string[]; created?: number; expires?: number; nonce?: string; keyid?: string; alg?: string; tag?: string };
  signature_error?: string;
  verified: boolean;
  verify_code?: string;
  verify_detail?: string;
  /** true / false when the keyid was looked up in the seller's published keys; absent otherwise. */
  key_published?: boolean;
  /** The published key's purpose (`<token>_use`), when it was found and names one. */
  key_use?: string;
  key_detail?: string;
}

export interface CaptureSnapshot {
  capture: string;
  url: string;
  mode: string;
  count: number;
  /** Distinct idempotency keys in order of first arrival. */
  keys: string[];
  deliveries: DeliveryView[];
  /** Body of the first / last delivery (null when nothing arrived). */
  first: unknown;
  last: unknown;
}

/**
 * The event's idempotency_key: top-level in the MCP envelope (spec 6.1); an A2A envelope (spec 6.2)
 * has no member of its own for it, so `metadata.idempotency_key` is read there.
 */
export function envelopeKey(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.idempotency_key === 'string') return b.idempotency_key;
  const meta = b.metadata;
  const k = meta !== null && typeof meta === 'object' && typeof b.status === 'object' ? (meta as Record<string, unknown>).idempotency_key : undefined;
  return typeof k === 'string' ? k : undefined;
}

/** One delivery as the grading rules read it. */
export function deliveryView(d: Delivery): DeliveryView {
  const v = d.verification;
  const body = v?.json ?? null;
  const headers: Record<string, string> = {};
  for (const [k, value] of Object.entries(d.headers)) if (value !== undefined) headers[k] = Array.isArray(value) ? value.join(', ') : value;
  const out: DeliveryView = {
    n: d.n,
    received_at: new Date(d.receivedAt).toISOString(),
    answered: d.answered.status,
    body,
    raw: d.raw.toString('utf8'),
    headers,
    verified: v?.verdict.ok === true,
  };
  if (v?.jsonError) out.json_error = v.jsonError;
  const key = envelopeKey(body);
  if (key !== undefined) out.idempotency_key = key;
  if (v?.signature) out.signature = { components: v.signature.components, ...v.signature.params };
  if (v?.signatureError) out.signature_error = v.signatureError;
  if (v && !v.verdict.ok) {
    if (v.verdict.code) out.verify_code = v.verdict.code;
    out.verify_detail = v.verdict.detail;
  }
  if (v?.keyLookup) {
    out.key_published = v.keyLookup.ok;
    if (v.keyLookup.ok && v.keyLookup.use !== undefined) out.key_use = v.keyLookup.use;
    if (!v.keyLookup.ok) out.key_detail = `${v.keyLookup.reason}: ${v.keyLookup.detail}`;
  }
  return out;
}

/** The first `upto` deliveries of the capture (default all). */
export function snapshot(capture: Capture, upto = capture.deliveries.length): CaptureSnapshot {
  return snapshotOf(capture.id, capture.url, capture.spec.mode, capture.deliveries.slice(0, upto).map(deliveryView));
}

/** A snapshot of deliveries viewed elsewhere (the proxy's audit grades one delivery at a time). */
export function snapshotOf(capture: string, url: string, mode: string, deliveries: DeliveryView[]): CaptureSnapshot {
  const keys: string[] = [];
  for (const d of deliveries) if (d.idempotency_key !== undefined && !keys.includes(d.idempotency_key)) keys.push(d.idempotency_key);
  return {
    capture,
    url,
    mode,
    count: deliveries.length,
    keys,
    deliveries,
    first: deliveries[0]?.body ?? null,
    last: deliveries[deliveries.length - 1]?.body ?? null,
  };
}

/** Every JSON pointer of `where` resolves in the body to the given value. */
export function matchesWhere(body: unknown, where: Record<string, unknown> | undefined): boolean {
  if (!where) return true;
  return Object.entries(where).every(([pointer, want]) => {
    const r = resolvePointer(body, pointer);
    return r.found && JSON.stringify(r.value) === JSON.stringify(want);
  });
}
