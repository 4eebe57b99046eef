/**
 * The test controller's seeds and account states (digest 4.6): `seed_product`,
 * `seed_pricing_option`, `seed_creative`, `seed_plan`, `seed_media_buy`, each `{<id>, fixture}`,
 * and the states of accounts and creatives (`force_account_status`, `force_creative_status`). Storyboards seed their fixtures this way before they run (parents
 * first: a pricing option needs its product). An identical re-seed answers
 * `previous_state: "existing"`; a different fixture under a seeded id is INVALID_PARAMS. Seeded
 * products and pricing options join the sandbox catalog; buys, creatives and plans belong to the
 * caller.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { type PricingOption, type Product, REPORTING, SANDBOX_PUBLISHER, forecastOf } from '../catalog.js';
import { MEDIA_BUY_STATUSES, type MediaBuyRecord, type MediaBuyStatus } from '../media-buy-record.js';
import type { SellerServices } from '../services.js';
import type { CallerContext, TaskPayload } from '../task-def.js';
import { accountView } from '../accounts.js';
import { accountKeyOf } from '../validation.js';

export const SEED_SCENARIOS = ['seed_product', 'seed_pricing_option', 'seed_creative', 'seed_plan', 'seed_media_buy', 'seed_creative_format'] as const;
export const ACCOUNT_STATUSES = ['active', 'pending_approval', 'rejected', 'payment_required', 'suspended', 'closed'] as const;
export const CREATIVE_STATUSES = ['processing', 'pending_review', 'approved', 'suspended', 'rejected', 'archived'] as const;
const FINAL_CREATIVE_STATUSES: ReadonlySet<string> = new Set(['rejected', 'archived']);

const id = z.string().min(1).max(255);
const fixture = z.record(z.string(), z.unknown()).optional();
export const seedParamSchemas = {
  seed_product: z.looseObject({ product_id: id, fixture }),
  seed_pricing_option: z.looseObject({ product_id: id, pricing_option_id: id, fixture }),
  seed_creative: z.looseObject({ creative_id: id, fixture }),
  seed_plan: z.looseObject({ plan_id: id, fixture }),
  seed_media_buy: z.looseObject({ media_buy_id: id, fixture }),
  /** Deprecated in the spec, still seeded by the 3.0 creative-formats pagination storyboard. */
  seed_creative_format: z.looseObject({ format_id: id, fixture }),
  force_account_status: z.looseObject({ account_id: id, status: z.enum(ACCOUNT_STATUSES) }),
  force_creative_status: z.looseObject({ creative_id: id, status: z.enum(CREATIVE_STATUSES), rejection_reason: z.string().max(2_000).optional() }),
};

type Fail = (error: string, detail: string, extra?: TaskPayload) => TaskPayload;
type Fixture = Record<string, unknown>;

const str = (v: unknown, fallback: string): string => (typeof v === 'string' && v.length > 0 ? v : fallback);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
/** The pricing options a product fixture carries inline (each with its pricing_option_id); seed_pricing_option adds more. */
const embeddedPricing = (v: unknown): PricingOption[] =>
  (Array.isArray(v) ? v : [])
    .filter(
      (o): o is Record<string, unknown> => o !== null && typeof o === 'object' && typeof (o as { pricing_option_id?: unknown }).pricing_option_id === 'string',
    )
    .map((o) => ({
      ...o,
      pricing_option_id: String(o.pricing_option_id),
      pricing_model: str(o.pricing_model, 'cpm'),
      currency: str(o.currency, 'USD'),
      fixed_price: num(o.fixed_price, 10),
    }));

export function controllerSeeds(s: SellerServices, fail: Fail) {
  /** The fixture each seeded id was given: an identical re-seed is a no-op, a different one refused. */
  const seeded = new Map<string, Fixture>();
  function once(key: string, given: Fixture, apply: () => TaskPayload | undefined): TaskPayload {
    const prior = seeded.get(key);
    if (prior !== undefined) {
      // The buggy controllers refuse an identical re-seed, or take a different one over (digest 4.6: existing / INVALID_PARAMS).
      if (s.faults.has('reseed-identical-refused') && isDeepStrictEqual(prior, given)) return fail('INVALID_PARAMS', `${key} is already seeded`);
      if (s.faults.has('reseed-different-accepted') && !isDeepStrictEqual(prior, given)) {
        seeded.set(key, structuredClone(given));
        return { success: true, message: `${key} re-seeded` };
      }
      if (!isDeepStrictEqual(prior, given)) return fail('INVALID_PARAMS', `${key} was seeded with another fixture; re-seed it identically or choose a new id`);
      return { success: true, previous_state: 'existing', message: `${key} already seeded with this fixture` };
    }
    const refused = apply();
    if (refused) return refused;
    seeded.set(key, structuredClone(given));
    return { success: true, message: `${key} seeded` };
  }

  function product(p: z.infer<typeof seedParamSchemas.seed_product>): TaskPayload {
    const f = p.fixture ?? {};
    return once(`product ${p.product_id}`, f, () => {
      if (s.catalog.product(p.product_id)) return fail('INVALID_PARAMS', `product ${JSON.stringify(p.product_id)} is part of the sandbox's own catalog`);
      const formats = Array.isArray(f.format_ids) ? (f.format_ids as { id?: unknown; agent_url?: unknown }[]) : [];
      const canonical = canonicalOf(f);
      const seededProduct: Product = {
        ...(f as object),
        product_id: p.product_id,
        name: str(f.name, p.product_id),
        description: str(f.description, `Seeded sandbox product ${p.product_id}`),
        channels: Array.isArray(f.channels) ? f.channels.filter((c): c is string => typeof c === 'string') : ['display'],
        pricing_options: embeddedPricing(f.pricing_options),
        delivery_type: f.delivery_type === 'guaranteed' ? 'guaranteed' : 'non_guaranteed',
        forecast: forecastOf(100_000, 250_000),
        format_ids: formats.filter((x) => typeof x?.id === 'string').map((x) => ({ agent_url: str(x.agent_url, s.catalog.agentUrl), id: String(x.id) })),
        publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
        reporting_capabilities: { ...structuredClone(REPORTING), ...canonical.reporting },
        sandbox: true,
      };
      delete seededProduct.format_options;
      if (canonical.formatOptions) {
        seededProduct.format_options = canonical.formatOptions;
        if (formats.length === 0) delete seededProduct.format_ids;
      }
      s.catalog.products.push(seededProduct);
      return undefined;
    });
  }

  /** A 3.1+ seller keeps a product fixture's canonical format_options and its reporting vendor_metrics (a 3.0 seller speaks neither). */
  function canonicalOf(f: Fixture): { formatOptions?: Record<string, unknown>[]; reporting?: { vendor_metrics: unknown[] } } {
    if (s.protocolLine === '3.0') return {};
    const options = Array.isArray(f.format_options)
      ? f.format_options.filter((o): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o))
      : [];
    const metrics = (f.reporting_capabilities as { vendor_metrics?: unknown } | undefined)?.vendor_metrics;
    return {
      ...(options.length > 0 ? { formatOptions: structuredClone(options) } : {}),
      ...(Array.isArray(metrics) ? { reporting: { vendor_metrics: structuredClone(metrics) } } : {}),
    };
  }

  function pricingOption(p: z.infer<typeof seedParamSchemas.seed_pricing_option>): TaskPayload {
    const f = p.fixture ?? {};
    const target = s.catalog.product(p.product_id);
    if (!target) return fail('NOT_FOUND', `product ${JSON.stringify(p.product_id)} not found; seed the product first`);
    return once(`pricing option ${p.product_id}/${p.pricing_option_id}`, f, () => {
      if (target.pricing_options.some((o) => o.pricing_option_id === p.pricing_option_id))
        return fail('INVALID_PARAMS', `pricing option ${JSON.stringify(p.pricing_option_id)} already exists on ${p.product_id}`);
      const option: PricingOption = {
        ...(f as object),
        pricing_option_id: p.pricing_option_id,
        pricing_model: str(f.pricing_model, 'cpm'),
        currency: str(f.currency, 'USD'),
        fixed_price: num(f.fixed_price, 10),
      };
      target.pricing_options.push(option);
      return undefined;
    });
  }

  function record(kind: 'creative' | 'plan', caller: CallerContext, account: unknown, itemId: string, f: Fixture): TaskPayload {
    return once(`${kind} ${itemId} of ${caller.principal}`, f, () => {
      const accountKey = accountKeyOf(f.account ?? account);
      // A creative keeps its account scope in the record too (as sync_creatives stores it), so a forced status keeps it and is announced to the account's subscribers.
      const value = { ...f, [`${kind}_id`]: itemId, ...(kind === 'creative' ? { account_key: accountKey } : {}) };
      s.records.put(kind, caller.principal, itemId, accountKey, value, s.clock.now());
      return undefined;
    });
  }

  function mediaBuy(caller: CallerContext, account: unknown, p: z.infer<typeof seedParamSchemas.seed_media_buy>): TaskPayload {
    const f = p.fixture ?? {};
    const status = (MEDIA_BUY_STATUSES as readonly string[]).includes(String(f.status)) ? (f.status as MediaBuyStatus) : 'active';
    return once(`media buy ${p.media_buy_id} of ${caller.principal}`, f, () => {
      if (s.mediaBuys.find(caller.principal, p.media_buy_id)) return fail('INVALID_PARAMS', `media buy ${JSON.stringify(p.media_buy_id)} already exists`);
      const ref = f.account ?? account;
      const now = s.clock.now();
      const flight = (f.flight ?? {}) as { start?: unknown; end?: unknown };
      const start = Date.parse(str(flight.start ?? f.start_time, '')) || now;
      const end = Date.parse(str(flight.end ?? f.end_time, '')) || now + 30 * 86_400_000;
      const iso = new Date(now).toISOString();
      const packages = (Array.isArray(f.packages) ? (f.packages as Fixture[]) : []).map((pkg) =>
        s.mediaBuys.newPackage({ product_id: str(pkg.product_id, ''), pricing_option_id: str(pkg.pricing_option_id, ''), budget: num(pkg.budget, 0) }),
      );
      const buy: MediaBuyRecord = {
        media_buy_id: p.media_buy_id,
        principal: caller.principal,
        account_key: accountKeyOf(ref),
        account: accountView(caller.principal, ref),
        status,
        revision: 1,
        hold: false,
        start_time: new Date(start).toISOString(),
        end_time: new Date(Math.max(end, start + 1000)).toISOString(),
        currency: str(f.currency ?? (f.budget as { currency?: unknown } | undefined)?.currency, 'USD'),
        packages,
        created_at: iso,
        updated_at: iso,
        confirmed_at: iso,
      };
      s.mediaBuys.insert(buy);
      return undefined;
    });
  }

  function accountStatus(caller: CallerContext, p: z.infer<typeof seedParamSchemas.force_account_status>): TaskPayload {
    const account = s.records.get<Fixture & { status: string }>('account', caller.principal, p.account_id);
    if (!account) return fail('NOT_FOUND', `account ${JSON.stringify(p.account_id)} not found`);
    const previous = account.status;
    if (previous !== p.status) s.records.put('account', caller.principal, p.account_id, `id:${p.account_id}`, { ...account, status: p.status }, s.clock.now());
    return { success: true, previous_state: previous, current_state: p.status };
  }

  /** A synced creative's review state (sync_creatives answers `approved`, the state it starts in). */
  function creativeStatus(caller: CallerContext, p: z.infer<typeof seedParamSchemas.force_creative_status>): TaskPayload {
    const creative = s.records.get<Fixture & { status?: string; account_key?: string }>('creative', caller.principal, p.creative_id);
    if (!creative) return fail('NOT_FOUND', `creative ${JSON.stringify(p.creative_id)} not found`);
    const previous = creative.status ?? 'approved';
    // The sandbox's own rule (the spec names the states, not their transitions): rejected and archived are final.
    if (previous !== p.status && FINAL_CREATIVE_STATUSES.has(previous))
      return fail('INVALID_TRANSITION', `creative is ${previous}, a final state`, { current_state: previous });
    const next = { ...creative, status: p.status, ...(p.rejection_reason ? { rejection_reason: p.rejection_reason } : {}) };
    s.records.put('creative', caller.principal, p.creative_id, String(creative.account_key ?? ''), next, s.clock.now());
    if (previous !== p.status) {
      s.events.emit('creative.status_changed', {
        principal: caller.principal,
        account_key: String(creative.account_key ?? ''),
        creative_id: p.creative_id,
        previous_status: previous,
        status: p.status,
        at: new Date().toISOString(),
      });
    }
    return { success: true, previous_state: previous, current_state: p.status };
  }

  function creativeFormat(p: z.infer<typeof seedParamSchemas.seed_creative_format>): TaskPayload {
    const f = p.fixture ?? {};
    return once(`creative format ${p.format_id}`, f, () => {
      if (s.catalog.format(p.format_id)) return fail('INVALID_PARAMS', `format ${JSON.stringify(p.format_id)} is part of the sandbox's own catalog`);
      const type = (['video', 'display', 'audio', 'native'] as const).find((t) => t === f.type) ?? 'display';
      s.catalog.formats.push({
        format_id: { agent_url: s.catalog.agentUrl, id: p.format_id },
        name: str(f.name, p.format_id),
        type,
        file_types: ['png'],
        max_file_size_kb: 500,
      });
      return undefined;
    });
  }

  return { product, pricingOption, record, mediaBuy, accountStatus, creativeStatus, creativeFormat };
}
