/** The `signatures` suite: probes a live agent's RFC 9421 request verifier (signatures.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { signedCall } from './kinds/signed-call.js';
import { signedHost } from './kinds/signed-host.js';
import { signedNamespace } from './kinds/signed-namespace.js';
import { signedRateCap } from './kinds/signed-rate-cap.js';
import { signedReplay } from './kinds/signed-replay.js';
import { signedWarn } from './kinds/signed-warn.js';

export default suitePlugin(import.meta.url, 'signatures', { stepKinds: [signedCall, signedReplay, signedRateCap, signedNamespace, signedWarn, signedHost] });
