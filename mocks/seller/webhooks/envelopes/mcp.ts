/**
 * Webhook POST bodies in the MCP / application envelope (interface spec 6.1, digest 5.2), the
 * envelope of every registration made with `push_notification_config` or `reporting_webhook`
 * whatever the transport (spec 6.2): one builder for task status changes, one for delivery
 * reports (spec 6.3), one for impairment events and one for a buy's start of flight (spec 6.4). Every envelope carries a fresh UUID v4 `idempotency_key`, the registered
 * `operation_id` verbatim and the request's `context`. The bytes are built once per event and
 * re-sent unchanged on every retry (digest 5.4).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FaultSet } from '../../faults.js';
import type { AsyncTaskRecord } from '../../domain/async-task-record.js';
import { type MediaBuyRecord, round2 } from '../../domain/media-buy-record.js';
import type { WebhookRegistration } from '../registration.js';

export const MEDIA_BUY_DOMAIN = 'media-buy';
export const DELIVERY_TASK_TYPE = 'media_buy_delivery';
export const IMPAIRMENT_TASK_TYPE = 'impairment';
/** task_type of a media buy's lifecycle announcement (pending_start → active, spec 3.1, 6.4; the spec names no value). */
export const BUY_STATUS_TASK_TYPE = 'media_buy_status';

export type Envelope = Record<string, unknown>;

export type NotificationType = 'scheduled' | 'final' | 'delayed' | 'adjusted';

/** The operation id as registered, or (fault) the last path segment of the receiver URL. */
function operationId(reg: WebhookRegistration, faults: FaultSet): string {
  if (faults.has('webhook-operation-id-from-url')) {
    const segments = new URL(reg.url).pathname.split('/').filter(Boolean);
    return segments[segments.length - 1] ?? reg.operation_id;
  }
  return reg.operation_id;
}

/** A fresh UUID v4 per event, unless a fault shapes the key otherwise. */
function eventKey(faults: FaultSet): string {
  if (faults.has('webhook-key-too-short')) return randomBytes(4).toString('hex');
  if (faults.has('webhook-key-not-uuid')) return `evt_${randomBytes(12).toString('hex')}`;
  return randomUUID();
}

function base(reg: WebhookRegistration, faults: FaultSet, fields: Envelope, context: unknown): Envelope {
  const out: Envelope = { idempotency_key: eventKey(faults), operation_id: operationId(reg, faults), ...fields };
  if (faults.has('webhook-domain-missing')) delete out.domain;
  // The buggy seller sends the message as an object (the MCP envelope schema types it as a string).
  if (faults.has('webhook-message-not-string') && typeof out.message === 'string') out.message = { text: out.message };
  if (reg.token !== undefined && !faults.has('webhook-token-not-echoed')) out.token = reg.token;
  if (context !== undefined && !faults.has('webhook-context-not-echoed')) out.context = context;
  return out;
}

/** `result` by status (interface spec 6.1). */
export function taskResult(task: AsyncTaskRecord, status: string): unknown {
  switch (status) {
    case 'completed':
    case 'failed':
      return task.result ?? {};
    case 'working':
      return { percentage: 50, current_step: 'processing', total_steps: 2 };
    case 'input-required':
      return { reason: task.message ?? 'the seller needs buyer input', errors: [] };
    case 'submitted':
      return { task_id: task.task_id, status: 'submitted' };
    default:
      return undefined;
  }
}

export function taskEnvelope(task: AsyncTaskRecord, status: string, at: string, reg: WebhookRegistration, faults: FaultSet): Envelope {
  const result = taskResult(task, status);
  return base(
    reg,
    faults,
    {
      // The buggy seller names the task by the resource it produced.
      task_id: faults.has('webhook-task-id-not-echoed') ? resourceIdOf(task) : task.task_id,
      task_type: task.task_type,
      domain: MEDIA_BUY_DOMAIN,
      status,
      timestamp: at,
      message: task.message && status !== 'completed' ? task.message : `task ${task.task_id} is ${status}`,
      ...(result !== undefined && !(status === 'completed' && faults.has('webhook-result-missing')) ? { result } : {}),
    },
    task.context,
  );
}

function resourceIdOf(task: AsyncTaskRecord): string {
  const r = task.result as Record<string, unknown> | undefined;
  return typeof r?.media_buy_id === 'string' ? r.media_buy_id : `res_${task.task_id}`;
}

/** A (fault) webhook replaying an inline terminal result (completed, or failed with the error): the seller invents a task id for it. */
export function inlineResultEnvelope(
  taskType: string,
  status: 'completed' | 'failed',
  payload: unknown,
  at: string,
  reg: WebhookRegistration,
  faults: FaultSet,
  context: unknown,
): Envelope {
  return base(reg, faults, { task_id: `task_${randomUUID()}`, task_type: taskType, domain: MEDIA_BUY_DOMAIN, status, timestamp: at, result: payload }, context);
}

function money(amount: number, currency: string) {
  return { amount: round2(amount), currency };
}

export interface ReportInput {
  buy: MediaBuyRecord;
  notificationType: NotificationType;
  sequence: number;
  periodStart: string;
  at: string;
}

/** A delivery report (interface spec 6.3): cumulative totals of the buy, in the envelope. */
export function deliveryReportEnvelope(r: ReportInput, reg: WebhookRegistration, faults: FaultSet): Envelope {
  const { buy } = r;
  const totals = buy.packages.reduce(
    (acc, p) => ({ impressions: acc.impressions + p.delivery.impressions, clicks: acc.clicks + p.delivery.clicks, spend: acc.spend + p.delivery.spend }),
    { impressions: 0, clicks: 0, spend: 0 },
  );
  const result: Envelope = {
    notification_type: r.notificationType,
    // The buggy seller counts down from 1000 (spec 6.3: increasing per report).
    sequence_number: faults.has('webhook-sequence-decreasing') ? 1000 - r.sequence : r.sequence,
    reporting_period: { start: r.periodStart, end: r.at },
    ...(faults.has('webhook-report-no-currency') ? {} : { currency: buy.currency }),
    media_buy_deliveries: [
      {
        media_buy_id: buy.media_buy_id,
        status: buy.status,
        totals: { impressions: totals.impressions, clicks: totals.clicks, spend: money(totals.spend, buy.currency) },
        by_package: buy.packages.map((p) => ({
          package_id: p.package_id,
          product_id: p.product_id,
          impressions: p.delivery.impressions,
          clicks: p.delivery.clicks,
          spend: money(p.delivery.spend, buy.currency),
        })),
      },
    ],
  };
  if (faults.has('webhook-aggregated-totals')) {
    result.aggregated_totals = { impressions: totals.impressions, clicks: totals.clicks, spend: money(totals.spend, buy.currency), media_buy_count: 1 };
  }
  const envelope = base(
    reg,
    faults,
    {
      task_id: buy.media_buy_id,
      task_type: DELIVERY_TASK_TYPE,
      domain: MEDIA_BUY_DOMAIN,
      // The async status of the notification, distinct from the buy's status (spec 6.1 rule 3).
      status: faults.has('webhook-status-is-buy-status') ? buy.status : 'completed',
      timestamp: r.at,
      message: `${r.notificationType} delivery report #${r.sequence} for ${buy.media_buy_id}`,
      result,
    },
    buy.context,
  );
  // The buggy seller keys reports by buy, so every report of a buy carries the same idempotency_key.
  if (faults.has('webhook-key-reused-across-events')) envelope.idempotency_key = uuidFrom(buy.media_buy_id);
  return envelope;
}

function uuidFrom(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** An impairment event (spec 6.4, 6.5 rule 9): every impairment coalesced into this push. */
export function impairmentEnvelope(buy: MediaBuyRecord, impairments: unknown[], at: string, reg: WebhookRegistration, faults: FaultSet): Envelope {
  return base(
    reg,
    faults,
    {
      task_id: buy.media_buy_id,
      task_type: IMPAIRMENT_TASK_TYPE,
      domain: MEDIA_BUY_DOMAIN,
      status: 'completed',
      timestamp: at,
      message: `${impairments.length} impairment(s) on ${buy.media_buy_id}`,
      result: { media_buy_id: buy.media_buy_id, impairments },
    },
    buy.context,
  );
}

/** A buy's lifecycle change announced on its persistent channels (pending_start → active: spec 3.1, 6.4). */
export function buyStatusEnvelope(buy: MediaBuyRecord, previous: string, at: string, reg: WebhookRegistration, faults: FaultSet): Envelope {
  return base(
    reg,
    faults,
    {
      task_id: buy.media_buy_id,
      task_type: BUY_STATUS_TASK_TYPE,
      domain: MEDIA_BUY_DOMAIN,
      status: 'completed',
      timestamp: at,
      message: `media buy ${buy.media_buy_id} moved from ${previous} to ${buy.status}`,
      result: { media_buy_id: buy.media_buy_id, previous_status: previous, status: buy.status, revision: buy.revision, start_time: buy.start_time },
    },
    buy.context,
  );
}
