/**
 * Content-Digest (RFC 9530) over the exact raw body bytes (digest 1.7).
 * `sha-256` is what the profile uses; `sha-512` is accepted too. Unknown algorithms are
 * ignored; a header with no supported algorithm cannot match.
 */
import * as nodeCrypto from 'node:crypto';
import { encodeBinary, type BinaryEncoding } from './base64.js';
import type { Dictionary } from 'structured-headers';
import { parseStrictDictionary, StructuredFieldError } from './structured-fields.js';

export type DigestAlgorithm = 'sha-256' | 'sha-512';
const NODE_ALG: Record<DigestAlgorithm, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

type OneShotHash = (alg: string, data: Uint8Array, enc: string) => Buffer | string;
// One-shot crypto.hash (Node >= 20.12) avoids a Hash object per request.
const oneShot = (nodeCrypto as { hash?: OneShotHash }).hash;

/** Raw digest bytes of a body. */
export function digestBytes(body: Uint8Array, alg: DigestAlgorithm = 'sha-256'): Buffer {
  return oneShot ? (oneShot(NODE_ALG[alg], body, 'buffer') as Buffer) : nodeCrypto.createHash(NODE_ALG[alg]).update(body).digest();
}

/** The `Content-Digest` header value for a body: `sha-256=:<b64>:`. */
export function contentDigestHeader(body: Uint8Array, encoding: BinaryEncoding, alg: DigestAlgorithm = 'sha-256'): string {
  return `${alg}=:${encodeBinary(digestBytes(body, alg), encoding)}:`;
}

/**
 * Parsed `Content-Digest`: algorithm → digest bytes. Throws StructuredFieldError when malformed.
 * The dictionary is parsed by `parseStrictDictionary` unless another parser is given.
 */
export function parseContentDigest(
  value: string,
  encoding: BinaryEncoding,
  parseDictionary: (input: string, encoding: BinaryEncoding) => Dictionary = parseStrictDictionary,
): Map<string, Buffer> {
  const dict = parseDictionary(value, encoding);
  const out = new Map<string, Buffer>();
  for (const [alg, member] of dict) {
    const v = member[0];
    if (!Buffer.isBuffer(v) || member[1].size > 0) {
      throw new StructuredFieldError(`Content-Digest member ${alg} is not a plain byte sequence`);
    }
    out.set(alg, v);
  }
  return out;
}

/** True when every supported algorithm present matches the body and at least one is present. */
export function contentDigestMatches(parsed: Map<string, Buffer>, body: Uint8Array): boolean {
  let checked = 0;
  for (const alg of Object.keys(NODE_ALG) as DigestAlgorithm[]) {
    const expected = parsed.get(alg);
    if (!expected) continue;
    checked++;
    if (!expected.equals(digestBytes(body, alg))) return false;
  }
  return checked > 0;
}

/** The body's sha-256 digest as the encoding writes it: padded base64 (strict) or unpadded base64url (legacy). */
export function sha256Text(body: Uint8Array, encoding: BinaryEncoding): string {
  const textEncoding = encoding === 'strict' ? 'base64' : 'base64url';
  return oneShot ? (oneShot('sha256', body, textEncoding) as string) : nodeCrypto.createHash('sha256').update(body).digest(textEncoding);
}
