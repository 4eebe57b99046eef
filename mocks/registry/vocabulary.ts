/**
 * What the mock registry accepts as a capability (a task name of interface spec 4.3, or the
 * token's capability task) and as a channel code (the spec names channel codes without listing
 * them: this is the mock's own list, and only the mock refuses codes outside it).
 */
import { protocolIds } from '../../harness/token.js';

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
  'get_agent_capabilities',
] as const;

export const CHANNELS = ['display', 'olv', 'ctv', 'audio', 'dooh', 'social', 'search', 'native', 'retail_media'] as const;

export function capabilityNames(token: string): ReadonlySet<string> {
  return new Set<string>([...SPEC_TASKS, protocolIds(token).capabilitiesTask]);
}
