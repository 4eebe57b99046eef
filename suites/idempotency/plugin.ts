/** The `idempotency` suite: data only (idempotency.yaml), judged with the engine's generic kinds. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';

export default suitePlugin(import.meta.url, 'idempotency');
