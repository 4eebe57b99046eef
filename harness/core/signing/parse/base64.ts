/**
 * Binary value encodings of the profile (digest 1.5).
 *
 * - `strict`: the 3.2 request profile. RFC 8941 sf-binary: standard alphabet, `=` padding
 *   required, no `-`/`_`, canonical trailing bits.
 * - `legacy`: 3.0/3.1 requests and every 3.x webhook. Unpadded base64url is the norm; a token
 *   that is pure standard base64 (optionally padded) is also accepted; a token mixing the
 *   two alphabets is malformed.
 *
 * The decoder is chosen from trusted configuration, never as a fallback after a failure.
 */

export type BinaryEncoding = 'strict' | 'legacy';

export class Base64Error extends Error {
  override name = 'Base64Error';
}

const STD_PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_UNPADDED = /^[A-Za-z0-9_-]*$/;
const STD_UNPADDED_OR_PADDED = /^[A-Za-z0-9+/]*={0,2}$/;

const ALPHABET_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  ALPHABET_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
  ALPHABET_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)] = i;
}

/**
 * Canonical trailing bits: in an unpadded token of length L, the last character carries
 * 4 (L % 4 == 2) or 2 (L % 4 == 3) unused low bits, which must be zero.
 */
function canonicalTail(unpadded: string): boolean {
  const rem = unpadded.length % 4;
  if (rem === 0) return true;
  if (rem === 1) return false;
  const v = ALPHABET_VALUE[unpadded.charCodeAt(unpadded.length - 1)]!;
  return (v & (rem === 2 ? 0x0f : 0x03)) === 0;
}

/** Decode a token under the given encoding; throws Base64Error with a reason. */
export function decodeBinary(token: string, encoding: BinaryEncoding): Buffer {
  return encoding === 'strict' ? decodeStrict(token) : decodeLegacy(token);
}

/** RFC 8941 sf-binary content: standard alphabet, padding required, canonical bits. */
export function decodeStrict(token: string): Buffer {
  if (/[-_]/.test(token)) throw new Base64Error('base64url characters in an sf-binary value');
  if (!STD_PADDED.test(token)) throw new Base64Error('not canonical padded standard base64');
  if (!canonicalTail(token.replace(/=+$/, ''))) throw new Base64Error('non-canonical base64 (trailing bits)');
  return Buffer.from(token, 'base64');
}

/** Legacy decoder: base64url, or pure standard base64; mixed alphabets rejected. */
export function decodeLegacy(token: string): Buffer {
  const hasStd = /[+/=]/.test(token);
  const hasUrl = /[-_]/.test(token);
  if (hasStd && hasUrl) throw new Base64Error('mixed base64 and base64url alphabets');
  let url: string;
  if (hasStd) {
    if (!STD_UNPADDED_OR_PADDED.test(token)) throw new Base64Error('invalid standard base64');
    if (token.includes('=') && token.length % 4 !== 0) throw new Base64Error('bad base64 padding');
    url = token.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  } else {
    url = token;
  }
  if (!URL_UNPADDED.test(url)) throw new Base64Error('invalid base64url');
  if (url.length % 4 === 1) throw new Base64Error('impossible base64 length');
  if (!canonicalTail(url)) throw new Base64Error('non-canonical base64 (trailing bits)');
  return Buffer.from(url, 'base64url');
}

/** Encode for the given encoding: padded standard (strict) or unpadded base64url (legacy). */
export function encodeBinary(bytes: Uint8Array, encoding: BinaryEncoding): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === 'strict' ? buf.toString('base64') : buf.toString('base64url');
}

/** The `nonce` parameter: unpadded base64url only, in both profiles. */
export function decodeNonce(nonce: string): Buffer {
  nonceByteLength(nonce);
  return Buffer.from(nonce, 'base64url');
}

/** Validate a nonce (unpadded canonical base64url) and return its decoded length without decoding. */
export function nonceByteLength(nonce: string): number {
  if (!URL_UNPADDED.test(nonce)) throw new Base64Error('nonce is not unpadded base64url');
  if (nonce.length % 4 === 1) throw new Base64Error('impossible base64url length');
  if (!canonicalTail(nonce)) throw new Base64Error('non-canonical base64url nonce');
  return Math.floor((nonce.length * 3) / 4);
}

/** Minimum decoded nonce length (digest 1.3). */
export const MIN_NONCE_BYTES = 16;
