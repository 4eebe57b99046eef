/** Discovery and creative tasks: get_products, list_creative_formats, build_creative (interface spec 4.3). */
import { forcedReadArm } from '../read-arm.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { failure, invalidRequest } from '../errors.js';
import type { CreativeFormat, Product } from '../catalog.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { paginate, paginationArg } from '../pagination.js';
import { accountRef, brandRef, formatId, taskSchema } from '../validation.js';
import { divergenceAdvisories } from '../format-selectors.js';

const CHANNEL_WORDS: Record<string, string[]> = {
  ctv: ['ctv', 'connected tv', 'streaming tv', 'television'],
  olv: ['olv', 'online video', 'pre-roll', 'preroll', 'video'],
  display: ['display', 'banner', 'homepage'],
  audio: ['audio', 'podcast', 'radio'],
};

const vendorMetricsOf = (p: Product) =>
  ((p.reporting_capabilities as { vendor_metrics?: unknown }).vendor_metrics as { vendor?: { domain?: unknown }; metric_id?: unknown }[] | undefined) ?? [];

function channelsInBrief(brief: string): Set<string> {
  const text = brief.toLowerCase();
  const hits = new Set<string>();
  for (const [channel, words] of Object.entries(CHANNEL_WORDS)) if (words.some((w) => text.includes(w))) hits.add(channel);
  return hits;
}

const getProductsSchema = taskSchema({
  buying_mode: z.enum(['brief', 'refine', 'wholesale']).optional(),
  brief: z.string().max(20_000).optional(),
  brand: brandRef.optional(),
  account: accountRef.optional(),
  refine: z
    .array(
      z.looseObject({
        scope: z.enum(['product', 'request']),
        product_id: z.string().min(1).optional(),
        action: z.string().optional(),
        ask: z.string().optional(),
      }),
    )
    .optional(),
  filters: z
    .looseObject({
      channels: z.array(z.string()).optional(),
      delivery_type: z.string().optional(),
      required_vendor_metrics: z
        .array(z.looseObject({ vendor: z.looseObject({ domain: z.string() }), metric_id: z.string() }))
        .max(50)
        .optional(),
    })
    .optional(),
});

export function productTasks(s: SellerServices): TaskDef[] {
  const getProducts: TaskDef<z.infer<typeof getProductsSchema>> = {
    name: 'get_products',
    description: 'Discover sandbox products from a natural-language brief or refine an earlier answer.',
    idempotency: 'read',
    schema: getProductsSchema,
    run(call) {
      const { args } = call;
      // The buggy seller knows no account a buyer can name, lists or creates (interface spec 2.5a).
      if (s.faults.has('accounts-all-refused') && (args as { account?: unknown }).account !== undefined) {
        throw failure('ACCOUNT_NOT_FOUND', 'no such account', { field: 'account', recovery: 'correctable' });
      }
      if (s.faults.has('get-products-unavailable')) throw failure('SERVICE_UNAVAILABLE', 'Account resolution failed', { recovery: 'transient' });
      const forced = forcedReadArm(s, 'get_products', call);
      if (forced) return forced;
      const mode = args.buying_mode ?? (args.refine ? 'refine' : 'brief');
      let products: Product[] = s.catalog.products.filter((p) => !p.unlisted);
      if (mode === 'brief' && args.buying_mode === 'brief' && !args.brief?.trim()) {
        throw invalidRequest('brief', 'required when buying_mode is "brief"');
      }
      if (mode === 'refine') {
        if (s.faults.has('refine-unsupported')) throw invalidRequest('buying_mode', 'only "brief" is supported');
        if (!args.refine?.length) throw invalidRequest('refine', 'at least one refinement is required when buying_mode is "refine"');
        const channels = new Set<string>();
        args.refine.forEach((r, i) => {
          if (r.scope !== 'product') return;
          if (!r.product_id) throw invalidRequest(`refine[${i}].product_id`, 'required for scope "product"');
          const product = s.catalog.product(r.product_id);
          if (!product) throw invalidRequest(`refine[${i}].product_id`, `unknown product ${JSON.stringify(r.product_id)}`);
          product.channels.forEach((c) => channels.add(c));
        });
        if (channels.size > 0) products = products.filter((p) => p.channels.some((c) => channels.has(c)));
      } else if (args.brief) {
        const channels = channelsInBrief(args.brief);
        const matching = products.filter((p) => p.channels.some((c) => channels.has(c)));
        if (matching.length > 0) products = matching;
      }
      const wanted = args.filters?.channels;
      if (wanted?.length) products = products.filter((p) => p.channels.some((c) => wanted.includes(c)));
      if (args.filters?.delivery_type) products = products.filter((p) => p.delivery_type === args.filters?.delivery_type);
      // Every vendor metric asked for is one the product reports (line 3.1+; a seeded product's vendor_metrics).
      const metrics = args.filters?.required_vendor_metrics;
      if (metrics?.length)
        products = products.filter((p) =>
          metrics.every((m) => vendorMetricsOf(p).some((v) => v.vendor?.domain === m.vendor.domain && v.metric_id === m.metric_id)),
        );
      const out: Record<string, unknown>[] = products.map((p) => structuredClone(p) as unknown as Record<string, unknown>);
      if (s.faults.has('product-schema-invalid') && out.length > 0) {
        // An extra, malformed product after the valid ones: no pricing_options, a string forecast minimum.
        const broken = structuredClone(out[out.length - 1]);
        broken.product_id = `${String(broken.product_id)}_legacy`;
        delete broken.pricing_options;
        const forecast = broken.forecast as { impressions: { min: unknown } };
        forecast.impressions.min = String(forecast.impressions.min);
        out.push(broken);
      }
      // The buggy seller's pricing options carry no pricing_option_id: nothing offered can be bought.
      if (s.faults.has('pricing-options-unnamed'))
        for (const p of out) for (const o of (p.pricing_options as Record<string, unknown>[] | undefined) ?? []) delete o.pricing_option_id;
      // 3.1+ requires the cache layer the answer describes; the sandbox has no account-specific prices.
      const advisories = s.protocolLine === '3.0' ? [] : divergenceAdvisories(out);
      return completed({ products: out, ...(s.protocolLine === '3.0' ? {} : { cache_scope: 'public' }), ...(advisories.length ? { errors: advisories } : {}) });
    },
  };

  const formatsSchema = taskSchema({
    type: z.string().min(1).optional(),
    format_ids: z.array(formatId).optional(),
    pagination: paginationArg,
  });
  const listCreativeFormats: TaskDef<z.infer<typeof formatsSchema>> = {
    name: 'list_creative_formats',
    description: 'List the creative formats this seller accepts (dimensions, durations, file types).',
    idempotency: 'read',
    schema: formatsSchema,
    run({ args }) {
      let formats: CreativeFormat[] = s.catalog.formats;
      if (args.type && !s.faults.has('format-type-filter-ignored')) formats = formats.filter((f) => f.type === args.type);
      if (args.format_ids?.length) {
        const ids = new Set(args.format_ids.map((f) => f.id));
        formats = formats.filter((f) => ids.has(f.format_id.id));
      }
      const listed = structuredClone(formats) as Array<Partial<CreativeFormat>>;
      if (s.faults.has('formats-without-format-id')) for (const f of listed) delete f.format_id;
      const page = paginate(listed, args.pagination);
      return completed({ formats: page.items, pagination: page.pagination });
    },
  };

  const buildSchema = taskSchema({
    message: z.string().min(1).max(20_000),
    brand: brandRef.optional(),
    account: accountRef.optional(),
    target_format_ids: z.array(formatId).min(1),
  });
  const buildCreative: TaskDef<z.infer<typeof buildSchema>> = {
    name: 'build_creative',
    description: 'Generate sandbox creatives for the target formats from a natural-language message.',
    idempotency: s.faults.has('build-creative-not-idempotent') ? 'exempt' : 'mutating',
    createsResource: true,
    schema: buildSchema,
    run({ args }) {
      const creatives = args.target_format_ids.map((target, i) => {
        const asked = s.catalog.format(target.id);
        // The buggy agent builds for the format after the one asked for.
        const format =
          asked && s.faults.has('build-creative-other-format') ? s.catalog.formats[(s.catalog.formats.indexOf(asked) + 1) % s.catalog.formats.length] : asked;
        if (!format) throw invalidRequest(`target_format_ids[${i}].id`, `unknown format ${JSON.stringify(target.id)}`);
        const creativeId = `cr_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
        return {
          creative_id: creativeId,
          name: `${format.name} - ${args.brand?.domain ?? 'sandbox'}`,
          format_id: { ...format.format_id },
          assets: { [format.type]: assetFor(format, `${s.catalog.agentUrl}/sandbox/creatives/${creativeId}`) },
        };
      });
      // `creatives` as the harness's own suites read them; `creative_manifests` as the released 3.0 schema requires.
      return completed({ creatives, creative_manifests: creatives.map((c) => ({ format_id: c.format_id, assets: c.assets })) });
    },
  };

  return [getProducts, listCreativeFormats, buildCreative];
}

function assetFor(format: CreativeFormat, base: string): Record<string, unknown> {
  const ext = format.file_types[0];
  const asset: Record<string, unknown> = { asset_type: format.type === 'display' ? 'image' : format.type, url: `${base}.${ext}` };
  if (format.dimensions) Object.assign(asset, format.dimensions);
  if (format.duration_ms) asset.duration_ms = format.duration_ms.max;
  return asset;
}
