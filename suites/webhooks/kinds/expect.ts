/**
 * Expectation kinds over a `webhook_wait` snapshot:
 *   webhook_count  how many deliveries / distinct events (idempotency keys) arrived
 *   each_webhook   nested expectations judged against every delivery's body
 *   webhook_rule   a named code rule (rules.ts): signatures, retries, reports
 */
import { cutText } from '../../../harness/core/engine/bound.js';
import type { ExpectationDef } from '../../../harness/core/engine/model.js';
import type { ExpectationKind, Judgement, Subject } from '../../../harness/core/engine/kinds/types.js';
import { RULES, RULE_NAMES, type RuleParams } from '../../../harness/core/webhooks/emission/rules.js';
import { matchesWhere, type CaptureSnapshot, type DeliveryView } from '../../../harness/core/webhooks/emission/snapshot.js';

function snapshotOf(subject: Subject): CaptureSnapshot | undefined {
  const p = subject.record.payload as CaptureSnapshot | undefined;
  return p && Array.isArray(p.deliveries) ? p : undefined;
}

const NOT_A_SNAPSHOT: Judgement = { ok: false, message: 'webhook expectations judge the record of a webhook_wait step' };

function filtered(snap: CaptureSnapshot, where: unknown): DeliveryView[] {
  return snap.deliveries.filter((d) => matchesWhere(d.body, where as Record<string, unknown> | undefined));
}

export const webhookCount: ExpectationKind = {
  name: 'webhook_count',
  fields: {
    what: { enum: ['deliveries', 'events'] },
    where: { type: 'object' },
    equals: { type: 'integer', minimum: 0 },
    min: { type: 'integer', minimum: 0 },
    max: { type: 'integer', minimum: 0 },
  },
  required: ['what'],
  evaluate(exp, subject, ctx) {
    const snap = snapshotOf(subject);
    if (!snap) return NOT_A_SNAPSHOT;
    const where = exp.where === undefined ? undefined : ctx.expand(exp.where);
    const list = filtered(snap, where);
    const n = exp.what === 'events' ? new Set(list.map((d, i) => d.idempotency_key ?? `#${i}`)).size : list.length;
    const label = `${n} ${exp.what as string}${where ? ` matching ${JSON.stringify(where)}` : ''} arrived`;
    const actual = list.map((d) => ({ n: d.n, answered: d.answered, body: d.body }));
    if (exp.equals !== undefined && n !== exp.equals) return { ok: false, message: `${label}, expected ${exp.equals as number}`, expected: exp.equals, actual };
    if (exp.min !== undefined && n < (exp.min as number))
      return { ok: false, message: `${label}, expected at least ${exp.min as number}`, expected: { min: exp.min }, actual };
    if (exp.max !== undefined && n > (exp.max as number))
      return { ok: false, message: `${label}, expected at most ${exp.max as number}`, expected: { max: exp.max }, actual };
    return { ok: true };
  },
};

export const eachWebhook: ExpectationKind = {
  name: 'each_webhook',
  fields: { where: { type: 'object' }, expect: { type: 'array', minItems: 1 } },
  required: ['expect'],
  expectationFields: ['expect'],
  evaluate(exp, subject, ctx) {
    const snap = snapshotOf(subject);
    if (!snap) return NOT_A_SNAPSHOT;
    // Vacuously true without deliveries: the webhook_wait step decides how many must have arrived.
    const list = filtered(snap, exp.where === undefined ? undefined : ctx.expand(exp.where));
    for (const d of list) {
      if (d.json_error) return { ok: false, message: `delivery ${d.n} of ${snap.count}: the body is not JSON (${d.json_error})`, actual: cutText(d.raw, 500) };
      const j = ctx.judge(exp.expect as ExpectationDef[], { record: { payload: d.body } });
      if (!j.ok) return { ...j, message: `delivery ${d.n} of ${snap.count}: ${j.message ?? 'failed'}`, actual: j.actual ?? d.body };
    }
    return { ok: true };
  },
};

export const webhookRule: ExpectationKind = {
  name: 'webhook_rule',
  fields: {
    rule: { enum: RULE_NAMES },
    event_by: { type: 'string', pattern: '^(/[^/]*)+$' },
    /** buy_announced: the buy (a template) and the status it must be announced in. */
    media_buy_id: { type: 'string', minLength: 1 },
    status: { type: 'string', minLength: 1 },
    /** switched: ids of webhook_wait steps holding the old URL's capture now (`old`) and before the change (`before`). */
    old: { type: 'string', minLength: 1 },
    before: { type: 'string', minLength: 1 },
    max_old: { type: 'integer', minimum: 0, maximum: 10 },
  },
  required: ['rule'],
  evaluate(exp, subject, ctx) {
    const snap = snapshotOf(subject);
    if (!snap) return NOT_A_SNAPSHOT;
    const stepSnap = (id: unknown) => (typeof id === 'string' ? snapshotOf({ record: ctx.steps[id] ?? {} }) : undefined);
    const params: RuleParams = {
      event_by: exp.event_by as string | undefined,
      ...(exp.media_buy_id !== undefined ? { media_buy_id: String(ctx.expand(exp.media_buy_id)) } : {}),
      ...(exp.status !== undefined ? { status: exp.status as string } : {}),
      ...(exp.old !== undefined ? { old: stepSnap(exp.old) } : {}),
      ...(exp.before !== undefined ? { before: stepSnap(exp.before) } : {}),
      ...(exp.max_old !== undefined ? { max_old: exp.max_old as number } : {}),
    };
    return RULES[exp.rule as string]!(snap, params, ctx);
  },
};
