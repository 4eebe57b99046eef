/** The `registry` suite: the registry's REST face (interface spec 4.1, 2.1, 2.4, 5), on the rest column (registry.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { registryRequest, registrySearch } from './kinds/request.js';

export default suitePlugin(import.meta.url, 'registry', { stepKinds: [registryRequest, registrySearch] });
