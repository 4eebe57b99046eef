/**
 * What the mock registry accepts as a capability (a task name of interface spec 4.3, or the
 * token's capability task) and as a channel code (the spec names channel codes without listing
 * them: this is the mock's own list, and only the mock refuses codes outside it).
 */
import { AGENT_CAPABILITIES_TASK, SPEC_TASKS } from '../../harness/core/protocol/tasks.js';
import { protocolIds } from '../../harness/core/token.js';

export const CHANNELS = ['display', 'olv', 'ctv', 'audio', 'dooh', 'social', 'search', 'native', 'retail_media'] as const;

export function capabilityNames(token: string): ReadonlySet<string> {
  return new Set<string>([...SPEC_TASKS, AGENT_CAPABILITIES_TASK, protocolIds(token).capabilitiesTask]);
}
