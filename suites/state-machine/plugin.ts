/** The `state-machine` suite: state-machine.yaml, judged with the engine's generic kinds, plus `start_buy` and `same_instant` (kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { startBuy } from './kinds/start-buy.js';
import { sameInstant } from './kinds/same-instant.js';

export default suitePlugin(import.meta.url, 'state-machine', { stepKinds: [startBuy], expectationKinds: [sameInstant] });
