/** The `controller` suite: the sandbox test controller's own contract (digest 4.6), judged with the engine's generic kinds. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';

export default suitePlugin(import.meta.url, 'controller');
