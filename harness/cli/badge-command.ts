/**
 * `proto-comply badge verify TOKEN --jwks URL|FILE [--issuer URL] [--agent URL] [--role R]`
 *
 * Verifies a registry's badge token (harness/compliance-service/badge-tokens/) offline against
 * the registry's public JWKS, fetched once from a URL or read from a file, and prints ONE line:
 * `valid: …` (exit 0) or `invalid: <reason>: …` (exit 1). The JWKS could not be had: `error: …`
 * (exit 3). Usage errors: one line, exit 2. Everything taken from the token (the agent URL, the
 * issuer, a kid) is printed inert: control characters, ANSI escapes and bidi overrides are
 * spelled `\uXXXX` (reports/text.ts).
 */
import { parseArgs } from 'node:util';
import { oneLine } from '../../reports/text.js';
import { BADGE_ROLES, type BadgeClaims, type BadgeRole } from '../compliance-service/badge-tokens/claims.js';
import { JwksSourceError, loadJwks } from '../compliance-service/badge-tokens/jwks-source.js';
import { verifyBadgeToken } from '../compliance-service/badge-tokens/token.js';
import { UsageError } from './usage.js';

export const BADGE_HELP = `Usage: proto-comply badge verify TOKEN --jwks URL|FILE [--issuer URL] [--agent URL] [--role R]

Verifies a registry's badge token (a JWS signed with EdDSA, typ badge+jwt) offline against the
registry's public key set and prints one line:
  valid: <role> badge for <agent> (protocol <line> (bundle <version>); specialisms …; modes …; issuer …; expires <iso>)
  invalid: <reason>: <detail>

  TOKEN           the compact token (header.payload.signature)
  --jwks URL|FILE the registry's JWKS: its URL (e.g. https://registry.example/api/.well-known/jwks.json;
                  http or https, redirects within the same origin only, 10 s, 256 KiB) or a local file
  --issuer URL    the registry the token must be issued by (its iss claim, exact)
  --agent URL     the agent the token must be about (its sub claim, compared as a URL)
  --role R        the role it must be for: ${BADGE_ROLES.join(', ')}

Reasons: too_long, malformed, alg_not_allowed (anything but EdDSA, e.g. none or HS256), wrong_type,
unknown_kid (not in the JWKS: unknown, or retired and no longer published), unusable_key,
bad_signature, malformed_claims, not_yet_valid, expired, wrong_issuer, wrong_agent, wrong_role.

Exit codes: 0 valid, 1 invalid, 2 usage error, 3 the JWKS could not be fetched or is not a JWKS.`;

export interface BadgeCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

interface VerifyArgs {
  token: string;
  jwks: string;
  issuer?: string;
  agent?: string;
  role?: BadgeRole;
}

function urlFlag(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const u = URL.parse(value);
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new UsageError(`badge verify: ${name} must be an http(s) URL`);
  return value;
}

function parseVerify(argv: string[]): VerifyArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        jwks: { type: 'string' },
        issuer: { type: 'string' },
        agent: { type: 'string' },
        role: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(`badge verify: ${oneLine((e as Error).message.split('\n')[0] ?? '', 200)}`);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return 'help';
  if (positionals.length === 0) throw new UsageError('badge verify: missing TOKEN (see proto-comply badge verify --help)');
  if (positionals.length > 1) throw new UsageError(`badge verify: expected one TOKEN, got ${positionals.length} arguments`);
  if (v.jwks === undefined || v.jwks === '') throw new UsageError("badge verify: missing --jwks URL|FILE (the registry's public key set)");
  if (v.role !== undefined && !BADGE_ROLES.includes(v.role as BadgeRole)) throw new UsageError(`badge verify: --role must be one of ${BADGE_ROLES.join(', ')}`);
  return {
    token: positionals[0]!.trim(),
    jwks: v.jwks,
    issuer: urlFlag('--issuer', v.issuer),
    agent: urlFlag('--agent', v.agent),
    role: v.role as BadgeRole | undefined,
  };
}

/** The one line of a valid token; every value from the token made inert. */
export function validLine(c: BadgeClaims): string {
  const specialisms = c.verified_specialisms.length > 0 ? c.verified_specialisms.join(', ') : 'none';
  const exp = new Date(c.exp * 1000).toISOString();
  return oneLine(
    `valid: ${c.role} badge for ${c.sub} (protocol ${c.proto_version} (bundle ${c.verified_protocol_version}); specialisms ${specialisms}; modes ${c.verification_modes.join(', ')}; issuer ${c.iss}; expires ${exp})`,
    6000,
  );
}

async function verify(argv: string[], out: (t: string) => void): Promise<number> {
  const args = parseVerify(argv);
  if (args === 'help') {
    out(`${BADGE_HELP}\n`);
    return 0;
  }
  let jwks;
  try {
    jwks = await loadJwks(args.jwks);
  } catch (e) {
    if (e instanceof JwksSourceError) {
      if (e.kind === 'usage') throw new UsageError(`badge verify: ${oneLine(e.message, 400)}`);
      out(`error: cannot load the JWKS: ${oneLine(e.message, 400)}\n`);
      return 3;
    }
    throw e;
  }
  const r = await verifyBadgeToken(args.token, jwks, { issuer: args.issuer, agentUrl: args.agent, role: args.role });
  if (r.ok) {
    out(`${validLine(r.claims)}\n`);
    return 0;
  }
  out(`${oneLine(`invalid: ${r.reason}: ${r.message}`, 600)}\n`);
  return 1;
}

export async function badgeCommand(argv: string[], io: BadgeCommandIo = {}): Promise<number> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    out(`${BADGE_HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'verify') throw new UsageError(`badge: expected "verify", got ${JSON.stringify(oneLine(sub, 40))}`);
  return verify(rest, out);
}
