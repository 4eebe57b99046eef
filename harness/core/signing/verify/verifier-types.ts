/** Inputs and outputs of the verifier (verifier.ts). */
import type { ProtocolIds } from '../../token.js';
import type { BinaryEncoding } from '../parse/base64.js';
import type { FailureReason, SignatureProfile, VerifyStep } from '../codes.js';
import type { DuplicateKeyLog } from './body-log.js';
import type { KeyResolver } from '../keys/key-resolver.js';
import type { SignatureAlg } from '../keys/keys.js';
import type { DigestPolicy, OperationRef, RequestSigningCapability } from './precheck.js';
import type { ReplayCache } from './replay-cache.js';
import type { RevocationChecker } from './revocation.js';
import type { VerifierPathChoice } from './verifier-paths.js';

/** The request as received. */
export interface ReceivedRequest {
  method: string;
  /** Absolute URL as received (scheme + authority + path + query). */
  url: string;
  /** Header fields, any case; repeated fields as arrays. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Exact raw body bytes ("" / empty for no body). */
  body: Uint8Array | string;
  /** HTTP/2 `:authority` as received, when the request came over HTTP/2. */
  authority?: string;
}

export interface VerifyContext extends OperationRef {
  profile: SignatureProfile;
  ids: ProtocolIds;
  /** Binary decoder: `strict` for the 3.2 request profile; `legacy` for 3.1 and webhooks. */
  encoding: BinaryEncoding;
  /** Request profile: the advertised capability. Absent or `supported: false` ignores signatures. */
  capability?: RequestSigningCapability;
  /** Request profile: effective `covers_content_digest` (webhooks always require the digest). */
  digestPolicy?: DigestPolicy;
  /** A valid bearer / API key / mTLS credential was presented (digest 1.10). */
  fallbackAuthenticated?: boolean;
  /** Injectable clock, unix seconds. */
  now: () => number;
  keys: KeyResolver;
  replayCache: ReplayCache;
  revocation?: RevocationChecker;
  /** Extra replay-key scope (webhooks with several endpoints: the canonical destination URL). */
  replayScope?: string;
  /** Step 14 (duplicate JSON keys); default true. */
  checkBody?: boolean;
  /** Receives the 14b log record when step 14 rejects. */
  onDuplicateKeys?: (record: DuplicateKeyLog) => void;
  /**
   * Parsing and building steps: `fast` (default) puts the accelerators of ../fast/ in front of
   * the reference parsers; `reference` runs the reference parsers alone. Same verdicts either way.
   */
  paths?: VerifierPathChoice;
  /**
   * Step 10's signature check runs on libuv's thread pool (node:crypto's callback form) instead of
   * the event loop: a server verifying many requests at once keeps answering meanwhile. Same
   * verdicts; the result is then always a promise.
   */
  offloadCrypto?: boolean;
}

export interface VerifiedSigner {
  keyid: string;
  agent_url?: string;
  /** Unix seconds of verification. */
  verified_at: number;
  label: string;
  alg: SignatureAlg;
}

export type VerifyResult = VerifySuccess | VerifyUnsigned | VerifyFailure;

export interface VerifySuccess {
  ok: true;
  signer: VerifiedSigner;
  signatureBase: string;
}

/** No signature and none required: the caller's other authenticators decide. */
export interface VerifyUnsigned {
  ok: true;
  signer: null;
}

export interface VerifyFailure {
  ok: false;
  /** Exact wire code (`request_signature_invalid`, `webhook_target_uri_malformed`, ...). */
  code: string;
  reason: FailureReason;
  step: VerifyStep;
  detail: string;
  /** `Signature error="<code>"` */
  wwwAuthenticate: string;
  /** The signature base, when the verifier got as far as building it. */
  signatureBase?: string;
}
