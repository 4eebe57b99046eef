/**
 * Reads of media buys: get_media_buys (interface spec 4.3, with `webhook_activity[]` on request)
 * and get_media_buy_delivery (totals, `by_package`, `aggregated_totals`; `time_granularity` must
 * be one the seller declares in `reporting_capabilities.windowed_pull_granularities`).
 */
import { z } from 'zod';
import { failure, invalidRequest } from '../errors.js';
import { type MediaBuyRecord, type PackageRecord, round2 } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { paginate, paginationArg } from '../pagination.js';
import { accountKeyOf, accountRef, taskSchema } from '../validation.js';

/** Declared in capabilities `media_buy.reporting_capabilities.windowed_pull_granularities`. */
export const WINDOWED_PULL_GRANULARITIES = ['hourly', 'daily'] as const;

const VIDEO_LIKE = new Set(['ctv', 'olv', 'audio']);

const getBuysSchema = taskSchema({
  media_buy_ids: z.array(z.string().min(1)).max(500).optional(),
  account: accountRef.optional(),
  include_webhook_activity: z.boolean().optional(),
  pagination: paginationArg,
});

const deliverySchema = taskSchema({
  media_buy_ids: z.array(z.string().min(1)).min(1).max(500).optional(),
  account: accountRef.optional(),
  time_granularity: z.string().min(1).optional(),
  start_date: z.iso.date().optional(),
  end_date: z.iso.date().optional(),
});

function money(amount: number): { amount: number; currency: string } {
  return { amount: round2(amount), currency: 'USD' };
}

export function mediaBuyReadTasks(s: SellerServices): TaskDef[] {
  const getMediaBuys: TaskDef<z.infer<typeof getBuysSchema>> = {
    name: 'get_media_buys',
    description: 'Read media buys (status, revision, packages, valid_actions); optionally with webhook activity.',
    idempotency: 'read',
    schema: getBuysSchema,
    run({ args, caller }) {
      const scope = s.mediaBuys.scopeOf(args.account);
      let buys: MediaBuyRecord[] = args.media_buy_ids
        ? args.media_buy_ids.map((id) => s.mediaBuys.find(caller.principal, id)).filter((b): b is MediaBuyRecord => !!b)
        : s.mediaBuys.list(caller.principal, scope);
      if (scope !== undefined) buys = buys.filter((b) => b.account_key === scope);
      // The buggy seller echoes the asap it was given, then refuses its own reply (not a date-time).
      if (s.faults.has('asap-buy-unreadable') && buys.some((b) => b.created_asap))
        throw failure('VALIDATION_ERROR', 'response validation failed: /media_buys/0/start_time must match format "date-time"');
      // The buggy seller's read is a stub (or its account listing is).
      if (s.faults.has('media-buys-never-listed') || (s.faults.has('account-listing-empty') && !args.media_buy_ids)) buys = [];
      const page = paginate(buys, args.pagination);
      buys = page.items;
      const mediaBuys = buys.map((buy) => ({
        ...s.mediaBuys.renderCurrent(buy, args.include_webhook_activity === true),
        // The buggy seller's read maps the completed state to active (digest 4.2: completed is terminal).
        ...(buy.status === 'completed' && s.faults.has('completed-read-as-active') ? { status: 'active' } : {}),
        impairments: s.faults.has('webhook-impairments-not-in-snapshot') ? [] : s.webhooks.impairmentsFor(caller.principal, buy.media_buy_id),
        // The buggy seller sends the list whether or not it was asked for.
        ...(args.include_webhook_activity === true || s.faults.has('webhook-activity-unasked')
          ? { webhook_activity: s.webhooks.activityFor(caller.principal, buy.media_buy_id) }
          : {}),
      }));
      if (s.faults.has('revision-incremented-on-read')) {
        for (const buy of buys) {
          buy.revision += 1; // shown on the next read
          s.mediaBuys.save(buy);
        }
      }
      return completed({ media_buys: mediaBuys, pagination: page.pagination });
    },
  };

  const getDelivery: TaskDef<z.infer<typeof deliverySchema>> = {
    name: 'get_media_buy_delivery',
    description: 'Delivery totals per media buy and package, with totals aggregated across the buys.',
    idempotency: 'read',
    schema: deliverySchema,
    run({ args, caller }) {
      const granularity = args.time_granularity;
      if (granularity !== undefined && s.faults.has('granularity-declared-refused'))
        throw invalidRequest('time_granularity', 'windowed reports are not available');
      if (
        granularity !== undefined &&
        !(WINDOWED_PULL_GRANULARITIES as readonly string[]).includes(granularity) &&
        !s.faults.has('granularity-undeclared-accepted')
      ) {
        throw invalidRequest('time_granularity', `must be one of the declared windowed_pull_granularities (${WINDOWED_PULL_GRANULARITIES.join(', ')})`);
      }
      if (args.start_date && args.end_date && args.end_date < args.start_date) {
        throw invalidRequest('end_date', 'must not be before start_date');
      }
      const accountKey = args.account ? accountKeyOf(args.account) : undefined;
      const buys = args.media_buy_ids
        ? args.media_buy_ids.map((id, i) => s.mediaBuys.require(caller.principal, id, `media_buy_ids[${i}]`, s.mediaBuys.scopeOf(args.account)))
        : s.mediaBuys.list(caller.principal, s.mediaBuys.scopeOf(args.account));
      const now = s.clock.iso({ principal: caller.principal, account: accountKey ?? '' });
      const earliest = buys.reduce((min, b) => (b.start_time < min ? b.start_time : min), now);
      const deliveries = buys.map((buy) => {
        const totals = sum(buy.packages);
        return {
          media_buy_id: buy.media_buy_id,
          status: buy.status,
          totals: { impressions: totals.impressions, clicks: totals.clicks, spend: money(totals.spend) },
          by_package: buy.packages.map((p) => {
            const product = s.catalog.product(p.product_id);
            const videoLike = product?.channels.some((c) => VIDEO_LIKE.has(c)) ?? false;
            const option = product?.pricing_options.find((o) => o.pricing_option_id === p.pricing_option_id);
            return {
              package_id: p.package_id,
              product_id: p.product_id,
              // The released 3.0 package delivery names how it was priced.
              pricing_model: option?.pricing_model ?? 'cpm',
              rate: option?.fixed_price ?? 0,
              currency: buy.currency,
              impressions: p.delivery.impressions,
              clicks: p.delivery.clicks,
              spend: money(p.delivery.spend),
              ...(videoLike ? { completion_rate: p.delivery.impressions > 0 ? 0.82 : 0 } : {}),
            };
          }),
        };
      });
      const all = sum(buys.flatMap((b) => b.packages));
      return completed({
        reporting_period: {
          start: args.start_date ? `${args.start_date}T00:00:00.000Z` : earliest,
          end: args.end_date ? `${args.end_date}T23:59:59.999Z` : now,
        },
        currency: 'USD',
        ...(granularity ? { time_granularity: granularity } : {}),
        media_buy_deliveries: deliveries,
        aggregated_totals: {
          impressions: all.impressions,
          clicks: all.clicks,
          spend: money(all.spend),
          media_buy_count: buys.length,
        },
      });
    },
  };

  return [getMediaBuys, getDelivery];
}

function sum(packages: PackageRecord[]): { impressions: number; clicks: number; spend: number } {
  return packages.reduce(
    (acc, p) => ({
      impressions: acc.impressions + p.delivery.impressions,
      clicks: acc.clicks + p.delivery.clicks,
      spend: acc.spend + p.delivery.spend,
    }),
    { impressions: 0, clicks: 0, spend: 0 },
  );
}
