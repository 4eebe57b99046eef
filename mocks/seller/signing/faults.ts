/**
 * Fault profiles of the mock seller's request verifier (mocks/seller/signing/verifier.ts): each breaks one
 * step of the RFC 9421 verifier checklist (digest 1.9) and is caught by exactly its own check of
 * suites/signatures/signatures.yaml. Registered at import time (imported from mocks/seller/index.ts).
 */
import { registerFault } from '../faults.js';

export const VERIFIER_FAULTS = {
  expiredAccepted: 'verifier-expired-accepted',
  digestUnchecked: 'verifier-digest-unchecked',
  replayAccepted: 'verifier-replay-accepted',
  tagWrongCode: 'verifier-tag-wrong-code',
  revocationIgnored: 'verifier-revocation-ignored',
  unknownAlgAccepted: 'verifier-unknown-alg-accepted',
  authorityOptional: 'verifier-authority-optional',
  keyPurposeIgnored: 'verifier-key-purpose-ignored',
  rateCapIgnored: 'verifier-rate-cap-ignored',
  unsignedAccepted: 'verifier-unsigned-accepted',
  signatureUnchecked: 'verifier-signature-unchecked',
  duplicateKeysAccepted: 'verifier-duplicate-keys-accepted',
} as const;

const F = VERIFIER_FAULTS;

registerFault({
  name: F.expiredAccepted,
  rule: 'step 5 refuses a signature whose expires is more than 60 s past (digest 1.9); the window check ignores expiry',
  targets: ['signatures.window.expired'],
});
registerFault({
  name: F.digestUnchecked,
  rule: 'step 11 recomputes content-digest from the received body (digest 1.9); the digest is never compared, so a changed body is accepted',
  targets: ['signatures.digest.mismatch'],
});
registerFault({
  name: F.replayAccepted,
  rule: 'step 12 refuses a (keyid, nonce) seen within the TTL (digest 1.9, 1.12); the replay cache never reports a nonce as seen',
  targets: ['signatures.replay.replayed-nonce'],
});
registerFault({
  name: F.tagWrongCode,
  rule: 'a wrong tag is refused with request_signature_tag_invalid (digest 1.9 step 3, 1.14); it is answered request_signature_invalid',
  targets: ['signatures.tag.wrong-tag'],
});
registerFault({
  name: F.revocationIgnored,
  rule: 'step 9 refuses a keyid in revoked_kids (digest 1.9, 1.13); the revocation list is never consulted',
  targets: ['signatures.key.revoked'],
});
registerFault({
  name: F.unknownAlgAccepted,
  rule: 'step 4 refuses an alg outside ed25519 / ecdsa-p256-sha256 (digest 1.9); an unknown alg is let through',
  targets: ['signatures.alg.not-allowed'],
});
registerFault({
  name: F.authorityOptional,
  rule: 'step 6 requires @authority among the covered components (digest 1.9); a signature without it is accepted',
  targets: ['signatures.components.authority-not-covered'],
});
registerFault({
  name: F.keyPurposeIgnored,
  rule: 'step 8 requires <token>_use request-signing (digest 1.4, 1.9); the key purpose is ignored, so a governance-signing key verifies requests',
  targets: ['signatures.key.governance-purpose'],
});
registerFault({
  name: F.rateCapIgnored,
  rule: 'step 9a refuses once the per-keyid cap for the test counterparty (100) is reached (digest 1.9, 1.12, 2.6); the production cap is applied instead',
  targets: ['signatures.rate.cap-enforced'],
});
registerFault({
  name: F.unsignedAccepted,
  rule: 'P1 refuses an unsigned, otherwise unauthenticated call to a required_for operation with request_signature_required (digest 1.9); the pre-check is skipped and bearer auth answers instead',
  targets: ['signatures.precheck.unsigned-required'],
});
registerFault({
  name: F.signatureUnchecked,
  rule: 'step 10 verifies the signature over the base (digest 1.9); a signature that does not verify is accepted',
  targets: ['signatures.crypto.bad-signature'],
});
registerFault({
  name: F.duplicateKeysAccepted,
  rule: 'step 14 refuses a body with duplicate JSON keys (digest 1.9); the body is not scanned',
  targets: ['signatures.body.duplicate-json-key'],
});
