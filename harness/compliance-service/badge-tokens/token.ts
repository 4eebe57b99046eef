/**
 * Badge tokens: a registry's signed statement that an agent is verified in a role (claims.ts), as
 * a compact JWS / JWT (RFC 7515, 7519) signed with the registry's current Ed25519 key (key-set.ts).
 * Header `{alg: "EdDSA", typ: "badge+jwt", kid}`; anyone verifies it offline against the registry's
 * public JWKS (`/api/.well-known/jwks.json`) with any JOSE library.
 *
 * Determinism: Ed25519 signatures are deterministic (RFC 8032), so equal headers and claims give
 * byte-equal tokens. `issueBadgeToken` draws a random `jti` unless one is given, so two issues of
 * the same statement differ; given the same `jti` and `now`, they are equal.
 *
 * `verifyBadgeToken` never throws: it answers `{ok: true, claims}` or `{ok: false, reason, message}`.
 * It checks, in this order: length (at most 8 KiB), shape (three base64url parts, JSON header),
 * alg (exactly "EdDSA": "none", HS256 and every other alg refused before any key is looked at),
 * typ, kid (present in the JWKS, an Ed25519 signing key), the signature, the claims' shape, nbf
 * and exp against `now` (within `clockToleranceSeconds`, default 0), then the expectations the
 * caller states: issuer, agent URL (compared by URL identity), role. A rejection's `message` may
 * quote the token (its alg, typ or kid, cut to 100 characters): print it through reports/text.ts.
 */
import { randomUUID } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import { urlIdentity } from '../../core/storyboards/url-identity.js';
import { type BadgeClaims, type BadgeRole, type BadgeStatement, claimsProblem, statementProblem } from './claims.js';
import type { BadgeSigningKey } from './key-set.js';

export const BADGE_TOKEN_TYPE = 'badge+jwt';
export const BADGE_TOKEN_ALG = 'EdDSA';
export const MAX_BADGE_TOKEN_LENGTH = 8 * 1024;

/** What signs: a `BadgeKeySet` (its current key), or any source of one. */
export interface BadgeSigner {
  readonly maxTokenLifetimeSeconds: number;
  signingKey(): Promise<BadgeSigningKey>;
}

export interface IssueOptions {
  /** Issue time (default now); iat = nbf = this, in whole seconds. */
  now?: Date;
  /** exp = iat + lifetimeSeconds; at most the key set's maxTokenLifetimeSeconds. */
  lifetimeSeconds: number;
}

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** Signs a badge token for a statement. Throws `RangeError` for a malformed statement or lifetime. */
export async function issueBadgeToken(keys: BadgeSigner, statement: BadgeStatement & { jti?: string }, opts: IssueOptions): Promise<string> {
  const problem = statementProblem(statement as unknown as Record<string, unknown>);
  if (problem) throw new RangeError(`badge statement: ${problem}`);
  const life = opts.lifetimeSeconds;
  if (!Number.isSafeInteger(life) || life <= 0) throw new RangeError('lifetimeSeconds must be a positive whole number of seconds');
  if (life > keys.maxTokenLifetimeSeconds) {
    throw new RangeError(
      `lifetimeSeconds ${life} exceeds the key set's maxTokenLifetimeSeconds ${keys.maxTokenLifetimeSeconds} (a retired key would be unpublished before its tokens expire)`,
    );
  }
  const iat = seconds(opts.now ?? new Date());
  const claims: BadgeClaims = {
    iss: statement.iss,
    sub: statement.sub,
    role: statement.role,
    verified_specialisms: [...statement.verified_specialisms],
    verification_modes: [...statement.verification_modes],
    proto_version: statement.proto_version,
    verified_protocol_version: statement.verified_protocol_version,
    iat,
    nbf: iat,
    exp: iat + life,
    jti: statement.jti ?? randomUUID(),
  };
  const bad = claimsProblem(claims as unknown as Record<string, unknown>);
  if (bad) throw new RangeError(`badge claims: ${bad}`);
  const { kid, key } = await keys.signingKey();
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: BADGE_TOKEN_ALG, typ: BADGE_TOKEN_TYPE, kid }).sign(key);
}

export type BadgeRejection =
  | 'too_long'
  | 'malformed'
  | 'alg_not_allowed'
  | 'wrong_type'
  | 'unknown_kid'
  | 'unusable_key'
  | 'bad_signature'
  | 'malformed_claims'
  | 'not_yet_valid'
  | 'expired'
  | 'wrong_issuer'
  | 'wrong_agent'
  | 'wrong_role';

export type BadgeVerification = { ok: true; kid: string; claims: BadgeClaims } | { ok: false; reason: BadgeRejection; message: string };

export interface VerifyOptions {
  /** The time to judge nbf and exp at (default now). */
  now?: Date;
  /** Seconds of clock skew allowed on nbf and exp (default 0). */
  clockToleranceSeconds?: number;
  /** The registry URL the token must name as `iss` (exact match). */
  issuer?: string;
  /** The agent URL the token must name as `sub` (compared by URL identity: case of scheme and host, default port, trailing slashes). */
  agentUrl?: string;
  role?: BadgeRole;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

const reject = (reason: BadgeRejection, message: string): BadgeVerification => ({ ok: false, reason, message });

function jwksKeys(jwks: unknown): Record<string, unknown>[] | undefined {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return undefined;
  return keys.filter((k): k is Record<string, unknown> => typeof k === 'object' && k !== null && !Array.isArray(k));
}

/** A header value quoted in a message: JSON, at most 100 characters. */
const quoted = (v: unknown): string => {
  const text = JSON.stringify(v ?? null) ?? 'null';
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
};

const isoOf = (s: number): string => new Date(s * 1000).toISOString();

/** Verifies a badge token against a JWKS document (`{keys: [...]}`). Never throws. */
export async function verifyBadgeToken(token: unknown, jwks: unknown, opts: VerifyOptions = {}): Promise<BadgeVerification> {
  if (typeof token !== 'string') return reject('malformed', 'the token is not a string');
  if (token.length > MAX_BADGE_TOKEN_LENGTH) return reject('too_long', `the token is longer than ${MAX_BADGE_TOKEN_LENGTH} characters`);
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p)) || parts[0] === '' || parts[1] === '') {
    return reject('malformed', 'not a compact JWS (three base64url parts)');
  }
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return reject('malformed', 'the protected header is not base64url JSON');
  }
  if (header.alg !== BADGE_TOKEN_ALG) {
    return reject('alg_not_allowed', `alg ${quoted(header.alg)} is not allowed (only ${BADGE_TOKEN_ALG})`);
  }
  if (typeof header.typ !== 'string' || header.typ.toLowerCase().replace(/^application\//, '') !== BADGE_TOKEN_TYPE) {
    return reject('wrong_type', `typ ${quoted(header.typ)} is not ${BADGE_TOKEN_TYPE}`);
  }
  if (typeof header.kid !== 'string' || header.kid === '') return reject('unknown_kid', 'the header names no kid');
  const keys = jwksKeys(jwks);
  if (!keys) return reject('unknown_kid', 'the JWKS has no keys array');
  const candidates = keys.filter((k) => k.kid === header.kid);
  if (candidates.length === 0) return reject('unknown_kid', `kid ${quoted(header.kid)} is not in the JWKS (unknown, or retired and no longer published)`);
  if (candidates.length > 1) return reject('unusable_key', `kid ${quoted(header.kid)} appears more than once in the JWKS`);
  const jwk = candidates[0]!;
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    return reject('unusable_key', `key ${quoted(header.kid)} is not an Ed25519 public key`);
  if ((jwk.alg !== undefined && jwk.alg !== BADGE_TOKEN_ALG && jwk.alg !== 'Ed25519') || (jwk.use !== undefined && jwk.use !== 'sig')) {
    return reject('unusable_key', `key ${quoted(header.kid)} is not published for ${BADGE_TOKEN_ALG} signatures`);
  }
  let key;
  try {
    key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, BADGE_TOKEN_ALG);
  } catch {
    return reject('unusable_key', `key ${quoted(header.kid)} cannot be imported`);
  }
  let payload: Uint8Array;
  try {
    payload = (await compactVerify(token, key, { algorithms: [BADGE_TOKEN_ALG] })).payload;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return reject('bad_signature', `the signature does not verify with key ${quoted(header.kid)}`);
    return reject('malformed', `not a valid JWS (${code ?? 'unreadable'})`);
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    return reject('malformed_claims', 'the payload is not JSON');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return reject('malformed_claims', 'the payload is not a JSON object');
  const problem = claimsProblem(claims);
  if (problem) return reject('malformed_claims', problem);
  const c = claims as unknown as BadgeClaims;
  const now = seconds(opts.now ?? new Date());
  const tolerance = opts.clockToleranceSeconds ?? 0;
  if (c.nbf > now + tolerance) return reject('not_yet_valid', `not valid before ${isoOf(c.nbf)}`);
  if (c.exp <= now - tolerance) return reject('expired', `expired at ${isoOf(c.exp)}`);
  if (opts.issuer !== undefined && c.iss !== opts.issuer) return reject('wrong_issuer', 'the token was issued by another registry than the one expected');
  if (opts.agentUrl !== undefined && (urlIdentity(c.sub, { query: true }) ?? c.sub) !== (urlIdentity(opts.agentUrl, { query: true }) ?? opts.agentUrl)) {
    return reject('wrong_agent', 'the token is about another agent than the one expected');
  }
  if (opts.role !== undefined && c.role !== opts.role) return reject('wrong_role', `the token is for role ${c.role}, not ${opts.role}`);
  return { ok: true, kid: header.kid, claims: c };
}
