/** The `state-machine` suite: data only (state-machine.yaml), judged with the engine's generic kinds. */
import { suitePlugin } from '../../harness/engine/plugin.js';

export default suitePlugin(import.meta.url, 'state-machine');
