/**
 * The sender agents a receiver bootstraps from an agent URL (digest 1.11, "bootstrap from an agent
 * URL A"): one good chain and one agent per broken link, each with the documents it serves. Every
 * agent lives in its own slot `<column>-<variant>` (the envelope column runs the checks again, and
 * a receiver caches what it resolved), at `https://agent.<domain>:<port>/bootstrap/<slot>`.
 *
 * Host names (all served by the one harness https server, resolved by the receiver to it):
 *   agent.proto-comply.test     the agents (MCP capabilities)
 *   brand.proto-comply.test     their brand.json: another host, the same eTLD+1 (step 3)
 *   keys.proto-comply.test      their JWKS, the declared webhook-signing key origin (step 7)
 *   brand.other-operator.test   a brand.json under another eTLD+1 (origin mismatch)
 *   keys.other-operator.test    a key origin elsewhere (key origin mismatch)
 * `.test` is reserved (RFC 6761) and in no Public Suffix List entry, so the list's default rule
 * gives proto-comply.test and other-operator.test as the registrable domains.
 */
import type { FailureReason } from '../../../signing/codes.js';

export const BOOTSTRAP_DOMAIN = 'proto-comply.test';
export const OTHER_DOMAIN = 'other-operator.test';
export const HOSTS = {
  agent: `agent.${BOOTSTRAP_DOMAIN}`,
  brand: `brand.${BOOTSTRAP_DOMAIN}`,
  keys: `keys.${BOOTSTRAP_DOMAIN}`,
  otherBrand: `brand.${OTHER_DOMAIN}`,
  otherKeys: `keys.${OTHER_DOMAIN}`,
} as const;
export const BOOTSTRAP_HOSTS: readonly string[] = Object.values(HOSTS);

/** brand.json cap (digest 1.11 step 4) and JWKS cap (step 8). */
export const BRAND_CAP = 256 * 1024;
export const JWKS_CAP = 64 * 1024;

export const VARIANTS = [
  'good',
  'capabilities-unreachable',
  'brand-url-missing',
  'brand-url-http',
  'origin-mismatch',
  'brand-redirect',
  'brand-oversize',
  'brand-malformed',
  'brand-unreachable',
  'agent-missing',
  'agent-ambiguous',
  'key-origin-mismatch',
  'key-origin-missing',
  'jwks-oversize',
  'cooldown',
] as const;
export type Variant = (typeof VARIANTS)[number];

/**
 * The reasons a conforming receiver may give for each broken variant: the discovery code the
 * digest names (either prefix is taken, see expectedCodes), never another step's.
 */
export const VARIANT_REASONS: Partial<Record<Variant, readonly FailureReason[]>> = {
  'capabilities-unreachable': ['capabilities_unreachable'],
  'brand-url-missing': ['brand_json_url_missing'],
  'brand-url-http': ['brand_json_url_missing'],
  'origin-mismatch': ['brand_origin_mismatch'],
  'brand-redirect': ['brand_json_unreachable'],
  // Over the cap the fetch stops: a fetch failure, or (a reader that parsed what it got) malformed.
  'brand-oversize': ['brand_json_unreachable', 'brand_json_malformed'],
  'brand-malformed': ['brand_json_malformed'],
  'brand-unreachable': ['brand_json_unreachable'],
  'agent-missing': ['agent_not_in_brand_json'],
  'agent-ambiguous': ['brand_json_ambiguous'],
  'key-origin-mismatch': ['key_origin_mismatch'],
  'key-origin-missing': ['key_origin_missing'],
  'jwks-oversize': ['jwks_unavailable'],
  // A kid past the refetch cooldown: checklist step 7's own code (key_unknown, always taken).
  cooldown: [],
};

/**
 * The codes a 401 may carry for a variant: each reason as `webhook_signature_<reason>` or
 * `request_signature_<reason>` (the digest names the discovery codes with the request prefix and
 * the webhook code list of digest 1.16 names none of them), or `webhook_signature_key_unknown`
 * (checklist step 7's own code for a keyid that resolves to no key).
 */
export function expectedCodes(variant: Variant): string[] {
  const reasons = VARIANT_REASONS[variant] ?? [];
  return [...reasons.flatMap((r) => [`webhook_signature_${r}`, `request_signature_${r}`]), 'webhook_signature_key_unknown'];
}

export interface SlotUrls {
  agentUrl: string;
  brandJsonUrl: string;
  jwksUri: string;
}

/** Where a slot's documents live under the server's port. */
export function slotUrls(port: number, slot: string): SlotUrls {
  return {
    agentUrl: `https://${HOSTS.agent}:${port}/bootstrap/${slot}`,
    brandJsonUrl: `https://${HOSTS.brand}:${port}/bootstrap/${slot}/brand.json`,
    jwksUri: `https://${HOSTS.keys}:${port}/bootstrap/${slot}/jwks.json`,
  };
}

/** A slot is `<column>-<variant>` (the column has no dash). */
export function variantOf(slot: string): Variant | undefined {
  const v = slot.slice(slot.indexOf('-') + 1);
  return (VARIANTS as readonly string[]).includes(v) ? (v as Variant) : undefined;
}

/** The variants whose agents the agent host's /.well-known/brand.json also lists (a receiver falling back to it accepts them). */
export const WELL_KNOWN_LISTED: readonly Variant[] = ['brand-url-missing', 'brand-url-http'];

/** What the agent's get_<token>_capabilities answers (undefined: the call fails). */
export function capabilitiesOf(variant: Variant, port: number, slot: string, ids: { webhookSigningTag: string }): Record<string, unknown> | undefined {
  if (variant === 'capabilities-unreachable') return undefined;
  const u = slotUrls(port, slot);
  const brandJsonUrl =
    variant === 'origin-mismatch'
      ? `https://${HOSTS.otherBrand}:${port}/bootstrap/${slot}/brand.json`
      : variant === 'brand-url-http'
        ? u.brandJsonUrl.replace(/^https:/, 'http:')
        : u.brandJsonUrl;
  const keyOrigin = variant === 'key-origin-mismatch' ? `https://${HOSTS.otherKeys}:${port}` : `https://${HOSTS.keys}:${port}`;
  const identity: Record<string, unknown> = {};
  if (variant !== 'brand-url-missing') identity.brand_json_url = brandJsonUrl;
  if (variant !== 'key-origin-missing') identity.key_origins = { webhook_signing: keyOrigin };
  return {
    supported_protocols: ['media_buy'],
    webhook_signing: { supported: true, profile: ids.webhookSigningTag, algorithms: ['ed25519'], legacy_hmac_fallback: false },
    identity,
  };
}

/** The brand.json a slot serves, as bytes (some variants are not valid JSON on purpose). */
export function brandJsonOf(variant: Variant, port: number, slot: string): Buffer {
  const u = slotUrls(port, slot);
  const entry = { type: 'sales', url: u.agentUrl, jwks_uri: u.jwksUri };
  const house = { domain: BOOTSTRAP_DOMAIN, name: 'proto-comply harness test sender (TEST-ONLY keys)' };
  if (variant === 'agent-missing') return json({ house, brands: [], agents: [{ ...entry, url: `${u.agentUrl}/` }] });
  if (variant === 'agent-ambiguous') return json({ house, brands: [], agents: [entry, { ...entry }] });
  if (variant === 'brand-malformed') {
    // The same member twice: a strict parser refuses it; JSON.parse would keep the second.
    const body = JSON.stringify({ house, brands: [], agents: [entry] });
    return Buffer.from(body.replace('{"house":', `{"house":${JSON.stringify(house)},"house":`));
  }
  if (variant === 'brand-oversize') {
    const filler = 'x'.repeat(1024);
    const brands = Array.from({ length: Math.ceil(BRAND_CAP / 1024) + 8 }, (_, i) => ({ id: `filler_${i}`, names: [filler] }));
    return json({ house, brands, agents: [entry] });
  }
  return json({ house, brands: [], agents: [entry] });
}

function json(v: unknown): Buffer {
  return Buffer.from(JSON.stringify(v));
}
