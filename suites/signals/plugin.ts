/** The `signals` suite: signals.yaml, judged with the engine's generic kinds, plus `{{signal_destinations:_}}` (destinations.ts). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { signalDestinationsFunction } from './destinations.js';

export default suitePlugin(import.meta.url, 'signals', { templateFunctions: { signal_destinations: signalDestinationsFunction } });
