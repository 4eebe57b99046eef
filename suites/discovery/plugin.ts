/** The `discovery` suite: the discovery files third parties host (interface spec 1, 2.2, 2.3), on the rest column (discovery.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { discoveryAgents } from './kinds/agents.js';
import { discoveryCrossFile } from './kinds/cross-file.js';
import { discoveryFile, discoveryKeySets } from './kinds/files.js';
import { discoveryIdentityAgents } from './kinds/identity.js';

export default suitePlugin(import.meta.url, 'discovery', {
  stepKinds: [discoveryFile, discoveryKeySets, discoveryAgents, discoveryIdentityAgents, discoveryCrossFile],
});
