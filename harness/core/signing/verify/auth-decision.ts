/**
 * Composition of the signature verdict with fallback authenticators and shadow mode
 * (digest 1.10): what the endpoint does with a request once the verifier has spoken.
 *
 * - A verified signature authenticates the request.
 * - An unsigned request that the verifier let through proceeds only on a valid fallback
 *   credential (with a warning under `warn_for`).
 * - A failed signature is rejected with its code, except under `warn_for` where well-formed
 *   signatures failing crypto or body binding are recorded and the request proceeds only on a
 *   fallback credential. Malformed or partial header pairs always hard-reject.
 */
import type { FailureReason } from '../codes.js';
import { signingMode, type OperationRef, type RequestSigningCapability } from './precheck.js';
import type { VerifyResult } from './verifier-types.js';

export type AuthAction = 'accept' | 'accept_with_warning' | 'reject' | 'reject_unauthenticated';

export interface AuthDecision {
  action: AuthAction;
  /** Code to answer with on `reject`. */
  error_code?: string;
  authentication_source?: 'signature' | 'fallback';
  verified_signer_identity: boolean;
  /** The verifier's code recorded under shadow mode. */
  warning_code?: string;
}

/** Failures that reject even under warn_for or with a fallback credential. */
export const HARD_REASONS: ReadonlySet<FailureReason> = new Set(['header_malformed', 'params_incomplete', 'required']);

export function decideAuthentication(
  capability: RequestSigningCapability | undefined,
  ref: OperationRef,
  verify: VerifyResult,
  fallbackAuthValid: boolean,
): AuthDecision {
  const mode = signingMode(capability, ref);
  if (verify.ok) {
    if (verify.signer) return { action: 'accept', authentication_source: 'signature', verified_signer_identity: true };
    if (!fallbackAuthValid) return { action: 'reject_unauthenticated', verified_signer_identity: false };
    return mode === 'warn_for'
      ? { action: 'accept_with_warning', authentication_source: 'fallback', verified_signer_identity: false, warning_code: 'unsigned' }
      : { action: 'accept', authentication_source: 'fallback', verified_signer_identity: false };
  }
  if (mode === 'warn_for' && !HARD_REASONS.has(verify.reason)) {
    return fallbackAuthValid
      ? { action: 'accept_with_warning', authentication_source: 'fallback', verified_signer_identity: false, warning_code: verify.code }
      : { action: 'reject_unauthenticated', verified_signer_identity: false, warning_code: verify.code };
  }
  return { action: 'reject', error_code: verify.code, verified_signer_identity: false };
}
