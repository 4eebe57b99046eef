/**
 * Error codes of the RFC 9421 profile (digest 1.9, 1.14, 1.16). A failure is described once by
 * a profile-neutral reason and rendered as `request_*` or `webhook_*` by `errorCode`.
 */

/** Which side of the profile is verified: agent requests, or seller-to-buyer webhooks. */
export type SignatureProfile = 'request' | 'webhook';

/** Checklist position of a failure: 0 = pre-check, 1-14 numbered steps, '9a' the cap read. */
export type VerifyStep = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | '9a' | 10 | 11 | 12 | 13 | 14;

/** Failure reasons; each renders as `<profile>_signature_<reason>` unless listed in SPECIAL. */
export type FailureReason =
  | 'required'
  | 'header_malformed'
  | 'params_incomplete'
  | 'tag_invalid'
  | 'alg_not_allowed'
  | 'window_invalid'
  | 'components_incomplete'
  | 'components_unexpected'
  | 'key_unknown'
  | 'key_purpose_invalid'
  | 'key_revoked'
  | 'revocation_stale'
  | 'rate_abuse'
  | 'invalid'
  | 'digest_mismatch'
  | 'replayed'
  | 'jwks_unavailable'
  | 'jwks_untrusted'
  | 'brand_json_unreachable'
  | 'brand_json_malformed'
  | 'brand_json_ambiguous'
  | 'agent_not_in_brand_json'
  // Discovery from an agent URL (digest 1.11, bootstrap steps 1-3 and 7).
  | 'capabilities_unreachable'
  | 'brand_json_url_missing'
  | 'brand_origin_mismatch'
  | 'key_origin_mismatch'
  | 'key_origin_missing'
  | 'target_uri_malformed'
  | 'body_malformed'
  | 'mode_mismatch';

/** Reasons whose code does not follow the `<profile>_signature_<reason>` pattern. */
const SPECIAL: Partial<Record<FailureReason, (p: SignatureProfile) => string>> = {
  target_uri_malformed: (p) => `${p}_target_uri_malformed`,
  body_malformed: (p) => `${p}_body_malformed`,
  mode_mismatch: () => 'webhook_mode_mismatch',
};

/** The exact wire code for a reason under a profile (`request_signature_invalid`, `webhook_target_uri_malformed`). */
export function errorCode(profile: SignatureProfile, reason: FailureReason): string {
  const special = SPECIAL[reason];
  return special ? special(profile) : `${profile}_signature_${reason}`;
}

/** A failure inside one of the library's parsers, carrying the reason the verifier reports. */
export class SignatureFormatError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureFormatError';
  }
}
