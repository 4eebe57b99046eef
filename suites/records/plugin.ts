/** The `records` suite: records.yaml, judged with the engine's generic kinds; `{{active_operator:step}}` from active-account.ts. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { activeOperatorFunction } from './active-account.js';

export default suitePlugin(import.meta.url, 'records', { templateFunctions: { active_operator: activeOperatorFunction } });
