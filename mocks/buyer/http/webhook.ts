/**
 * One webhook delivery, in the order the spec demands:
 *   1. Content-Type must be application/json, checked before anything else (415; 5.1 rule 6);
 *   2. the body is capped at 1 MB before verification (413; interface spec 8), reading stops at
 *      the cap and the raw bytes are kept as received (5.1 rule 2);
 *   3. authentication per the endpoint's registration (401 + WWW-Authenticate on failure);
 *   4. envelope shape (400 without an idempotency key);
 *   5. durable dedup + enqueue, then the answer: 200 (new or duplicate, never 409), 429 at the
 *      sender's bound; processing happens afterwards from the durable queue.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReceivedRequest } from '../../../harness/core/signing/verify/verifier-types.js';
import { parseEnvelope } from '../envelope.js';
import type { BuyerFaultSet } from '../faults.js';
import type { Processor } from '../processor.js';
import type { Registration } from '../store/endpoints.js';
import type { Intake } from '../store/intake.js';
import type { BuyerVerifier } from '../verify.js';
import { isJsonContentType, readBody, sendJson } from './io.js';

const IN_FLIGHT_MS = 1000;

/**
 * Fault `in-flight-duplicate-409`: when each key was first taken (ms), kept for IN_FLIGHT_MS,
 * bounded; one per buyer (buyers started side by side in one process see the same keys).
 */
export class FirstArrivals {
  private readonly firstTaken = new Map<string, number>();

  note(key: string, now: number): void {
    if (this.firstTaken.has(key)) return;
    if (this.firstTaken.size >= 10_000) this.firstTaken.clear();
    this.firstTaken.set(key, now);
  }

  inFlight(key: string, now: number): boolean {
    const at = this.firstTaken.get(key);
    return at !== undefined && now - at < IN_FLIGHT_MS;
  }
}

/** Body cap under the `no-413` fault: still bounded, just far above the rule. */
export const FAULT_BODY_CAP = 64 * 1024 * 1024;

export interface WebhookDeps {
  verifier: BuyerVerifier;
  intake: Intake;
  processor: Processor;
  faults: BuyerFaultSet;
  arrivals: FirstArrivals;
  /** Milliseconds. */
  now: () => number;
  boundFor: (sender: string) => number;
  maxBodyBytes: number;
  publicBaseUrl?: string;
  bypass: { verification: boolean; dedup: boolean };
  log: (line: string) => void;
}

function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function receivedUrl(req: IncomingMessage, publicBaseUrl: string | undefined): string {
  const base = publicBaseUrl ?? `http://${req.headers.host ?? 'localhost'}`;
  return `${base.replace(/\/+$/, '')}${req.url ?? '/'}`;
}

export async function handleWebhook(req: IncomingMessage, res: ServerResponse, reg: Registration, d: WebhookDeps): Promise<void> {
  const checkType = !d.faults.has('accepts-wrong-content-type') && !d.bypass.verification;
  if (checkType && !isJsonContentType(firstHeader(req, 'content-type'))) {
    sendJson(res, 415, { error: 'unsupported_media_type', message: 'Content-Type must be application/json' }, { close: true });
    return;
  }
  const cap = d.faults.has('no-413') ? FAULT_BODY_CAP : d.maxBodyBytes;
  const body = await readBody(req, cap);
  if (!body.ok) {
    if (body.reason === 'too_large') sendJson(res, 413, { error: 'payload_too_large', message: `the body exceeds ${cap} bytes` }, { close: true });
    else res.destroy();
    return;
  }

  let sender = 'unverified';
  if (!d.bypass.verification) {
    const received: ReceivedRequest = { method: req.method ?? 'POST', url: receivedUrl(req, d.publicBaseUrl), headers: req.headersDistinct, body: body.bytes };
    const verdict = await d.verifier.verify(received, reg);
    if (!verdict.ok) {
      if (verdict.status === 415) sendJson(res, 415, { error: 'unsupported_media_type', message: verdict.detail });
      else
        sendJson(
          res,
          401,
          { error: verdict.code ?? 'unauthorized' },
          verdict.wwwAuthenticate ? { headers: { 'www-authenticate': verdict.wwwAuthenticate } } : {},
        );
      return;
    }
    sender = verdict.sender.identity;
  }

  let doc: unknown;
  try {
    doc = JSON.parse(body.bytes.toString('utf8'));
  } catch {
    sendJson(res, 400, { error: 'invalid_json', message: 'the body is not JSON' });
    return;
  }
  let bytes = body.bytes;
  if (d.faults.has('correlates-on-url')) {
    // The task is taken from the URL query when one is there, over the payload's.
    const claimed = new URL(req.url ?? '/', 'http://receiver.invalid').searchParams.get('task_id');
    if (claimed && typeof doc === 'object' && doc !== null) {
      const o = doc as Record<string, unknown>;
      if (typeof o.task_id === 'string') o.task_id = claimed;
      else o.id = claimed;
      bytes = Buffer.from(JSON.stringify(o), 'utf8');
    }
  }
  const parsed = parseEnvelope(doc);
  if (!parsed.ok) {
    sendJson(res, 400, { error: 'invalid_envelope', message: parsed.problem });
    return;
  }
  if (d.bypass.dedup) {
    sendJson(res, 200, { status: 'accepted' });
    return;
  }

  const env = parsed.envelope;
  if (d.faults.has('in-flight-duplicate-409')) d.arrivals.note(`${sender}\u0000${env.idempotencyKey}`, d.now());
  let outcome;
  try {
    outcome = await d.intake.submit({
      sender,
      scope: d.faults.has('dedup-per-endpoint') ? `${sender}\u0000${reg.id}` : d.faults.has('dedup-ignores-sender') ? '*' : sender,
      endpoint: reg.id,
      mode: reg.mode,
      idemKey: env.idempotencyKey,
      notificationId: env.notificationId,
      body: bytes,
      bound: d.boundFor(sender),
      receivedAt: d.now(),
      requeueDuplicates: d.faults.has('no-dedup'),
      ...(d.faults.has('last-copy-wins') ? { requeueIfStatusDiffers: env.status ?? '' } : {}),
      dedupOnNotificationId: d.faults.has('notification-id-dedup'),
    });
  } catch (err) {
    d.log(`mock buyer: cannot store delivery: ${(err as Error).message}`);
    sendJson(res, 503, { error: 'unavailable', message: 'the delivery could not be stored; retry' }, { headers: { 'retry-after': '5' } });
    return;
  }
  // The buggy receiver calls a duplicate of a delivery that arrived within the last second "in progress" and answers 409.
  if (outcome.kind === 'duplicate' && d.faults.has('in-flight-duplicate-409') && d.arrivals.inFlight(`${sender}\u0000${env.idempotencyKey}`, d.now())) {
    sendJson(res, 409, { error: 'conflict', message: 'this delivery is still being processed' });
    return;
  }
  switch (outcome.kind) {
    case 'accepted':
      sendJson(res, 200, { status: 'accepted', delivery: outcome.deliveryKind });
      d.processor.kick();
      return;
    case 'duplicate':
      if (d.faults.has('duplicate-409')) sendJson(res, 409, { error: 'conflict', message: 'idempotency_key already received' });
      else sendJson(res, 200, { status: 'duplicate' });
      return;
    case 'bound':
      sendJson(
        res,
        429,
        { error: 'dedup_bound', message: `sender reached its bound of ${outcome.limit} live deliveries` },
        { headers: { 'retry-after': '60' } },
      );
      return;
  }
}
