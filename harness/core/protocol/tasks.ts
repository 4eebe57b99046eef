/**
 * The task names of interface spec 4.3, in the table's order (the token's capability task,
 * `get_<token>_capabilities`, comes from harness/core/token.ts, since its name depends on the token).
 */
export const SPEC_TASKS = [
  'get_products',
  'create_media_buy',
  'update_media_buy',
  'sync_accounts',
  'list_accounts',
  'list_creative_formats',
  'build_creative',
  'sync_creatives',
  'sync_audiences',
  'get_signals',
  'activate_signal',
  'check_governance',
  'get_plan_audit_logs',
  'get_media_buy_delivery',
  'log_event',
  'provide_performance_feedback',
  'sync_catalogs',
  'get_brand_identity',
  'get_media_buys',
] as const;

/** The capability task section 6 refers to for a shorter coalescence window (outside the 4.3 table). */
export const AGENT_CAPABILITIES_TASK = 'get_agent_capabilities';

/** The sandbox test controller (digest 4.6). */
export const CONTROLLER_TASK = 'comply_test_controller';
