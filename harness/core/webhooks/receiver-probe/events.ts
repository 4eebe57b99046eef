/**
 * Webhook bodies the harness sends to a buyer's receiver, in both envelopes (interface spec 6.1,
 * 6.2): the MCP envelope (registration through `push_notification_config`) and the A2A envelope
 * (native push registration: a `Task` / status update). The run's transport dimension picks the
 * envelope, so MCP and A2A results sit side by side. Bodies are serialized once, compactly, and
 * those exact bytes are signed and sent.
 */
import type { TransportKind } from '../../transport/types.js';

export type EnvelopeFormat = TransportKind;

export interface ProbeEvent {
  format: EnvelopeFormat;
  idempotencyKey: string;
  taskId: string;
  operationId: string;
  contextId: string;
  /** Task status (interface spec 3.2). */
  status: string;
  /** ISO 8601. */
  timestamp: string;
  /** Echoed request context (MCP envelope only). */
  context?: Record<string, unknown>;
  /** Extra characters appended to `message` (oversize probes). */
  padBytes?: number;
  /** A typed notification_id (interface spec 6.5 rule 7): top level in the MCP envelope, in `metadata` in the A2A one. */
  notificationId?: string;
  /** Leave `idempotency_key` out (MCP envelope; webhook vector positive 007, digest 2.3). */
  omitIdempotencyKey?: boolean;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

function resultFor(e: ProbeEvent): Record<string, unknown> {
  switch (e.status) {
    case 'working':
      return { percentage: 50, current_step: 'booking inventory', total_steps: 2 };
    case 'input-required':
      return { reason: 'awaiting human approval of the budget' };
    case 'submitted':
      return { acknowledged: true };
    case 'failed':
      return { errors: [{ code: 'INVALID_REQUEST', message: 'the buy could not be booked' }] };
    default:
      return { media_buy_id: `mb_${e.taskId.slice(0, 8)}`, status: 'active', revision: 1, packages: [], valid_actions: ['pause', 'cancel'] };
  }
}

function message(e: ProbeEvent): string {
  const base = `proto-comply receiver probe: task ${e.status}`;
  return e.padBytes ? `${base} ${'x'.repeat(e.padBytes)}` : base;
}

/** The envelope object for an event. */
export function envelopeOf(e: ProbeEvent): Record<string, unknown> {
  if (e.format === 'mcp') {
    return {
      ...(e.omitIdempotencyKey ? {} : { idempotency_key: e.idempotencyKey }),
      task_id: e.taskId,
      operation_id: e.operationId,
      task_type: 'create_media_buy',
      domain: 'media-buy',
      status: e.status,
      timestamp: e.timestamp,
      message: message(e),
      result: resultFor(e),
      context: e.context ?? { probe: 'webhook-receiver' },
      ...(e.notificationId !== undefined ? { notification_id: e.notificationId } : {}),
    };
  }
  const final = TERMINAL.has(e.status);
  return {
    kind: 'task',
    id: e.taskId,
    contextId: e.contextId,
    status: {
      state: e.status,
      timestamp: e.timestamp,
      message: {
        kind: 'message',
        role: 'agent',
        messageId: `msg-${e.idempotencyKey}`,
        parts: [
          { kind: 'text', text: message(e) },
          { kind: 'data', data: resultFor(e) },
        ],
      },
    },
    artifacts: final ? [{ artifactId: `result-${e.taskId}`, parts: [{ kind: 'data', data: resultFor(e) }] }] : [],
    metadata: {
      idempotency_key: e.idempotencyKey,
      operation_id: e.operationId,
      ...(e.notificationId !== undefined ? { notification_id: e.notificationId } : {}),
    },
  };
}

/** The exact bytes to sign and send. */
export function encodeEvent(e: ProbeEvent): Buffer {
  return Buffer.from(JSON.stringify(envelopeOf(e)), 'utf8');
}

/**
 * A tampered copy of a signed body: the same JSON shape with another `message`, so a receiver
 * that skips the digest would process it; the Content-Digest no longer matches.
 */
export function tamperBody(body: Buffer): Buffer {
  const doc = JSON.parse(body.toString('utf8')) as { message?: unknown; status?: { message?: { parts?: Array<{ text?: string }> } }; tampered?: boolean };
  const firstPart = doc.status?.message?.parts?.[0];
  if (typeof doc.message === 'string') doc.message = `${doc.message} (tampered in transit)`;
  else if (firstPart) firstPart.text = 'tampered in transit';
  else doc.tampered = true;
  return Buffer.from(JSON.stringify(doc), 'utf8');
}

/**
 * The same event laid out with whitespace after separators and a body-level `signature` member
 * (a wrong HMAC): a legacy HMAC receiver verifies the raw bytes as sent, never a re-serialization,
 * and ignores any signature inside the body (digest 5.3).
 */
export function spacedWithSignatureMember(eventBytes: Buffer): Buffer {
  const doc = JSON.parse(eventBytes.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...doc, signature: `sha256=${'0'.repeat(64)}` }, null, 2), 'utf8');
}
