/** The `caller` suite: rules for the buyer's requests, judged passively by `proto-comply proxy` (caller.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { observedOnly } from './kinds/observed.js';

export default suitePlugin(import.meta.url, 'caller', { stepKinds: [observedOnly] });
