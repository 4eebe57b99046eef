/**
 * Fault profiles of the reference mock registry (issue 16). Each breaks exactly one rule of the
 * registry face (interface spec 1, 2.1-2.4, 4.1, 5; digest 6.3) or of the discovery files it
 * serves, at the one place the mock implements that rule (`faults.has(...)`), so the `registry`,
 * `registry-compliance` and `discovery` suites can prove that exactly the targeted check catches it.
 */
import type { FaultDef } from '../seller/faults.js';

/** The seller's fault shape, without its transport-level members (a registry has no transports to break). */
export type RegistryFaultDef = Pick<FaultDef, 'name' | 'rule' | 'targets' | 'collateral'>;

/** Faults of the REST face, caught by the `registry` and `registry-compliance` suites. */
export const REGISTRY_API_FAULTS: readonly RegistryFaultDef[] = [
  { name: 'stats-behind-auth', rule: 'statistics need credentials (spec 4.1, 5: public, no authentication)', targets: ['registry.stats.public'] },
  { name: 'stats-not-json', rule: 'statistics served as text/plain (spec 4.1: 200 application/json)', targets: ['registry.stats.json-object'] },
  { name: 'capability-filter-ignored', rule: 'agent search ignores `capability` (spec 4.1)', targets: ['registry.search.capability-filter'] },
  { name: 'channel-filter-ignored', rule: 'agent search ignores `channel` (spec 4.1)', targets: ['registry.search.channel-filter'] },
  { name: 'search-missing-fields', rule: 'search results lack `channels[]` (spec 2.4)', targets: ['registry.search.shape'] },
  {
    name: 'registration-without-auth',
    rule: 'POST /api/me/agents accepted without credentials (spec 5)',
    targets: ['registry.auth.register-requires-credentials'],
  },
  {
    name: 'wrong-key-accepted',
    rule: 'POST /api/me/agents accepted with an unknown API key (spec 5)',
    targets: ['registry.auth.register-requires-credentials'],
  },
  {
    name: 'organizations-without-auth',
    rule: 'POST /api/organizations accepted without credentials (spec 5)',
    targets: ['registry.auth.organizations-requires-credentials'],
  },
  { name: 'registered-not-findable', rule: 'a registered agent is not found by its capabilities (spec 4.1)', targets: ['registry.register.findable'] },
  { name: 'bad-url-500', rule: 'a malformed agent URL gets HTTP 500 instead of a 4xx JSON error', targets: ['registry.input.malformed-url'] },
  { name: 'oversized-body-500', rule: 'an oversized registration body gets HTTP 500 instead of a 4xx JSON error', targets: ['registry.input.oversized-body'] },
  { name: 'unknown-capability-500', rule: 'an unknown capability filter gets HTTP 500', targets: ['registry.input.unknown-capability'] },
  { name: 'no-cors', rule: 'the public JSON API sends no CORS headers', targets: ['registry.http.cors'] },
  // The Agent Compliance operations (digest 6.3), caught by the `registry-compliance` suite.
  {
    name: 'compliance-bad-status',
    rule: 'the compliance detail says status "ok" (digest 6.3: passing|degraded|failing|unknown|opted_out)',
    targets: ['registry-compliance.detail.shape'],
  },
  {
    name: 'unknown-agent-200',
    rule: 'the compliance detail of an unregistered agent is 200, not a 404 error',
    targets: ['registry-compliance.detail.unknown-agent'],
  },
  {
    name: 'history-without-count',
    rule: 'the compliance history lacks `count` (digest 6.3: {agent_url, runs[], count})',
    targets: ['registry-compliance.history.shape'],
  },
  {
    name: 'history-limit-unclamped',
    rule: 'the compliance history gives 101 runs for limit=101 (digest 6.3: at most 100)',
    targets: ['registry-compliance.history.limit-capped'],
  },
  {
    name: 'badge-without-modes',
    rule: 'a verification badge has no verification mode (digest 6.3: at least one)',
    targets: ['registry-compliance.verification.shape'],
  },
  {
    name: 'invalid-role-404',
    rule: 'a badge of an unknown role is 404, not 400 invalid_role (digest 6.3)',
    targets: ['registry-compliance.badge.invalid-role'],
  },
  {
    name: 'badge-jwks-private-member',
    rule: 'the badge-token JWKS publishes the private member `d` (digest 6.3)',
    targets: ['registry-compliance.jwks.public-keys'],
  },
  {
    name: 'storyboard-status-public',
    rule: 'the storyboard status is served without a key (digest 6.3: members only)',
    targets: ['registry-compliance.storyboard-status.members-only'],
  },
  {
    name: 'monitoring-settings-public',
    rule: 'the monitoring settings are served without a key (digest 6.3: owner only)',
    targets: ['registry-compliance.owner.refused-without-key'],
  },
  {
    name: 'monitoring-interval-unbounded',
    rule: 'the owner may set a monitoring interval of 5 or 169 hours (digest 6.3: interval_hours 6–168)',
    targets: ['registry-compliance.owner.monitoring-controls'],
  },
  {
    name: 'refresh-while-paused',
    rule: 'a refresh of an agent whose monitoring is paused is served (digest 6.3: paused monitoring → 409)',
    targets: ['registry-compliance.owner.monitoring-controls'],
  },
  {
    name: 'lifecycle-not-persisted',
    rule: "the owner's lifecycle stage is answered but not kept: the compliance detail still says production (digest 6.3)",
    targets: ['registry-compliance.owner.lifecycle'],
  },
  {
    name: 'opted-out-status-kept',
    rule: "an opted-out agent's compliance detail keeps its status (digest 6.3: opted_out, a minimal response)",
    targets: ['registry-compliance.owner.opt-out'],
  },
  {
    name: 'bulk-status-agents-array',
    rule: 'the bulk storyboard status answers agents[] as an array (digest 6.3: an object keyed by agent URL)',
    targets: ['registry-compliance.bulk-status.shape'],
  },
  {
    name: 'bulk-status-uncapped',
    rule: 'the bulk storyboard status takes 101 agent URLs (digest 6.3: agent_urls[≤100])',
    targets: ['registry-compliance.bulk-status.cap'],
  },
  {
    name: 'badge-embed-without-markdown',
    rule: 'the badge embed lacks `markdown` (digest 6.3: {agent_url, role, verified, badge_svg_url, registry_url, html, markdown})',
    targets: ['registry-compliance.badge.embed'],
  },
  {
    name: 'badge-svg-as-text',
    rule: 'the role badge is served as text/plain, not an SVG image (digest 6.3: …/badge/{role}.svg)',
    targets: ['registry-compliance.badge.svg'],
  },
  {
    name: 'applicable-storyboards-no-reason',
    rule: 'the applicable storyboards answer 500 without `reason` (digest 6.3: network|tls|timeout|protocol|unknown)',
    targets: ['registry-compliance.applicable-storyboards.shape'],
  },
];

/** Faults of the discovery files the mock hosts, caught by the `discovery` suite. */
export const DISCOVERY_FAULTS: readonly RegistryFaultDef[] = [
  { name: 'adagents-bad-types', rule: 'adagents.json `agents[].capabilities` is a string (spec 2.2: array)', targets: ['discovery.adagents.schema'] },
  {
    name: 'adagents-undeclared-capability',
    rule: 'adagents.json lists a capability its agent does not declare (spec 2.2)',
    targets: ['discovery.adagents.capabilities-declared'],
  },
  {
    name: 'pin-mismatch',
    rule: 'adagents.json `signing_keys[]` pins a key its agent does not publish (spec 2.2)',
    targets: ['discovery.adagents.pin-consistent'],
  },
  {
    name: 'identity-agent-silent',
    rule: 'brand.json names an identity agent at an address where no agent answers get_brand_identity (spec 2.3, 4.3)',
    targets: ['discovery.brand.identity-agent-answers'],
  },
  {
    name: 'brand-agent-respelled',
    rule: 'brand.json writes its sales agent URL with a trailing slash the publisher does not (digest 1.11: byte-equal URLs)',
    targets: ['discovery.cross-file.sales-agents-authorized'],
  },
  { name: 'brand-bad-types', rule: 'brand.json `brands[].names` is a string (spec 2.3: array of objects)', targets: ['discovery.brand.schema'] },
  { name: 'jwks-private-member', rule: 'the brand JWKS publishes a private key member `d` (spec 2.3, 5)', targets: ['discovery.brand.jwks-valid'] },
  { name: 'jwks-duplicate-kid', rule: 'the brand JWKS has two keys with one `kid`', targets: ['discovery.brand.jwks-valid'] },
];

/** Every fault of the mock registry. */
export const REGISTRY_FAULTS: readonly RegistryFaultDef[] = [...REGISTRY_API_FAULTS, ...DISCOVERY_FAULTS];

export class UnknownRegistryFaultError extends Error {
  override name = 'UnknownRegistryFaultError';
}

/** The set of fault names, each checked against REGISTRY_FAULTS. */
export function registryFaultSet(names: readonly string[] = []): ReadonlySet<string> {
  const known = new Set(REGISTRY_FAULTS.map((f) => f.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new UnknownRegistryFaultError(`unknown mock registry fault(s): ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  return new Set(names);
}
