/** The `governance` suite: governance.yaml, judged with the engine's generic kinds and kinds/token.ts (the approval's JWS). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { governanceToken } from './kinds/token.js';

export default suitePlugin(import.meta.url, 'governance', { stepKinds: [governanceToken] });
