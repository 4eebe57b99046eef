/**
 * `proxy --caller-jwks FILE|URL`: the public keys the buyer signs its requests with, so the audit
 * can run the agent's verifier checklist through the key lookup and the crypto. A URL is fetched
 * SSRF-safe under the proxy's address policy (64 KiB cap); the document must be a JWKS of public
 * keys with unique kids.
 */
import { readFile } from 'node:fs/promises';
import { PRIVATE_JWK_MEMBERS } from '../core/discovery/jwks-audit.js';
import type { AddressPolicy } from '../core/net/address-policy.js';
import { createSafeFetcher } from '../core/net/safe-fetch.js';
import { StaticKeyResolver } from '../core/signing/keys/key-resolver.js';
import type { Jwk } from '../core/signing/keys/keys.js';
import { isLoopbackHost } from '../core/webhooks/emission/config.js';

const MAX_JWKS_BYTES = 64 * 1024;

export class CallerKeysError extends Error {}

export async function loadCallerKeys(source: string, policy?: AddressPolicy): Promise<StaticKeyResolver> {
  let text: string;
  try {
    if (/^https?:\/\//i.test(source)) {
      const local = isLoopbackHost(new URL(source).hostname) && !policy?.denyPrivate;
      const doc = await createSafeFetcher({ allowInsecureLoopback: local, policy })(source, { maxBytes: MAX_JWKS_BYTES });
      if (doc.status !== 200) throw new CallerKeysError(`HTTP ${doc.status}`);
      text = doc.body.toString('utf8');
    } else {
      text = await readFile(source, 'utf8');
      if (Buffer.byteLength(text) > MAX_JWKS_BYTES) throw new CallerKeysError(`larger than ${MAX_JWKS_BYTES} bytes`);
    }
  } catch (e) {
    throw new CallerKeysError(`--caller-jwks ${JSON.stringify(source)}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CallerKeysError(`--caller-jwks ${JSON.stringify(source)} is not JSON`);
  }
  const keys = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => k !== null && typeof k === 'object' && typeof (k as Jwk).kid === 'string'))
    throw new CallerKeysError(`--caller-jwks ${JSON.stringify(source)} is not a JWKS: expected {"keys": [...]} with a kid on every key`);
  const secret = keys.find((k) => PRIVATE_JWK_MEMBERS.some((m) => m in (k as object)));
  if (secret) throw new CallerKeysError(`--caller-jwks: key ${JSON.stringify((secret as Jwk).kid)} carries private material; give the public keys only`);
  try {
    return new StaticKeyResolver(keys as Jwk[]);
  } catch (e) {
    throw new CallerKeysError(`--caller-jwks: ${(e as Error).message}`);
  }
}
