/**
 * `each_envelope`: judges every delivery of a `webhook_wait` snapshot in the envelope it arrived
 * in, told apart by the format-detection rule of interface spec 6.2 (digest 5.2): `status` a
 * string plus `task_id` is the MCP envelope; `status` an object with `state` is the A2A envelope;
 * anything else is neither and fails. `formats` lists the envelopes the check accepts (default
 * both); each is then judged on its own shape:
 *
 *   mcp  nested expectations against the body as it is (spec 6.1);
 *   a2a  nested expectations against the A2A view of the body (below), which reads the members
 *        where spec 6.2 puts them, so a check need not know A2A's two JSON spellings.
 *
 * The A2A view: `task_id` (`id` of a Task, `taskId` of a TaskStatusUpdateEvent), `context_id`,
 * `state` (normalised: `TASK_STATE_INPUT_REQUIRED`, `INPUT_REQUIRED` and `input-required` are all
 * `input-required`), `raw_state`, `timestamp` (`status.timestamp`), `final` (a terminal state),
 * `result` (a final state: the last data part of `artifacts[0].parts`; otherwise the first data
 * part of `status.message.parts`; absent when not there), `metadata`, and `body`. A data part is
 * `{kind: "data", data}` (A2A 0.3) or a part with a `data` member and no other kind (A2A 1.0).
 */
import { cutText } from '../../../harness/core/engine/bound.js';
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import type { ExpectationKind, Judgement, Subject } from '../../../harness/core/engine/kinds/types.js';
import type { CaptureSnapshot } from '../../../harness/core/webhooks/emission/snapshot.js';

export type EnvelopeFormat = 'mcp' | 'a2a';

const FINAL_STATES = new Set(['completed', 'failed', 'canceled', 'rejected']);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Spec 6.2 format detection; undefined for a body that is neither. */
export function detectEnvelope(body: unknown): EnvelopeFormat | undefined {
  if (!isObj(body)) return undefined;
  if (typeof body.status === 'string' && typeof body.task_id === 'string') return 'mcp';
  if (isObj(body.status) && typeof body.status.state === 'string') return 'a2a';
  return undefined;
}

/** `TASK_STATE_INPUT_REQUIRED` / `INPUT_REQUIRED` / `input-required` → `input-required`. */
export function normalizeState(state: string): string {
  return state
    .replace(/^TASK_STATE_/i, '')
    .toLowerCase()
    .replaceAll('_', '-');
}

function dataParts(parts: unknown): unknown[] {
  if (!Array.isArray(parts)) return [];
  return parts.filter((p) => isObj(p) && 'data' in p && (p.kind === undefined || p.kind === 'data')).map((p) => (p as { data: unknown }).data);
}

/** The A2A view described above (the body must be an A2A envelope). */
export function a2aView(body: Record<string, unknown>): Record<string, unknown> {
  const status = body.status as Record<string, unknown>;
  const state = normalizeState(String(status.state));
  const final = FINAL_STATES.has(state);
  const artifacts = Array.isArray(body.artifacts) ? body.artifacts : [];
  const first = isObj(artifacts[0]) ? artifacts[0].parts : undefined;
  const message = isObj(status.message) ? status.message.parts : undefined;
  const result = final ? dataParts(first).at(-1) : dataParts(message)[0];
  const taskId = body.id ?? body.taskId;
  return {
    ...(taskId !== undefined ? { task_id: taskId } : {}),
    ...(body.contextId !== undefined ? { context_id: body.contextId } : {}),
    state,
    raw_state: status.state,
    ...(status.timestamp !== undefined ? { timestamp: status.timestamp } : {}),
    final,
    ...(result !== undefined ? { result } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    body,
  };
}

const DESCRIBE: Record<EnvelopeFormat, string> = { mcp: 'the MCP envelope (status a string, task_id)', a2a: 'the A2A envelope (status an object with state)' };

export const eachEnvelope: ExpectationKind = {
  name: 'each_envelope',
  fields: {
    formats: { type: 'array', items: { enum: ['mcp', 'a2a'] }, minItems: 1, uniqueItems: true },
    mcp: { type: 'array' },
    a2a: { type: 'array' },
  },
  expectationFields: ['mcp', 'a2a'],
  evaluate(exp, subject: Subject, ctx): Judgement {
    const snap = subject.record.payload as CaptureSnapshot | undefined;
    if (!snap || !Array.isArray(snap.deliveries)) return { ok: false, message: 'webhook expectations judge the record of a webhook_wait step' };
    const formats = (exp.formats as EnvelopeFormat[] | undefined) ?? ['mcp', 'a2a'];
    // Vacuously true without deliveries: the webhook_wait step decides how many must have arrived.
    for (const d of snap.deliveries) {
      const at = `delivery ${d.n} of ${snap.count}`;
      if (d.json_error) return { ok: false, message: `${at}: the body is not JSON (${d.json_error})`, actual: cutText(d.raw, 500) };
      const format = detectEnvelope(d.body);
      if (!format) {
        return {
          ok: false,
          message: `${at}: neither ${DESCRIBE.mcp} nor ${DESCRIBE.a2a} (interface spec 6.2 format detection)`,
          expected: formats.map((f) => DESCRIBE[f]),
          actual: d.body,
        };
      }
      if (!formats.includes(format)) {
        return { ok: false, message: `${at}: arrived in ${DESCRIBE[format]}; expected ${formats.map((f) => DESCRIBE[f]).join(' or ')}`, actual: d.body };
      }
      const list = exp[format] as ExpectationDef[] | undefined;
      if (!list?.length) continue;
      const view = format === 'mcp' ? d.body : a2aView(d.body as Record<string, unknown>);
      const j = ctx.judge(list, { record: { payload: view } });
      if (!j.ok) return { ...j, message: `${at} (${format} envelope): ${j.message ?? 'failed'}`, actual: j.actual ?? view };
    }
    return { ok: true };
  },
};
