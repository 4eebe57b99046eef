/**
 * The `registry-compliance` suite: the registry's Agent Compliance operations (digest 6.3), on the
 * rest column beside the `registry` suite, whose step kinds (suites/registry/kinds) its checks use.
 */
import { suitePlugin } from '../../harness/core/engine/plugin.js';

export default suitePlugin(import.meta.url, 'registry-compliance');
