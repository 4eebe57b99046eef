/**
 * get_brand_identity: colors, logos, tone and visual guidelines of a (sandbox) brand. Any brand
 * domain is answered (a sandbox identity derived from it); a `brand_id` only when the sandbox
 * serves it: the fictional brands of the published test kits. An unknown brand_id is
 * BRAND_NOT_FOUND, never an empty identity. The answer carries the released 3.0 members at the top
 * (`brand_id`, `house`, `names`) and the identity under `brand`, as the harness's suites read it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { failure, invalidRequest } from '../errors.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { brandRef, domainName, taskSchema } from '../validation.js';

const schema = taskSchema({
  brand: brandRef.optional(),
  domain: domainName.optional(),
  brand_id: z.string().min(1).optional(),
});

/** Brand ids the sandbox serves, with their house domains (the published test kits' fictional brands). */
const SERVED_BRANDS: Readonly<Record<string, string>> = {
  acme_outdoor: 'acmeoutdoor.example',
  bistro_oranje: 'bistro-oranje.example',
  nova_motors: 'novamotors.example',
  osei_natural: 'oseinatural.example',
  summit_foods: 'summitfoods.example',
};

function titleCase(label: string): string {
  return label
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

export function brandTasks(s: SellerServices): TaskDef[] {
  const getBrandIdentity: TaskDef<z.infer<typeof schema>> = {
    name: 'get_brand_identity',
    description: 'Brand identity of a brand domain: colors, logos, tone and visual guidelines.',
    idempotency: 'read',
    schema,
    run({ args }) {
      if (s.faults.has('brand-identity-fails')) throw failure('SERVICE_UNAVAILABLE', 'brand identity service unavailable', { recovery: 'transient' });
      const domain = (args.brand?.domain ?? args.domain)?.toLowerCase();
      if (!domain && !args.brand_id) throw invalidRequest('brand', 'a brand reference is required ({brand: {domain}}, domain or brand_id)');
      const key = domain ?? args.brand_id ?? '';
      const house = domain ?? SERVED_BRANDS[key];
      if (!house)
        throw failure('BRAND_NOT_FOUND', `brand_id ${JSON.stringify(key)} is not a brand this agent serves`, { field: 'brand_id', recovery: 'correctable' });
      const hex = createHash('sha256').update(key).digest('hex');
      const name = titleCase(domain ? domain.split('.')[0] : key);
      return completed({
        brand_id: args.brand_id ?? domain?.split('.')[0].replaceAll('-', '_'),
        house: { domain: house, name },
        names: [{ en: name }],
        brand: {
          ...(domain ? { domain } : {}),
          ...(args.brand_id ? { brand_id: args.brand_id } : {}),
          name,
          colors: { primary: `#${hex.slice(0, 6)}`, secondary: `#${hex.slice(6, 12)}`, accent: `#${hex.slice(12, 18)}` },
          logos: [{ url: `${s.catalog.agentUrl}/sandbox/brands/${encodeURIComponent(key)}/logo.svg`, variant: 'primary', format: 'svg' }],
          tone: { voice: 'confident and warm', attributes: ['clear', 'optimistic', 'inclusive'] },
          visual_guidelines: { typography: 'sans-serif headlines, 1.4 line height', imagery: 'natural light, real people', logo_clear_space: '1x logo height' },
        },
      });
    },
  };
  return [getBrandIdentity];
}
