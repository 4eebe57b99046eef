/**
 * What a published key set must be (interface spec 2.3 `jwks_uri`, 5: keys verified against the
 * operator's published JWKS): a JSON object with `keys[]` of usable public signing keys, no
 * private members, a unique `kid` each, and `use` / `alg` / `key_ops` consistent with the key
 * type. And what a `signing_keys[]` pin of adagents.json (2.2) must be: public keys the agents
 * actually publish. Each problem names its JSON pointer, so a report shows where it is.
 */
import { createPublicKey } from 'node:crypto';

/** Members only a private JWK has (RFC 7518 6.2.2, 6.3.2, 6.4). */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

export interface KeyProblem {
  pointer: string;
  message: string;
}

type Jwk = Record<string, unknown>;

/** The key type (and curve) each JWS algorithm needs (RFC 7518 3.1, RFC 8037 3.1). */
const ALG_KEYS: Record<string, { kty: string; crv?: readonly string[] }> = {
  EdDSA: { kty: 'OKP', crv: ['Ed25519', 'Ed448'] },
  Ed25519: { kty: 'OKP', crv: ['Ed25519'] },
  ES256: { kty: 'EC', crv: ['P-256'] },
  ES384: { kty: 'EC', crv: ['P-384'] },
  ES512: { kty: 'EC', crv: ['P-521'] },
  RS256: { kty: 'RSA' },
  RS384: { kty: 'RSA' },
  RS512: { kty: 'RSA' },
  PS256: { kty: 'RSA' },
  PS384: { kty: 'RSA' },
  PS512: { kty: 'RSA' },
};
/** Operations a public key cannot perform (RFC 7517 4.3). */
const PRIVATE_OPS = new Set(['sign', 'decrypt', 'unwrapKey', 'deriveKey', 'deriveBits']);

const isObject = (v: unknown): v is Jwk => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The problems of one public signing key at `at` (a JSON pointer). */
export function publicKeyProblems(key: unknown, at: string): KeyProblem[] {
  if (!isObject(key)) return [{ pointer: at, message: 'a key must be a JSON object' }];
  const out: KeyProblem[] = [];
  for (const m of PRIVATE_JWK_MEMBERS)
    if (m in key) out.push({ pointer: `${at}/${m}`, message: `private member "${m}" published: the private key is exposed and must be replaced` });
  if (typeof key.kid !== 'string' || key.kid === '') out.push({ pointer: `${at}/kid`, message: 'no kid: a signature names its key by kid' });
  if (key.use !== undefined && key.use !== 'sig') out.push({ pointer: `${at}/use`, message: `use is ${JSON.stringify(key.use)}, not "sig", on a signing key` });
  if (key.key_ops !== undefined) {
    const ops = Array.isArray(key.key_ops) ? key.key_ops : [];
    const bad = ops.filter((o) => typeof o !== 'string' || PRIVATE_OPS.has(o) || (key.use === 'sig' && o !== 'verify'));
    if (!Array.isArray(key.key_ops) || bad.length)
      out.push({ pointer: `${at}/key_ops`, message: `key_ops ${JSON.stringify(key.key_ops)} do not fit a public signing key (only "verify")` });
  }
  if (key.alg !== undefined) {
    const need = typeof key.alg === 'string' ? ALG_KEYS[key.alg] : undefined;
    if (!need) out.push({ pointer: `${at}/alg`, message: `alg ${JSON.stringify(key.alg)} is not a JWS signature algorithm` });
    else if (need.kty !== key.kty || (need.crv && !need.crv.includes(String(key.crv))))
      out.push({
        pointer: `${at}/alg`,
        message: `alg ${key.alg} needs a ${need.kty}${need.crv ? ` ${need.crv.join('/')}` : ''} key, not ${String(key.kty)}${key.crv ? ` ${String(key.crv)}` : ''}`,
      });
  }
  try {
    const pub = Object.fromEntries(Object.entries(key).filter(([m]) => !(PRIVATE_JWK_MEMBERS as readonly string[]).includes(m)));
    createPublicKey({ key: pub as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch (e) {
    out.push({ pointer: at, message: `not a usable public key: ${(e as Error).message}` });
  }
  return out;
}

/** The problems of a published key set (`{"keys": [...]}`). */
export function jwksProblems(doc: unknown): KeyProblem[] {
  if (!isObject(doc) || !Array.isArray(doc.keys)) return [{ pointer: '', message: 'a key set is a JSON object with a keys array' }];
  if (doc.keys.length === 0) return [{ pointer: '/keys', message: 'the key set has no key' }];
  const out: KeyProblem[] = [];
  const firstWithKid = new Map<string, number>();
  doc.keys.forEach((key, i) => {
    out.push(...publicKeyProblems(key, `/keys/${i}`));
    const kid = isObject(key) && typeof key.kid === 'string' ? key.kid : undefined;
    if (kid === undefined) return;
    const first = firstWithKid.get(kid);
    if (first === undefined) firstWithKid.set(kid, i);
    else
      out.push({ pointer: `/keys/${i}/kid`, message: `kid ${JSON.stringify(kid)} is also the kid of /keys/${first}: a verifier cannot tell the keys apart` });
  });
  return out;
}

/** The RFC 7638 members of a public key: equal for two JWKs exactly when they are the same key. */
export function keyMaterial(key: Jwk): string | undefined {
  const members: Record<string, readonly string[]> = { OKP: ['crv', 'kty', 'x'], EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'] };
  const names = typeof key.kty === 'string' ? members[key.kty] : undefined;
  if (!names || names.some((m) => typeof key[m] !== 'string')) return undefined;
  return JSON.stringify(names.map((m) => key[m]));
}

/** The problems of a `signing_keys[]` pin against the keys its agents publish (`published`). */
export function pinProblems(pin: unknown, published: readonly Jwk[], at = '/signing_keys'): KeyProblem[] {
  if (!Array.isArray(pin)) return [{ pointer: at, message: 'signing_keys must be an array of public keys' }];
  const known = new Set(published.map(keyMaterial).filter((m): m is string => m !== undefined));
  const out: KeyProblem[] = [];
  pin.forEach((key, i) => {
    const problems = publicKeyProblems(key, `${at}/${i}`);
    out.push(...problems);
    const material = isObject(key) ? keyMaterial(key) : undefined;
    if (material !== undefined && !known.has(material))
      out.push({
        pointer: `${at}/${i}`,
        message: `pinned key ${JSON.stringify(isObject(key) ? (key.kid ?? '(no kid)') : '')} is not among the ${published.length} key(s) the agents publish: their signatures would be refused`,
      });
  });
  return out;
}
