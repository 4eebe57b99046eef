/** The `errors` suite: data only (errors.yaml), judged with the engine's generic kinds. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';

export default suitePlugin(import.meta.url, 'errors');
