/** Step kinds probing a live agent's RFC 9421 request verifier (suites/signatures.yaml). */
import type { StepKind } from '../../types.js';
import { signedCall } from './signed-call.js';
import { signedRateCap } from './signed-rate-cap.js';
import { signedReplay } from './signed-replay.js';

export const SIGNATURE_STEP_KINDS: StepKind[] = [signedCall, signedReplay, signedRateCap];
