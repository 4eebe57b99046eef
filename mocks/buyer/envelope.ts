/**
 * Webhook envelopes by shape (interface spec 6.2, digest 5.2): `status` a string plus `task_id`
 * is the MCP envelope; `status` an object with `state` is the A2A envelope (a native `Task` or
 * `TaskStatusUpdateEvent`). Other event kinds (list changes, revocations...) carry an
 * `idempotency_key` without a task status and are deduplicated and recorded all the same.
 *
 * The A2A envelope has no standard slot for the idempotency key: it is read from
 * `metadata.idempotency_key` (or a top-level `idempotency_key`); a native push without one is
 * deduplicated on a key derived from (task id, state, status timestamp), the state-shaped
 * identity of the update.
 */

export type EnvelopeFormat = 'mcp' | 'a2a' | 'other';

export interface Envelope {
  format: EnvelopeFormat;
  idempotencyKey: string;
  /** The key was derived from the A2A status (no idempotency_key in the body). */
  derivedKey?: boolean;
  notificationId?: string;
  taskId?: string;
  /** Normalized task status (`working`, `input-required`, `completed`...). */
  status?: string;
  /** ISO 8601 as sent. */
  timestamp?: string;
}

export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; problem: string };

/** `^[A-Za-z0-9_.:-]{16,255}$` (digest 5.2). */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,255}$/;

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON object whose members the caller checks one by one
function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `TASK_STATE_INPUT_REQUIRED` / `input-required` / `INPUT_REQUIRED` → `input-required`. */
export function normalizeState(state: string): string {
  return state
    .replace(/^TASK_STATE_/i, '')
    .toLowerCase()
    .replaceAll('_', '-');
}

function optString(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export function parseEnvelope(body: unknown): EnvelopeResult {
  if (!isObj(body)) return { ok: false, problem: 'the body is not a JSON object' };
  const topKey = body.idempotency_key;
  if (typeof body.status === 'string' && body.task_id !== undefined) {
    if (typeof topKey !== 'string' || !IDEMPOTENCY_KEY.test(topKey))
      return { ok: false, problem: 'idempotency_key missing or not matching ^[A-Za-z0-9_.:-]{16,255}$' };
    if (typeof body.task_id !== 'string' || body.task_id === '') return { ok: false, problem: 'task_id is not a string' };
    return {
      ok: true,
      envelope: {
        format: 'mcp',
        idempotencyKey: topKey,
        notificationId: optString(body.notification_id),
        taskId: body.task_id,
        status: normalizeState(body.status),
        timestamp: optString(body.timestamp),
      },
    };
  }
  if (isObj(body.status) && typeof body.status.state === 'string') {
    const taskId = optString(body.id) ?? optString(body.taskId);
    if (taskId === undefined) return { ok: false, problem: 'A2A envelope without a task id (id / taskId)' };
    const state = normalizeState(body.status.state);
    const timestamp = optString(body.status.timestamp);
    const metaKey = isObj(body.metadata) ? body.metadata.idempotency_key : undefined;
    const key = metaKey ?? topKey;
    if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
      return { ok: false, problem: 'idempotency_key not matching ^[A-Za-z0-9_.:-]{16,255}$' };
    }
    const envelope: Envelope = { format: 'a2a', idempotencyKey: key ?? '', taskId, status: state, timestamp };
    if (key === undefined) {
      envelope.idempotencyKey = `a2a:${taskId}:${state}:${timestamp ?? ''}`.slice(0, 255).replace(/[^A-Za-z0-9_.:-]/g, '_');
      envelope.derivedKey = true;
    }
    const nid = isObj(body.metadata) ? optString(body.metadata.notification_id) : undefined;
    if (nid) envelope.notificationId = nid;
    return { ok: true, envelope };
  }
  if (typeof topKey === 'string' && IDEMPOTENCY_KEY.test(topKey)) {
    return {
      ok: true,
      envelope: { format: 'other', idempotencyKey: topKey, notificationId: optString(body.notification_id), timestamp: optString(body.timestamp) },
    };
  }
  return { ok: false, problem: 'neither an MCP envelope (status string + task_id) nor an A2A envelope (status.state), and no idempotency_key' };
}
