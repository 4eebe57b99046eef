/** The `reporting` suite: reporting.yaml, judged with the engine's generic kinds; `{{undeclared_granularity:x}}` from granularity.ts. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { undeclaredGranularityFunction } from './granularity.js';

export default suitePlugin(import.meta.url, 'reporting', { templateFunctions: { undeclared_granularity: undeclaredGranularityFunction } });
