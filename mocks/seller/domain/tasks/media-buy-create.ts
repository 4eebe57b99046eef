/**
 * create_media_buy (interface spec 4.3, 2.4a; digest 4.2). The buy starts `active` when its
 * flight has started, `pending_start` when it starts in the future, `paused` when the buyer asked
 * for a paused create; revision starts at 1. A package that names the formats it will run
 * (`format_ids`) but brings no creative (`creative_assignments`, `creatives`) makes the buy
 * `pending_creatives` until a creative is assigned (sync_creatives `assignments`); a create-time
 * pause then waits behind it, latent. A controller directive (digest 4.6) can make the next
 * create answer asynchronously instead.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { failure, invalidRequest } from '../errors.js';
import type { MediaBuyRecord } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import { A2A_PUSH_FIELD, type SuccessOutcome, type TaskCall, type TaskDef, completed, isPlainObject } from '../task-def.js';
import { accountIdOfRef, accountView } from '../accounts.js';
import { checkFormatSelectors } from '../format-selectors.js';
import { accountRef, brandRef, httpUrl, isoDateTime, pushNotificationConfig, taskSchema } from '../validation.js';

export const startTimeSchema = z.union([z.literal('asap'), isoDateTime, z.looseObject({ type: z.literal('date'), date: z.iso.date() })], {
  error: 'expected "asap", an ISO 8601 date-time, or {type: "date", date: "YYYY-MM-DD"}',
});

/**
 * The account's operation gates (digest 4.4): a suspended account is ACCOUNT_SUSPENDED, one with
 * payment due ACCOUNT_PAYMENT_REQUIRED (statuses set by sync_accounts or force_account_status).
 */
function checkAccountGates(s: SellerServices, principal: string, ref: unknown): void {
  const id = accountIdOfRef(principal, ref);
  const status = id === undefined ? undefined : s.records.get<{ status?: string }>('account', principal, id)?.status;
  // The buggy seller books on a suspended account, or on one with payment due.
  if (status === 'suspended' && !s.faults.has('account-suspended-books'))
    throw failure('ACCOUNT_SUSPENDED', 'the account is suspended: no new buys', { field: 'account', recovery: 'terminal' });
  if (status === 'payment_required' && !s.faults.has('account-payment-due-books'))
    throw failure('ACCOUNT_PAYMENT_REQUIRED', 'the account has a balance due: no new buys until it is paid', { field: 'account', recovery: 'terminal' });
}

export function resolveStart(value: z.infer<typeof startTimeSchema>, now: number): number {
  if (value === 'asap') return now;
  if (typeof value === 'string') return Date.parse(value);
  return Date.parse(`${value.date}T00:00:00Z`);
}

/** A package's targeting (e.g. property_list, collection_list references), kept as sent and read back. */
export const targetingOverlay = z.record(z.string(), z.unknown()).refine((v) => JSON.stringify(v).length <= 16_384, 'at most 16 KiB');

export const packageInput = z.looseObject({
  product_id: z.string().min(1),
  budget: z.number().positive().max(1e12),
  pricing_option_id: z.string().min(1),
  targeting_overlay: targetingOverlay.optional(),
});

const reportingWebhook = z.looseObject({ url: httpUrl });

const createSchema = taskSchema({
  account: accountRef,
  brand: brandRef.optional(),
  start_time: startTimeSchema,
  end_time: isoDateTime,
  packages: z.array(packageInput).min(1).max(50),
  paused: z.boolean().optional(),
  push_notification_config: pushNotificationConfig.optional(),
  reporting_webhook: reportingWebhook.optional(),
});
type CreateArgs = z.infer<typeof createSchema>;

/** A package naming the formats it will run (`format_ids`) with no creative assigned or uploaded inline. */
function awaitsCreatives(p: z.infer<typeof packageInput>): boolean {
  const has = (v: unknown) => Array.isArray(v) && v.length > 0;
  return has(p.format_ids) && !has(p.creative_assignments) && !has(p.creatives);
}

/** Checks product and pricing option references of new packages. */
export function checkPackageRefs(s: SellerServices, packages: z.infer<typeof packageInput>[], base: string): void {
  packages.forEach((p, i) => {
    const product = s.catalog.product(p.product_id);
    if (!product) throw invalidRequest(`${base}[${i}].product_id`, `unknown product ${JSON.stringify(p.product_id)}`);
    if (!product.pricing_options.some((o) => o.pricing_option_id === p.pricing_option_id)) {
      throw invalidRequest(`${base}[${i}].pricing_option_id`, `not a pricing option of product ${p.product_id}`);
    }
  });
}

/** Replay rendering shared by the media-buy mutations: the stored snapshot, unless a fault says otherwise. */
export function mediaBuyReplay(s: SellerServices) {
  return (stored: SuccessOutcome, call: TaskCall<unknown>): SuccessOutcome => {
    if (stored.kind === 'async') return asyncReplay(s, stored, call);
    const id = stored.payload.media_buy_id;
    if (typeof id !== 'string') return stored;
    const buy = s.mediaBuys.find(call.caller.principal, id);
    if (!buy) return stored;
    if (s.faults.has('revision-incremented-on-replay')) {
      buy.revision += 1;
      s.mediaBuys.save(buy);
    }
    if (s.faults.has('replay-body-differs')) return { ...stored, payload: s.mediaBuys.renderCurrent(buy) };
    return stored;
  };
}

/**
 * The replay of an asynchronous create is its original `submitted` answer with its task_id, even
 * after the task ended (digest 3.2 rule 2), and it emits nothing (digest 2.7), unless a fault says otherwise.
 */
function asyncReplay(s: SellerServices, stored: Extract<SuccessOutcome, { kind: 'async' }>, call: TaskCall<unknown>): SuccessOutcome {
  const task = s.asyncTasks.find(call.caller.principal, stored.taskId);
  if (!task) return stored;
  // The buggy seller announces the task's status again to its webhook: a second logical webhook.
  if (s.faults.has('replay-refires-webhook')) s.asyncTasks.reannounce(task);
  // The buggy seller answers the task's current state: the completed result instead of the submitted answer.
  if (s.faults.has('async-replay-current-state') && isPlainObject(task.result)) return { kind: 'completed', payload: { ...task.result } };
  return stored;
}

export function createMediaBuyTask(s: SellerServices): TaskDef<CreateArgs> {
  return {
    name: 'create_media_buy',
    description: 'Create a sandbox media buy from products and pricing options returned by get_products.',
    idempotency: 'mutating',
    createsResource: true,
    schema: createSchema,
    renderReplay: mediaBuyReplay(s),
    async run({ args, caller, accountKey, clockScope }) {
      // The buggy seller's booking backend is never there: no buy can be made.
      if (s.faults.has('create-unavailable')) throw failure('SERVICE_UNAVAILABLE', 'booking backend unavailable', { recovery: 'transient' });
      checkAccountGates(s, caller.principal, args.account);
      const now = s.clock.now(clockScope);
      const start = resolveStart(args.start_time, now);
      const end = Date.parse(args.end_time);
      if (!(end > start)) throw invalidRequest('end_time', 'must be after start_time');
      checkPackageRefs(s, args.packages, 'packages');
      checkFormatSelectors(s, args.packages, 'packages');
      // Webhook registrations are validated before anything happens (Bearer refused, operation_id required,
      // https and public addresses unless the seller runs for local testing, a bounded number of URLs).
      if (args.push_notification_config !== undefined) s.webhooks.checkRegistration(args.push_notification_config, 'push_notification_config');
      if (args.reporting_webhook !== undefined) s.webhooks.checkRegistration(args.reporting_webhook, 'reporting_webhook');
      await s.webhooks.admitRegistration(args.push_notification_config, 'push_notification_config', caller.principal);
      await s.webhooks.admitRegistration(args.reporting_webhook, 'reporting_webhook', caller.principal);
      // An A2A-native registration (configuration.pushNotificationConfig, interface spec 2.7): the same checks.
      const native = caller.a2a?.pushNotificationConfig;
      if (native !== undefined) {
        s.webhooks.checkRegistration(native, A2A_PUSH_FIELD);
        await s.webhooks.admitRegistration(native, A2A_PUSH_FIELD, caller.principal);
      }

      const arm = s.asyncTasks.takeArm(caller.principal, accountKey);
      if (arm) {
        const taskId = arm.task_id ?? `task_${randomUUID()}`;
        const message = arm.message ?? (arm.arm === 'submitted' ? 'media buy submitted for seller review' : 'seller needs buyer input');
        s.asyncTasks.create({
          task_id: taskId,
          task_type: 'create_media_buy',
          status: arm.arm,
          principal: caller.principal,
          account_key: accountKey,
          message,
          ...(args.context !== undefined ? { context: args.context } : {}),
          ...(args.push_notification_config !== undefined ? { push_notification_config: args.push_notification_config } : {}),
          ...(native !== undefined && caller.a2a ? { a2a_push: { config: native, task_id: caller.a2a.taskId, context_id: caller.a2a.contextId } } : {}),
        });
        return { kind: 'async', status: arm.arm, taskId, payload: { status: arm.arm, task_id: taskId, message } };
      }

      // The downstream booking call: the reason concurrent same-key requests need an in-flight claim.
      if (s.bookingLatencyMs > 0) await delay(s.bookingLatencyMs);

      const future = start > now;
      const awaitingCreatives = args.packages.some(awaitsCreatives);
      // The buggy seller ignores a create-time paused: true (digest 4.2: the buy starts paused).
      const paused = args.paused === true && !s.faults.has('create-paused-ignored');
      const iso = s.clock.iso(clockScope);
      const buy: MediaBuyRecord = {
        media_buy_id: s.mediaBuys.newId(),
        principal: caller.principal,
        account_key: accountKey,
        account: accountView(caller.principal, args.account),
        ...(args.brand ? { brand: structuredClone(args.brand) } : {}),
        status: awaitingCreatives ? 'pending_creatives' : future ? 'pending_start' : paused ? 'paused' : 'active',
        revision: s.faults.has('initial-revision-zero') ? 0 : 1,
        hold: (future || awaitingCreatives) && paused,
        start_time: new Date(start).toISOString(),
        ...(args.start_time === 'asap' ? { created_asap: true } : {}),
        end_time: new Date(end).toISOString(),
        currency: 'USD',
        packages: args.packages.map((p) => s.mediaBuys.newPackage(p)),
        created_at: iso,
        updated_at: iso,
        confirmed_at: iso,
        ...(isPlainObject(args.push_notification_config) ? { push_notification_config: args.push_notification_config } : {}),
        ...(args.reporting_webhook ? { reporting_webhook: args.reporting_webhook } : {}),
        ...(args.context !== undefined ? { context: args.context } : {}),
      };
      s.mediaBuys.insert(buy);
      const rendered = s.mediaBuys.reply(buy);
      // A terminal first answer: no task webhook (interface spec 3.2 rule 1).
      s.webhooks.inlineCompletion({
        principal: caller.principal,
        taskType: 'create_media_buy',
        registration: args.push_notification_config,
        context: args.context,
        payload: rendered,
        at: iso,
      });
      return completed(rendered);
    },
  };
}
