/**
 * The claims of a badge token (digest 6.3, `VerificationBadge` as a signed statement): who issued
 * it (`iss`, the registry's public URL), which agent it is about (`sub`, the agent URL), the role
 * it is verified in, how (`verification_modes`), for which protocol line (`proto_version`, e.g.
 * "3.0") and which concrete bundle (`verified_protocol_version`, e.g. "3.0.6"), and the JWT times
 * `iat`, `nbf`, `exp` with a unique `jti`. One shape check serves the issuer (nothing malformed is
 * ever signed) and the verifier (a signed but malformed token is still refused).
 */

export const BADGE_ROLES = ['media-buy', 'creative', 'signals', 'governance', 'brand', 'sponsored-intelligence'] as const;
export type BadgeRole = (typeof BADGE_ROLES)[number];

export const VERIFICATION_MODES = ['spec', 'live'] as const;
export type VerificationMode = (typeof VERIFICATION_MODES)[number];

/** What the registry states about one agent in one role: the claims the caller chooses. */
export interface BadgeStatement {
  /** The registry's public URL (http or https). */
  iss: string;
  /** The agent URL (http or https). */
  sub: string;
  role: BadgeRole;
  verified_specialisms: string[];
  /** At least one, no duplicates. */
  verification_modes: VerificationMode[];
  /** The protocol line, e.g. "3.0". */
  proto_version: string;
  /** The concrete bundle the agent was verified against, e.g. "3.0.6"; the line itself ("3.0") when no concrete bundle was known. */
  verified_protocol_version: string;
}

/** Every claim of a badge token: the statement plus the JWT times (seconds since the epoch) and id. */
export interface BadgeClaims extends BadgeStatement {
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

const PROTO_LINE = /^\d{1,4}\.\d{1,4}$/;
/** A concrete version (3.0.6, 3.2.0-beta.5), or the line itself when the run knew no concrete bundle (the service then states the line). */
const PROTO_BUNDLE = /^\d{1,4}\.\d{1,4}(\.\d{1,6}(-[0-9A-Za-z.-]{1,64})?)?$/;
const SPECIALISM = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const MAX_SPECIALISMS = 64;
const MAX_URL = 2048;

function httpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > MAX_URL) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** The first problem of a statement, or undefined when it is well formed. */
export function statementProblem(c: Record<string, unknown>): string | undefined {
  if (!httpUrl(c.iss)) return 'iss must be an http(s) URL';
  if (!httpUrl(c.sub)) return 'sub must be an http(s) agent URL';
  if (!BADGE_ROLES.includes(c.role as BadgeRole)) return `role must be one of ${BADGE_ROLES.join(', ')}`;
  const specialisms = c.verified_specialisms;
  if (!Array.isArray(specialisms) || specialisms.length > MAX_SPECIALISMS || !specialisms.every((s) => typeof s === 'string' && SPECIALISM.test(s))) {
    return `verified_specialisms must be an array of at most ${MAX_SPECIALISMS} specialism ids`;
  }
  const modes = c.verification_modes;
  if (
    !Array.isArray(modes) ||
    modes.length === 0 ||
    !modes.every((m) => VERIFICATION_MODES.includes(m as VerificationMode)) ||
    new Set(modes).size !== modes.length
  ) {
    return 'verification_modes must hold at least one of spec, live, each once';
  }
  if (typeof c.proto_version !== 'string' || !PROTO_LINE.test(c.proto_version)) return 'proto_version must be a protocol line such as "3.0"';
  if (typeof c.verified_protocol_version !== 'string' || !PROTO_BUNDLE.test(c.verified_protocol_version)) {
    return 'verified_protocol_version must be a version such as "3.0.6" (or the line, "3.0")';
  }
  if (c.verified_protocol_version !== c.proto_version && !c.verified_protocol_version.startsWith(`${c.proto_version}.`)) {
    return 'verified_protocol_version must belong to the proto_version line';
  }
  return undefined;
}

/** The first problem of a full claim set (statement, times, id), or undefined. */
export function claimsProblem(c: Record<string, unknown>): string | undefined {
  const statement = statementProblem(c);
  if (statement) return statement;
  for (const t of ['iat', 'nbf', 'exp'] as const) {
    if (!Number.isSafeInteger(c[t]) || (c[t] as number) < 0) return `${t} must be a whole number of seconds`;
  }
  if ((c.exp as number) <= (c.nbf as number)) return 'exp must be after nbf';
  if (typeof c.jti !== 'string' || c.jti.length === 0 || c.jti.length > 128) return 'jti must be a non-empty string';
  return undefined;
}
