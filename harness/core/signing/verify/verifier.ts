/**
 * The RFC 9421 verifier (digest 1.9, 1.16): the checklist of checklist.ts, run with the
 * parsing and building steps `VerifyContext.paths` selects. This is the one place that
 * chooses between them: the fast path (../fast/, the default) or the reference path
 * (verifier-paths.ts: structured-headers, the strict duplicate-key scanner, signature-base.ts).
 * Both give the same verdict, code and signer for every request (fast/differential.test.ts).
 */
import { FAST_PATHS } from '../fast/fast-paths.js';
import { runChecklist } from './checklist.js';
import { REFERENCE_PATHS, type VerifierPathChoice, type VerifierPaths } from './verifier-paths.js';
import type { ReceivedRequest, VerifyContext, VerifyResult } from './verifier-types.js';

export { MAX_CLOCK_SKEW_SECONDS, MAX_WINDOW_SECONDS } from './checklist.js';

/** The parsing and building steps of a path choice (default: fast). */
export function verifierPaths(choice: VerifierPathChoice = 'fast'): VerifierPaths {
  return choice === 'reference' ? REFERENCE_PATHS : FAST_PATHS;
}

export function verifyRequestSignature(req: ReceivedRequest, ctx: VerifyContext): Promise<VerifyResult> {
  return runChecklist(req, ctx, verifierPaths(ctx.paths));
}
