/**
 * Fault profiles of the mock seller's request verifier (mocks/seller/signing/verifier.ts): each breaks one
 * rule of the RFC 9421 verifier checklist (digest 1.9) or of the accepted signatures (1.3, 1.7) and
 * is caught by exactly its own check(s) of suites/signatures/signatures.yaml, each fault with at
 * least one check no other verifier fault targets. Registered at import time (imported from
 * mocks/seller/index.ts); the faults added for checks no fault targeted share the `verifier` matrix group.
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
  ed25519Refused: 'verifier-ed25519-refused',
  es256Refused: 'verifier-es256-refused',
  digestEitherDeclared: 'verifier-digest-either-declared',
  digestForbiddenDeclared: 'verifier-digest-forbidden-declared',
  webhookAuthUnsigned: 'verifier-webhook-auth-unsigned',
  halfPairIgnored: 'verifier-half-pair-ignored',
  malformedInputIgnored: 'verifier-malformed-input-ignored',
  lenientParse: 'verifier-lenient-parse',
  nonceUnchecked: 'verifier-nonce-unchecked',
  multiValuedAccepted: 'verifier-multi-valued-accepted',
  hostUnvalidated: 'verifier-host-unvalidated',
  coveredHeaderAbsentAccepted: 'verifier-covered-header-absent-accepted',
  paramsUnchecked: 'verifier-params-unchecked',
  windowBoundsIgnored: 'verifier-window-bounds-ignored',
  componentsUnchecked: 'verifier-components-unchecked',
  unknownKeyAccepted: 'verifier-unknown-key-accepted',
  keyConstraintsIgnored: 'verifier-key-constraints-ignored',
  v32LegacyDecoder: 'verifier-v32-legacy-decoder',
  v32EitherDeclared: 'verifier-v32-either-declared',
  doubledTagAccepted: 'verifier-doubled-tag-accepted',
  everyLabelVerified: 'verifier-every-label-verified',
  unmatchedLabelRefused: 'verifier-unmatched-label-refused',
  undeclaredVerifies: 'verifier-undeclared-verifies',
  matchingDigestTrusted: 'verifier-matching-digest-trusted',
  bodyVersionPolicy: 'verifier-body-version-policy',
  protocolMethodsUnchecked: 'verifier-protocol-methods-unchecked',
  cryptoFirst: 'verifier-crypto-first',
  challengeRealm: 'verifier-challenge-realm',
  standardBase64Refused: 'verifier-standard-base64-refused',
  queryDropped: 'verifier-query-dropped',
  forwardedHostTrusted: 'verifier-forwarded-host-trusted',
  nonceAfterBody: 'verifier-nonce-after-body',
  webhookUsageAccepted: 'verifier-webhook-usage-accepted',
  namespacesMixed: 'verifier-namespaces-mixed',
  warnForEnforced: 'verifier-warn-for-enforced',
  warnForAuthenticates: 'verifier-warn-for-authenticates',
  hostCaseKept: 'verifier-host-case-kept',
  malformedHostAccepted: 'verifier-malformed-host-accepted',
  defaultPortKept: 'verifier-default-port-kept',
  impossibleJwkAccepted: 'verifier-impossible-jwk-accepted',
} as const;

const F = VERIFIER_FAULTS;

registerFault({
  name: F.expiredAccepted,
  rule: 'step 5 refuses a signature whose expires is more than 60 s past (digest 1.9); the window check ignores expiry',
  targets: ['signatures.window.expired'],
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.digestUnchecked,
  rule: 'step 11 recomputes content-digest from the received body (digest 1.9); the digest is never compared, so a changed body is accepted',
  targets: ['signatures.digest.mismatch'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.replayAccepted,
  rule: 'step 12 refuses a (keyid, nonce) seen within the TTL (digest 1.9, 1.12); the replay cache never reports a nonce as seen',
  targets: ['signatures.replay.replayed-nonce'],
  // No nonce is ever seen again, so the step-13 probe's copy reaches step 14 too.
  collateral: ['signatures.replay.malformed-body-nonce-stored'],
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.tagWrongCode,
  rule: 'a wrong tag is refused with request_signature_tag_invalid (digest 1.9 step 3, 1.14); it is answered request_signature_invalid',
  targets: ['signatures.tag.wrong-tag'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.revocationIgnored,
  rule: 'step 9 refuses a keyid in revoked_kids (digest 1.9, 1.13); the revocation list is never consulted',
  targets: ['signatures.key.revoked'],
  // Without revocation the placeholder signature of the cheap-first probe is refused as invalid.
  collateral: ['signatures.key.revoked-before-crypto'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.unknownAlgAccepted,
  rule: 'step 4 refuses an alg outside ed25519 / ecdsa-p256-sha256 (digest 1.9); an unknown alg is let through',
  targets: ['signatures.alg.not-allowed'],
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.authorityOptional,
  rule: 'step 6 requires @authority among the covered components (digest 1.9); a signature without it is accepted',
  targets: ['signatures.components.authority-not-covered'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.keyPurposeIgnored,
  rule: 'step 8 requires <token>_use request-signing (digest 1.4, 1.9); the key purpose is ignored, so a governance-signing key verifies requests',
  targets: ['signatures.key.governance-purpose'],
  // Every purpose passes, the deprecated webhook-signing usage included.
  collateral: ['signatures.key.webhook-usage-refused'],
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.rateCapIgnored,
  rule: 'step 9a refuses once the per-keyid cap for the test counterparty (100) is reached (digest 1.9, 1.12, 2.6); the production cap is applied instead',
  targets: ['signatures.rate.cap-enforced'],
  // The cap-before-crypto check fills the cap first: blocked by cap-enforced.
  collateral: ['signatures.rate.cap-before-crypto'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.unsignedAccepted,
  rule: 'P1 refuses an unsigned, otherwise unauthenticated call to a required_for operation with request_signature_required (digest 1.9); the pre-check is skipped and bearer auth answers instead',
  targets: ['signatures.precheck.unsigned-required'],
  // The unsigned protocol-method probe is let through the same way.
  collateral: ['signatures.precheck.unsigned-protocol-method'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.signatureUnchecked,
  rule: 'step 10 verifies the signature over the base (digest 1.9); a signature that does not verify is accepted',
  targets: ['signatures.crypto.bad-signature'],
  // The rewritten body and digest probe fails only the crypto as well.
  collateral: ['signatures.digest.rewritten-with-body'],
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.duplicateKeysAccepted,
  rule: 'step 14 refuses a body with duplicate JSON keys (digest 1.9); the body is not scanned',
  targets: ['signatures.body.duplicate-json-key'],
  // The step-13 probe's first copy is then accepted: blocked by duplicate-json-key.
  collateral: ['signatures.replay.malformed-body-nonce-stored'],
  matrixGroup: 'verifier-c',
});
registerFault({
  name: F.ed25519Refused,
  rule: 'a well-formed Ed25519 signature by a trusted key is accepted (digest 1.3, 1.9 step 10); the verifier refuses every Ed25519 signature that verified',
  targets: ['signatures.accept.ed25519'],
  // Valid Ed25519 requests that must be accepted: the replay probe's first copy, the rate-cap requests,
  // the header and target probes that sign with the main key, and the signed create_media_buy
  // registering a webhook authentication block (webhooks suite, idempotency.hash.push-credentials-excluded).
  collateral: [
    'signatures.replay.replayed-nonce',
    'signatures.rate.cap-enforced',
    'signatures.rate.cap-before-crypto',
    'signatures.header.second-label-ignored',
    'signatures.header.unmatched-input-label',
    'signatures.header.standard-base64-accepted',
    'signatures.target.query-kept',
    'signatures.target.forwarded-host-ignored',
    'signatures.target.host-case',
    'webhooks.auth.hmac',
    'webhooks.auth.bearer-refused',
    'idempotency.hash.push-credentials-excluded',
  ],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.es256Refused,
  rule: 'a well-formed ES256 signature (IEEE P1363 r||s) is accepted (digest 1.3); the verifier refuses every ES256 signature that verified',
  targets: ['signatures.accept.es256'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.digestEitherDeclared,
  rule: 'the seller enforces the covers_content_digest policy it declares (digest 1.7); it declares either but refuses a signature without content-digest',
  targets: ['signatures.digest.uncovered-accepted'],
});
registerFault({
  name: F.v32LegacyDecoder,
  rule: 'a 3.2 verifier decodes the sf-binary token with the strict standard-base64 decoder only, never retrying a legacy one (digest 1.5); the seller, speaking 3.2, also takes base64url',
  targets: ['signatures.profile.base64url-refused'],
  target: '3.2',
});
registerFault({
  name: F.v32EitherDeclared,
  rule: 'a 3.2 verifier advertises covers_content_digest required (digest 1.1, 1.15); the seller, speaking 3.2, declares either (and enforces required)',
  targets: ['signatures.profile.digest-required-declared'],
  target: '3.2',
});
registerFault({
  name: F.digestForbiddenDeclared,
  rule: 'under covers_content_digest forbidden a covered content-digest is refused (digest 1.7, 1.9 step 6); the seller declares forbidden but verifies as either',
  targets: ['signatures.digest.forbidden-enforced'],
});
registerFault({
  name: F.webhookAuthUnsigned,
  rule: 'P1 refuses an unsigned call registering a webhook authentication block with request_signature_required (digest 1.9); it is let through to bearer auth',
  targets: ['signatures.precheck.unsigned-webhook-auth'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.halfPairIgnored,
  rule: 'P2 refuses Signature without Signature-Input and vice versa as malformed (digest 1.9); a half pair is treated as unsigned',
  targets: ['signatures.precheck.signature-without-input', 'signatures.precheck.input-without-signature'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.malformedInputIgnored,
  rule: 'P3 refuses a Signature-Input that is not a structured dictionary, never ignores it (digest 1.9); it is treated as unsigned',
  targets: ['signatures.precheck.malformed-input'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.lenientParse,
  rule: 'step 1 refuses a duplicate label, a bare-token string parameter and a mixed base64 alphabet (digest 1.5, 1.9); the parser tolerates them',
  targets: ['signatures.header.duplicate-label', 'signatures.header.unquoted-string-param', 'signatures.header.mixed-alphabet'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.nonceUnchecked,
  rule: 'a nonce is unpadded base64url of at least 16 bytes (digest 1.3); any nonce is accepted',
  targets: ['signatures.header.short-nonce', 'signatures.header.padded-nonce'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.multiValuedAccepted,
  rule: 'step 1 refuses a multi-valued covered field (digest 1.9); two Content-Type values or two sha-256 digests are accepted',
  targets: ['signatures.header.multi-valued-content-type', 'signatures.header.multi-valued-content-digest'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.hostUnvalidated,
  rule: 'a raw U-label host is malformed at step 1 and a host with empty labels a malformed target at step 10 (digest 1.6, 1.9); the received authority is not validated',
  targets: ['signatures.header.non-ascii-host', 'signatures.target.malformed-authority'],
  // Every malformed authority goes through, the step 3 forms included.
  collateral: ['signatures.target.malformed-host'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.coveredHeaderAbsentAccepted,
  rule: 'step 1 refuses a covered header missing from the request (digest 1.9); it is accepted',
  targets: ['signatures.header.covered-header-absent'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.paramsUnchecked,
  rule: 'step 2 requires all six parameters (digest 1.9); a signature missing one is accepted',
  targets: [
    'signatures.params.missing-created',
    'signatures.params.missing-expires',
    'signatures.params.missing-nonce',
    'signatures.params.missing-keyid',
    'signatures.params.missing-alg',
    'signatures.params.missing-tag',
  ],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.windowBoundsIgnored,
  rule: 'step 5 refuses expires <= created, created more than 60 s ahead and a window over 300 s (digest 1.9); only expiry is checked',
  targets: ['signatures.window.too-long', 'signatures.window.expires-equals-created', 'signatures.window.created-in-future'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.componentsUnchecked,
  rule: 'step 6 requires @method, @target-uri, content-type on a body and content-digest under policy required (digest 1.9); a signature lacking them is accepted (a missing @authority is verifier-authority-optional)',
  targets: [
    'signatures.components.method-not-covered',
    'signatures.components.target-uri-not-covered',
    'signatures.components.content-type-not-covered',
    'signatures.digest.required-enforced',
  ],
  // The body-version probe is a signature without content-digest under policy required.
  collateral: ['signatures.digest.body-version-ignored'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.unknownKeyAccepted,
  rule: 'step 7 refuses a keyid that resolves to no JWK (digest 1.9); the request is let through',
  targets: ['signatures.key.unknown-keyid'],
  // The challenge probe is an unknown key id.
  collateral: ['signatures.header.challenge-code-only'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.keyConstraintsIgnored,
  rule: 'step 8 requires use=sig, key_ops containing verify and the JWK alg matching the signature alg (digest 1.3, 1.9); only the purpose member is checked',
  targets: ['signatures.key.verify-not-allowed', 'signatures.key.use-not-sig', 'signatures.key.alg-mismatch'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.doubledTagAccepted,
  rule: 'tag appears exactly once (digest 1.3); a Signature-Input repeating the tag parameter is parsed with the last one winning',
  targets: ['signatures.header.doubled-tag'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.everyLabelVerified,
  rule: 'the verifier processes sig1 and ignores every other label (digest 1.3); every label with a Signature entry is verified, so a garbage sig2 fails the request',
  targets: ['signatures.header.second-label-ignored'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.unmatchedLabelRefused,
  rule: 'an extra Signature-Input label without a Signature entry is tolerated (digest 1.3); it is refused as malformed',
  targets: ['signatures.header.unmatched-input-label'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.undeclaredVerifies,
  rule: 'with request_signing.supported false signatures are ignored (digest 1.15); the seller declares false but still verifies every signature it gets',
  targets: ['signatures.unsupported.signature-ignored'],
  // Not in the verifier group: declaring no signing makes every other signatures check not applicable.
  // The webhooks suite (and idempotency.hash.push-credentials-excluded) then register their authentication
  // blocks unsigned, which the still-running verifier refuses (P1).
  collateral: ['webhooks.auth.hmac', 'webhooks.auth.bearer-refused', 'webhooks.auth.short-credential-refused', 'idempotency.hash.push-credentials-excluded'],
});
registerFault({
  name: F.matchingDigestTrusted,
  rule: 'a body rewritten together with its content-digest fails the signature as request_signature_invalid (digest 1.7); a covered Content-Digest that matches the body is taken as proof and the failed crypto is overlooked',
  targets: ['signatures.digest.rewritten-with-body'],
  // The flipped-byte probe carries a covered digest matching its body as well.
  collateral: ['signatures.crypto.bad-signature'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.bodyVersionPolicy,
  rule: 'the content-digest policy comes from endpoint configuration, never from a version member in the body (digest 1.7); the seller, speaking 3.2, verifies a body naming a 3.0 or 3.1 version under either',
  targets: ['signatures.digest.body-version-ignored'],
  target: '3.2',
});
registerFault({
  name: F.protocolMethodsUnchecked,
  rule: 'P1 refuses an unsigned, otherwise unauthenticated JSON-RPC method listed in protocol_methods_required_for with request_signature_required (digest 1.9, 2.6); only operation lists are consulted, so bearer auth answers instead',
  targets: ['signatures.precheck.unsigned-protocol-method'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.cryptoFirst,
  rule: 'revocation (step 9) and the cap (9a) run before the crypto of step 10, so placeholder signatures get request_signature_key_revoked and request_signature_rate_abuse (digest 1.9); the crypto runs first and answers request_signature_invalid',
  targets: ['signatures.key.revoked-before-crypto', 'signatures.rate.cap-before-crypto'],
  // Not in the verifier group: verifier-ed25519-refused there blocks the cap probe's setup.
  matrixGroup: 'verifier-b',
});
registerFault({
  name: F.challengeRealm,
  rule: 'a refusal carries exactly WWW-Authenticate: Signature error="<code>", no realm (digest 1.14); the seller adds realm="mock-seller"',
  targets: ['signatures.header.challenge-code-only'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.standardBase64Refused,
  rule: 'a 3.0/3.1 verifier should also decode a Signature token in pure standard base64 (digest 1.5); it takes base64url only',
  targets: ['signatures.header.standard-base64-accepted'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.queryDropped,
  rule: '@target-uri keeps the query byte for byte (digest 1.6 step 7); the verifier builds it from the path alone',
  targets: ['signatures.target.query-kept'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.forwardedHostTrusted,
  rule: '@authority comes from the Host header as received, never from proxy routing state (digest 1.6); the verifier takes the host from X-Forwarded-Host',
  targets: ['signatures.target.forwarded-host-ignored'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.hostCaseKept,
  rule: '@target-uri and @authority lower-case the host (digest 1.6 step 2); the verifier builds the base over the Host header as received, so an upper-cased host no longer verifies',
  targets: ['signatures.target.host-case'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.malformedHostAccepted,
  rule: 'an empty host, an unclosed IPv6 bracket and a bare IPv6 literal are malformed authorities, request_target_uri_malformed (digest 1.6 step 3); the verifier lets a Host of those forms through as verified',
  targets: ['signatures.target.malformed-host'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.defaultPortKept,
  rule: "@target-uri and @authority drop the scheme's default port (digest 1.6 step 4); the verifier keeps a Host's :80 / :443, so a request to a port-less URL whose Host names the default port no longer verifies",
  targets: ['signatures.target.default-port'],
  // Only a port-less agent URL carries a default port to drop: judged through --connect-to.
  portless: true,
});
registerFault({
  name: F.impossibleJwkAccepted,
  rule: 'a JWK with an impossible parameter combination (alg EdDSA on an EC P-256 key) is key_purpose_invalid at step 8 (digest 1.4); the verifier takes the key as published and refuses only at the crypto step (request_signature_invalid)',
  targets: ['signatures.key.impossible-jwk'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.nonceAfterBody,
  rule: 'the (keyid, nonce) is stored after steps 1-12 and before step 14, so a validly signed request with a malformed body cannot be replayed (digest 1.9 step 13); the nonce is stored only once the body passed, so the replayed copy is refused as request_body_malformed again',
  targets: ['signatures.replay.malformed-body-nonce-stored'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.webhookUsageAccepted,
  rule: 'the deprecated webhook-signing usage is accepted on the webhook path only, never for requests (digest 1.4, 1.9 step 8); the request verifier takes it as the webhook verifier does',
  targets: ['signatures.key.webhook-usage-refused'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.namespacesMixed,
  rule: 'operation lists match tools/call names only and method lists the JSON-RPC method only (digest 1.15); the verifier matches every name against both lists',
  targets: ['signatures.namespaces.method-as-operation', 'signatures.namespaces.operation-as-method'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.warnForEnforced,
  rule: 'warn_for wins over supported_for: a well-formed signature failing its crypto on a warn_for operation is recorded and the request goes on with its bearer token (digest 1.10); shadow mode is not applied, so it is refused as request_signature_invalid',
  targets: ['signatures.warn.failed-signature-proceeds'],
  matrixGroup: 'verifier',
});
registerFault({
  name: F.warnForAuthenticates,
  rule: 'under warn_for a failed signature establishes no signer and the request goes on only if another authenticator succeeds (digest 1.10, 3.2); the failed signature is taken as authentication, so the call goes on without a bearer token',
  targets: ['signatures.warn.unauthenticated-refused'],
  target: '3.2',
});
