/**
 * Step 1 fast path (fast-paths.ts): the exact header shapes the profile's signers emit,
 * turned into the parsed signature directly, with no intermediate dictionary:
 *
 *   Signature-Input: sig1=("c1" "c2" ...);created=N;expires=N;nonce="..";keyid="..";alg="..";tag=".."
 *   Signature:       sig1=:<64 bytes>:
 *   Content-Digest:  sha-256=:<32 bytes>:
 *
 * (parameters in the profile's order, byte sequences in the encoding's main form). One native
 * regular expression checks and cuts the Signature-Input; the byte sequences are checked and
 * decoded by table lookups. It never decides an error: any other shape — other labels or
 * members, another parameter order or set, whitespace, escapes, tokens, negative integers,
 * repeated or parameterised components, a value the profile decoder would refuse or take on
 * its lenient branch — returns undefined, and the general parsers (`parseSignatureHeaders` /
 * `parseContentDigest` over sf-fast.ts, structured-headers behind it) parse the input and
 * report the exact code. Whatever this accepts, the reference parser accepts with an identical result;
 * signature-fast.test.ts checks that differentially.
 */
import { MIN_NONCE_BYTES, type BinaryEncoding } from '../parse/base64.js';
import { coverageOf, SIGNATURE_LABEL, type SignatureView } from '../parse/signature-headers.js';

// sf-string content that needs no escape: printable ASCII except `"` and `\`.
const STR = '[ !#-\\[\\]-~]*';
// Canonical sf-integer (no sign: negative times are left to the reference path).
const INT = '(0|[1-9][0-9]{0,14})';
const SIGNATURE_INPUT = new RegExp(
  `^sig1=\\(((?:"${STR}"(?: "${STR}")*)?)\\);created=${INT};expires=${INT};nonce="([A-Za-z0-9_-]+)";keyid="(${STR})";alg="(${STR})";tag="(${STR})"$`,
);
// 64-byte signatures (Ed25519, P-256 r||s): 86 base64 characters, the last with 4 zero low bits.
const SIGNATURE_CHARS = 86;
const SIGNATURE_BYTES = 64;
const FIELD_NAME = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;
const ITEM = /"([^"]*)"/g;

const DERIVED: readonly string[] = ['@method', '@target-uri', '@authority'];
/** Component lists signers send: their text inside the parentheses, and the list. */
const COMMON_LISTS: readonly (readonly string[])[] = [
  [...DERIVED, 'content-type', 'content-digest'],
  [...DERIVED, 'content-type'],
  DERIVED,
  [...DERIVED, 'content-digest'],
];
const COMMON_TEXTS: readonly string[] = COMMON_LISTS.map((list) => list.map((c) => `"${c}"`).join(' '));
const COMMON_COVERAGE: readonly number[] = COMMON_LISTS.map(coverageOf);

// Character values per alphabet: -1 for characters outside it.
const URL_VALUE = new Int8Array(128).fill(-1);
const STD_VALUE = new Int8Array(128).fill(-1);
{
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let i = 0; i < 62; i++) URL_VALUE[alphabet.charCodeAt(i)] = STD_VALUE[alphabet.charCodeAt(i)] = i;
  URL_VALUE[0x2d] = 62; // -
  URL_VALUE[0x5f] = 63; // _
  STD_VALUE[0x2b] = 62; // +
  STD_VALUE[0x2f] = 63; // /
}
const B64_VALUE = URL_VALUE;

/** An unpadded base64url nonce (already matched to the alphabet) the reference decoder accepts. */
function validNonce(nonce: string): boolean {
  const rem = nonce.length % 4;
  if (rem === 1 || Math.floor((nonce.length * 3) / 4) < MIN_NONCE_BYTES) return false;
  if (rem === 0) return true;
  return (B64_VALUE[nonce.charCodeAt(nonce.length - 1)]! & (rem === 2 ? 0x0f : 0x03)) === 0;
}

/** The components, and their coverage bits in `lastCoverage` (set on success). */
let lastCoverage = 0;

function components(listText: string): readonly string[] | undefined {
  // Plain comparisons (length first): cheaper than hashing the text for a Map lookup.
  for (let i = 0; i < COMMON_TEXTS.length; i++) {
    const text = COMMON_TEXTS[i]!;
    if (text.length === listText.length && text === listText) {
      lastCoverage = COMMON_COVERAGE[i]!;
      return COMMON_LISTS[i]!;
    }
  }
  const out: string[] = [];
  ITEM.lastIndex = 0;
  for (let m = ITEM.exec(listText); m !== null; m = ITEM.exec(listText)) {
    const c = m[1]!;
    if (c.startsWith('@') ? !DERIVED.includes(c) : !FIELD_NAME.test(c)) return undefined;
    if (out.includes(c)) return undefined;
    out.push(c);
  }
  lastCoverage = coverageOf(out);
  return out;
}

/**
 * A sender uses one keyid for many requests: handing out the same string object each time
 * lets the key, revocation and replay maps reuse its hash and compare it by identity.
 */
let lastKeyid = '';
function internKeyid(keyid: string): string {
  if (keyid === lastKeyid) return lastKeyid;
  lastKeyid = keyid;
  return keyid;
}

/** The Step 1 result, or undefined when the reference parser must decide. */
export function fastParseSignatureHeaders(signatureInput: string, signature: string, encoding: BinaryEncoding): SignatureView | undefined {
  const m = SIGNATURE_INPUT.exec(signatureInput);
  if (m === null) return undefined;
  const nonce = m[4]!;
  if (!validNonce(nonce)) return undefined;
  const list = components(m[1]!);
  if (list === undefined) return undefined;
  const bytes = signatureBytes(signature, encoding);
  if (bytes === undefined) return undefined;
  return {
    label: SIGNATURE_LABEL,
    components: list,
    params: { created: Number(m[2]), expires: Number(m[3]), nonce, keyid: internKeyid(m[5]!), alg: m[6]!, tag: m[7]! },
    signatureParams: signatureInput.slice(SIGNATURE_LABEL.length + 1),
    signature: bytes,
    coverage: lastCoverage,
  };
}

/**
 * `sig1=:<86 characters>:` in the encoding's main form (unpadded base64url for legacy, padded
 * standard base64 for strict), canonical, decoded in the same pass: the 64 signature bytes, or
 * undefined.
 */
function signatureBytes(sig: string, encoding: BinaryEncoding): Uint8Array | undefined {
  const legacy = encoding === 'legacy';
  const end = 6 + SIGNATURE_CHARS;
  if (sig.length !== (legacy ? end + 1 : end + 3) || !sig.startsWith('sig1=:')) return undefined;
  if (!(legacy ? sig.charCodeAt(end) === 0x3a : sig.endsWith('==:'))) return undefined;
  const values = legacy ? URL_VALUE : STD_VALUE;
  const out = new Uint8Array(SIGNATURE_BYTES);
  let o = 0;
  let i = 6;
  // 84 characters → 63 bytes in groups of four; then 2 characters → 1 byte.
  for (; i < end - 2; i += 4) {
    const a = values[sig.charCodeAt(i)] ?? -1;
    const b = values[sig.charCodeAt(i + 1)] ?? -1;
    const c = values[sig.charCodeAt(i + 2)] ?? -1;
    const d = values[sig.charCodeAt(i + 3)] ?? -1;
    if ((a | b | c | d) < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 0x0f) << 4) | (c >> 2);
    out[o++] = ((c & 0x03) << 6) | d;
  }
  const a = values[sig.charCodeAt(i)] ?? -1;
  const b = values[sig.charCodeAt(i + 1)] ?? -1;
  if ((a | b) < 0 || (b & 0x0f) !== 0) return undefined; // canonical: unused low bits are zero
  out[o] = (a << 2) | (b >> 4);
  return out;
}

/**
 * `Content-Digest` as signers send it: exactly `sha-256=:<token>:` with the token in the
 * encoding's main form (unpadded base64url for legacy, padded standard base64 for strict),
 * canonical. Returns the token, which the reference parser would accept as is, or undefined
 * (then `parseContentDigest` decides). Step 11 compares it with `sha256Text` of the body: a
 * canonical encoding is unique, so equal text is equal bytes.
 */
export function fastSha256DigestToken(value: string, encoding: BinaryEncoding): string | undefined {
  // sha-256: 43 base64 characters, the last with 2 zero low bits; strict adds one `=`.
  const legacy = encoding === 'legacy';
  const end = 9 + 43;
  if (value.length !== (legacy ? end + 1 : end + 2) || !value.startsWith('sha-256=:')) return undefined;
  if (value.charCodeAt(value.length - 1) !== 0x3a || (!legacy && value.charCodeAt(end) !== 0x3d)) return undefined;
  const values = legacy ? URL_VALUE : STD_VALUE;
  let last = 0;
  for (let i = 9; i < end; i++) {
    last = values[value.charCodeAt(i)] ?? -1;
    if (last < 0) return undefined;
  }
  return (last & 0x03) === 0 ? value.slice(9, value.length - 1) : undefined;
}
