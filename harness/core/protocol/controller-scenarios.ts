/**
 * The scenarios of the sandbox test controller (`comply_test_controller`), in one place.
 *
 * SPEC_SCENARIOS are the ones digest 4.6 defines; a seller that offers a controller may support
 * any subset (an unsupported scenario is a coverage gap there too). EXTENSION_SCENARIOS are not
 * defined by the spec: the reference mock seller offers them so that rules the spec states but
 * gives no scenario for (key expiry, impairment events) can be exercised. A check that needs an
 * extension scenario is a coverage gap by construction on any seller that lacks it, never a
 * failure; suites name such scenarios in `requires_feature` as an extension (the test in
 * suites/controller-scenarios.test.ts holds them to it).
 */
export const SPEC_SCENARIOS = [
  'list_scenarios',
  'force_creative_status',
  'force_creative_purge',
  'force_account_status',
  'force_media_buy_status',
  'force_create_media_buy_arm',
  'force_get_products_arm',
  'force_get_signals_arm',
  'force_task_completion',
  'force_session_status',
  'simulate_delivery',
  'simulate_budget_spend',
  'seed_account',
  'seed_rights_grant',
  'seed_product',
  'seed_pricing_option',
  'seed_creative',
  'seed_plan',
  'seed_media_buy',
  'seed_creative_format',
  'seed_measurement_catalog',
  'compact_product_lifecycle_probe',
  'compact_direct_buy_lifecycle_probe',
  'query_upstream_traffic',
  'query_provenance_audit_observations',
  'force_upstream_unavailable',
] as const;

/**
 * The names the released 3.0 capability schema admits in `compliance_testing.scenarios` (a closed
 * enum there; digest 4.6 calls the controller's scenarios an open enum). A seller valid under 3.0
 * declares only these and offers the others through `list_scenarios`.
 */
export const DECLARABLE_SCENARIOS_3_0 = [
  'force_creative_status',
  'force_account_status',
  'force_media_buy_status',
  'force_session_status',
  'simulate_delivery',
  'simulate_budget_spend',
] as const satisfies readonly SpecScenario[];

/** Scenarios beyond the spec that the reference mock seller offers. */
export const EXTENSION_SCENARIOS = ['advance_clock', 'simulate_impairment'] as const;

export type SpecScenario = (typeof SPEC_SCENARIOS)[number];
export type ExtensionScenario = (typeof EXTENSION_SCENARIOS)[number];

export function isSpecScenario(name: string): name is SpecScenario {
  return (SPEC_SCENARIOS as readonly string[]).includes(name);
}
