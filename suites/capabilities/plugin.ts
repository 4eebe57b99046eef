/** The `capabilities` suite: capabilities.yaml, judged with the engine's generic kinds, plus `same_declaration` (kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { sameDeclaration } from './kinds/same-declaration.js';

export default suitePlugin(import.meta.url, 'capabilities', { stepKinds: [sameDeclaration] });
