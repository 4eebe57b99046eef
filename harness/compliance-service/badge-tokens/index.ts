/**
 * Badge tokens, the module the registry service wires in: the key set (key-set.ts: open the
 * owner-only key file, rotate, publish the JWKS), issuing and verifying tokens (token.ts), their
 * claims (claims.ts), and loading a JWKS for a verifier (jwks-source.ts).
 */
export { BADGE_ROLES, type BadgeClaims, type BadgeRole, type BadgeStatement, VERIFICATION_MODES, type VerificationMode } from './claims.js';
export { BadgeKeyFileError } from './key-file.js';
export {
  BADGE_KEY_FILE_NAME,
  type BadgeJwks,
  type BadgeKeyInfo,
  BadgeKeySet,
  type BadgeKeySetOptions,
  type BadgeSigningKey,
  badgeKeyPathBeside,
  type PublicBadgeJwk,
} from './key-set.js';
export {
  BADGE_TOKEN_ALG,
  BADGE_TOKEN_TYPE,
  type BadgeRejection,
  type BadgeSigner,
  type BadgeVerification,
  type IssueOptions,
  issueBadgeToken,
  MAX_BADGE_TOKEN_LENGTH,
  type VerifyOptions,
  verifyBadgeToken,
} from './token.js';
export { JwksSourceError, loadJwks, MAX_JWKS_BYTES } from './jwks-source.js';
