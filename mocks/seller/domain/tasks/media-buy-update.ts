/**
 * update_media_buy (digest 4.2-4.5): pause / resume / cancel, budget, dates and package changes.
 * Rejections: unknown buy → MEDIA_BUY_NOT_FOUND, cancel of a canceled buy → NOT_CANCELLABLE
 * (takes precedence), any other update of a terminal buy → INVALID_STATE, unknown package →
 * PACKAGE_NOT_FOUND, stale `revision` → CONFLICT, an action the state does not allow →
 * ACTION_NOT_ALLOWED. Every applied change increments `revision` once.
 */
import { z } from 'zod';
import { failure, invalidRequest } from '../errors.js';
import { type MediaBuyRecord, type MediaBuyStatus, isTerminal, round2, totalBudget, validActions } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { accountRef, httpUrl, isoDateTime, pushNotificationConfig, taskSchema } from '../validation.js';
import { checkPackageRefs, mediaBuyReplay, packageInput, resolveStart, startTimeSchema, targetingOverlay } from './media-buy-create.js';

const updateSchema = (uncancel: boolean) =>
  taskSchema({
    media_buy_id: z.string().min(1),
    account: accountRef.optional(),
    revision: z.number().int().min(0).optional(),
    paused: z.boolean().optional(),
    // The buggy seller (fault uncancel-accepted) takes canceled: false and un-cancels (digest 4.2: const true).
    canceled: (uncancel ? z.boolean() : z.literal(true, { error: 'only true is accepted (there is no un-cancel)' })).optional(),
    cancellation_reason: z.string().max(2_000).optional(),
    budget: z.number().positive().max(1e12).optional(),
    start_time: startTimeSchema.optional(),
    end_time: isoDateTime.optional(),
    packages: z
      .array(
        z.looseObject({
          package_id: z.string().min(1),
          budget: z.number().positive().max(1e12).optional(),
          paused: z.boolean().optional(),
          canceled: z.literal(true, { error: 'only true is accepted (a canceled package stays canceled)' }).optional(),
          cancellation_reason: z.string().max(500).optional(),
          targeting_overlay: targetingOverlay.optional(),
        }),
      )
      .optional(),
    new_packages: z.array(packageInput).max(50).optional(),
    push_notification_config: pushNotificationConfig.optional(),
    reporting_webhook: z.looseObject({ url: httpUrl }).optional(),
  });
type UpdateArgs = z.infer<ReturnType<typeof updateSchema>>;

/** The valid_actions vocabulary entries an update asks for. */
function requestedActions(args: UpdateArgs): string[] {
  const actions: string[] = [];
  if (args.paused === true) actions.push('pause');
  if (args.paused === false) actions.push('resume');
  if (args.budget !== undefined || args.packages?.some((p) => p.budget !== undefined)) actions.push('update_budget');
  if (args.start_time !== undefined || args.end_time !== undefined) actions.push('update_dates');
  if (args.packages?.some((p) => p.paused !== undefined || p.canceled !== undefined || p.targeting_overlay !== undefined)) actions.push('update_packages');
  if (args.new_packages?.length) actions.push('add_packages');
  return actions;
}

function invalidState(buy: MediaBuyRecord, action: string) {
  return failure('INVALID_STATE', `cannot ${action} media buy ${buy.media_buy_id}: it is ${buy.status} (terminal)`, {
    recovery: 'correctable',
    details: { current_status: buy.status },
  });
}

export function updateMediaBuyTask(s: SellerServices): TaskDef<UpdateArgs> {
  return {
    name: 'update_media_buy',
    description: 'Pause, resume, cancel or change budgets, dates and packages of a media buy.',
    idempotency: s.faults.has('update-not-idempotent') ? 'exempt' : 'mutating',
    schema: updateSchema(s.faults.has('uncancel-accepted')),
    renderReplay: mediaBuyReplay(s),
    async run({ args, caller }) {
      // The one await of this task, before the buy is read: everything after it is synchronous.
      await s.webhooks.admitRegistration(args.push_notification_config, 'push_notification_config', caller.principal);
      await s.webhooks.admitRegistration(args.reporting_webhook, 'reporting_webhook', caller.principal);
      // The buggy seller answers an update of a buy it never made as if it had paused it.
      if (s.faults.has('unknown-buy-accepted') && !s.mediaBuys.find(caller.principal, args.media_buy_id)) {
        return completed({ media_buy_id: args.media_buy_id, status: 'paused', media_buy_status: 'paused', revision: 2, valid_actions: ['resume', 'cancel'] });
      }
      const buy = s.mediaBuys.require(caller.principal, args.media_buy_id, 'media_buy_id', s.mediaBuys.scopeOf(args.account));
      // The buggy seller drops the package changes that name no package of the buy, and applies the rest.
      const packages = s.faults.has('unknown-package-ignored')
        ? args.packages?.filter((p) => buy.packages.some((x) => x.package_id === p.package_id))
        : args.packages;
      const checkRevision = () => {
        if (args.revision === undefined || args.revision === buy.revision || s.faults.has('stale-revision-accepted')) return;
        throw failure('CONFLICT', `revision ${args.revision} is stale; the media buy is at revision ${buy.revision}`, {
          field: 'revision',
          recovery: 'transient',
          details: { current_revision: buy.revision },
        });
      };

      if (args.canceled === false && buy.status === 'canceled') {
        // Fault uncancel-accepted: the buggy seller brings a canceled buy back (digest 4.2: there is no un-cancel).
        buy.cancellation = undefined;
        buy.revision += 1;
        s.mediaBuys.setStatus(buy, 'active', 'buyer');
        return completed(s.mediaBuys.reply(buy));
      }
      if (args.canceled === true) {
        if (buy.status === 'canceled') {
          if (s.faults.has('second-cancel-invalid-state')) throw invalidState(buy, 'cancel');
          if (s.faults.has('cancel-canceled-accepted')) return completed(s.mediaBuys.reply(buy));
          throw failure('NOT_CANCELLABLE', `media buy ${buy.media_buy_id} is already canceled`, { recovery: 'correctable' });
        }
        // The buggy sellers cancel a completed buy, or answer a rejected one NOT_CANCELLABLE (digest 4.4: INVALID_STATE).
        if (buy.status === 'rejected' && s.faults.has('cancel-rejected-not-cancellable'))
          throw failure('NOT_CANCELLABLE', `media buy ${buy.media_buy_id} cannot be canceled`, { recovery: 'correctable' });
        if (isTerminal(buy.status) && !(buy.status === 'completed' && s.faults.has('cancel-completed-accepted'))) throw invalidState(buy, 'cancel');
        checkRevision();
        // The buggy seller applies the package budgets sent with the cancel (digest 4.2: canceled: true overrides them).
        if (s.faults.has('cancel-applies-other-fields'))
          for (const change of packages ?? []) {
            const pkg = buy.packages.find((x) => x.package_id === change.package_id);
            if (pkg && change.budget !== undefined) pkg.budget = change.budget;
          }
        const at = s.clock.iso(s.mediaBuys.clockScope(buy));
        buy.cancellation = {
          canceled_at: at,
          // The buggy seller records when, not who (digest 4.2: cancellation {canceled_at, canceled_by}).
          ...(s.faults.has('cancellation-without-canceled-by') ? {} : { canceled_by: 'buyer' }),
          ...(args.cancellation_reason ? { reason: args.cancellation_reason } : {}),
        };
        buy.hold = false;
        buy.revision += 1;
        s.mediaBuys.setStatus(buy, 'canceled', 'buyer');
        return completed(s.mediaBuys.reply(buy));
      }

      if (args.push_notification_config !== undefined) s.webhooks.checkRegistration(args.push_notification_config, 'push_notification_config');
      if (args.reporting_webhook !== undefined) s.webhooks.checkRegistration(args.reporting_webhook, 'reporting_webhook');
      const actions = requestedActions(args);
      const configChange = args.push_notification_config !== undefined || args.reporting_webhook !== undefined;
      if (actions.length === 0 && !configChange) {
        throw invalidRequest(
          '(arguments)',
          'no change requested (paused, canceled, budget, dates, packages, new_packages, push_notification_config or reporting_webhook)',
        );
      }

      let acceptTerminal = false;
      if (isTerminal(buy.status)) {
        const pause = args.paused === true;
        const resume = args.paused === false;
        if (pause && s.faults.has('pause-terminal-accepted')) return completed(s.mediaBuys.reply(buy));
        if (resume && buy.status === 'canceled' && s.faults.has('resume-canceled-accepted')) return completed(s.mediaBuys.reply(buy));
        acceptTerminal = !pause && !resume && s.faults.has('update-terminal-accepted');
        if (!acceptTerminal) throw invalidState(buy, actions[0]?.replace('_', ' ') ?? 'update');
      }

      packages?.forEach((p, i) => s.mediaBuys.requirePackage(buy, p.package_id, `packages[${i}].package_id`));
      if (args.new_packages) checkPackageRefs(s, args.new_packages, 'new_packages');
      checkRevision();

      if (!acceptTerminal) {
        const allowed = validActions(buy);
        const refused = actions.find((a) => !allowed.includes(a));
        if (refused) {
          throw failure('ACTION_NOT_ALLOWED', `${refused} is not allowed while the media buy is ${buy.status}`, {
            recovery: 'correctable',
            // The buggy seller sends no details (digest 4.4: attempted_action, reason, currently_available_actions).
            ...(s.faults.has('action-not-allowed-without-details')
              ? {}
              : { details: { attempted_action: refused, reason: 'wrong_status', currently_available_actions: allowed } }),
          });
        }
      }

      let nextStatus: MediaBuyStatus = buy.status;
      let bumpRevision = true;
      if (args.paused === true) {
        if (buy.status === 'active') nextStatus = s.faults.has('pause-ignored') ? 'active' : 'paused';
        else buy.hold = true; // pending: the hold stays latent until the flight can start (digest 4.2)
        if (s.faults.has('revision-not-incremented-on-pause')) bumpRevision = false;
      } else if (args.paused === false) {
        if (buy.status === 'paused') nextStatus = s.faults.has('resume-ignored') ? 'paused' : 'active';
        else buy.hold = false;
      }
      if (args.start_time !== undefined || args.end_time !== undefined) {
        const start = args.start_time !== undefined ? resolveStart(args.start_time, s.clock.now(s.mediaBuys.clockScope(buy))) : Date.parse(buy.start_time);
        const end = args.end_time !== undefined ? Date.parse(args.end_time) : Date.parse(buy.end_time);
        if (!(end > start)) throw invalidRequest(args.end_time !== undefined ? 'end_time' : 'start_time', 'end_time must be after start_time');
        buy.start_time = new Date(start).toISOString();
        buy.end_time = new Date(end).toISOString();
      }
      if (args.budget !== undefined) {
        const factor = args.budget / totalBudget(buy);
        for (const p of buy.packages) p.budget = round2(p.budget * factor);
      }
      for (const change of packages ?? []) {
        const pkg = s.mediaBuys.requirePackage(buy, change.package_id, 'packages');
        if (change.budget !== undefined) pkg.budget = change.budget;
        if (change.paused !== undefined) pkg.paused = change.paused;
        // The buggy seller pauses every package of the buy when one is paused (digest 4.2: independently).
        if (change.paused !== undefined && s.faults.has('package-pause-applies-to-all')) for (const other of buy.packages) other.paused = change.paused;
        if (change.canceled === true && !pkg.cancellation) {
          pkg.cancellation = {
            canceled_at: s.clock.iso(s.mediaBuys.clockScope(buy)),
            canceled_by: 'buyer',
            ...(change.cancellation_reason ? { reason: change.cancellation_reason } : {}),
          };
          pkg.paused = false;
          // The buggy seller cancels the whole buy with one of its packages (digest 4.2: packages cancel independently).
          if (s.faults.has('package-cancel-cancels-buy')) {
            buy.cancellation = { canceled_at: pkg.cancellation.canceled_at, canceled_by: 'buyer' };
            nextStatus = 'canceled';
          }
        }
        // Replaced, never merged.
        if (change.targeting_overlay !== undefined) pkg.targeting_overlay = change.targeting_overlay;
      }
      for (const p of args.new_packages ?? []) {
        buy.packages.push(s.mediaBuys.newPackage(p));
      }
      // The registration-frozen fault answers success but keeps firing at the registration the buy was created with.
      const frozen = s.faults.has('webhook-registration-frozen');
      if (args.push_notification_config !== undefined && !frozen) buy.push_notification_config = args.push_notification_config;
      if (args.reporting_webhook !== undefined && !frozen) buy.reporting_webhook = args.reporting_webhook;
      if (bumpRevision) buy.revision += 1;
      // The buggy seller re-stamps confirmed_at on every update (digest 4.5: it is set exactly once).
      if (s.faults.has('confirmed-at-moves-on-update')) buy.confirmed_at = new Date(Date.parse(buy.confirmed_at) + 1_000).toISOString();
      s.mediaBuys.setStatus(buy, nextStatus, 'buyer');
      return completed(s.mediaBuys.reply(buy));
    },
  };
}
