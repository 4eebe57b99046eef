/** The `creative` suite: creative.yaml, judged with the engine's generic kinds; `{{format_type:step}}` from format-type.ts. */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { formatTypeFunction } from './format-type.js';

export default suitePlugin(import.meta.url, 'creative', { templateFunctions: { format_type: formatTypeFunction } });
