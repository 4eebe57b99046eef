/**
 * The encoding rule behind `expect_substitution_safe` (the substitution_observer_runner test kit):
 * a catalog-item value substituted into a URL is first normalized to Unicode NFC, then every UTF-8
 * byte outside RFC 3986 `unreserved` (ALPHA, DIGIT, `-`, `.`, `_`, `~`) is written as a `%XX`
 * triplet. Producers write upper-case hex; a verifier compares the two hex digits of a triplet
 * without case and every other character exactly. The judge of one observed value against one
 * binding names the rule it breaks with the kit's error codes.
 */

const HEX = '0123456789ABCDEF';

const unreservedCode = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;

const isHexPair = (s: string, at: number) => /^[0-9A-Fa-f]{2}$/.test(s.slice(at, at + 2));

/** The safe form of a raw value: NFC, then UTF-8 bytes outside `unreserved` as upper-case `%XX`. */
export function encodeForUrl(raw: string): string {
  let out = '';
  for (const b of Buffer.from(raw.normalize('NFC'), 'utf8')) out += unreservedCode(b) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`;
  return out;
}

/** Where `observed` first departs from `expected` (hex digits of a triplet compared without case), or -1 when it does not. */
export function divergence(observed: string, expected: string): number {
  const n = Math.min(observed.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (expected[i] === '%' && observed[i] === '%' && isHexPair(expected, i + 1) && isHexPair(observed, i + 1)) {
      if (observed.slice(i + 1, i + 3).toUpperCase() !== expected.slice(i + 1, i + 3).toUpperCase()) return i;
      i += 2;
      continue;
    }
    if (observed[i] !== expected[i]) return i;
  }
  return observed.length === expected.length ? -1 : n;
}

/** The first character that is neither `unreserved` nor part of a well-formed `%XX` triplet, or -1. */
export function firstUnsafe(value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (unreservedCode(c)) continue;
    if (c === 0x25 && isHexPair(value, i + 1)) {
      i += 2;
      continue;
    }
    return i;
  }
  return -1;
}

/** Percent-decoding that never throws: a malformed triplet or byte sequence is kept as written. */
export function lenientDecode(value: string): string {
  return value.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** AdCP macro tokens (`{NAME}`) in a value. */
export const macroTokens = (value: string) => value.match(/\{[A-Za-z0-9_]+\}/g) ?? [];

export type SubstitutionErrorCode = 'substitution_encoding_violation' | 'nested_macro_re_expansion' | 'substitution_scheme_injection';

export interface EncodingJudgement {
  ok: boolean;
  code?: SubstitutionErrorCode;
  /** Offset of the first character of `observed` that breaks the rule (-1 when none applies). */
  offset: number;
  /** What the rule says, in words (the expected form is the caller's to show). */
  why?: string;
}

/**
 * One value observed at a macro position, judged against the binding's raw value and expected
 * encoded form. `wholeValue`: the macro is the whole attribute value, so a value read as a URL
 * with a scheme of its own has changed the URL's scheme.
 */
export function judgeEncoding(observed: string, raw: string, expected: string, wholeValue = false): EncodingJudgement {
  if (wholeValue) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(observed)?.[1];
    if (scheme) return { ok: false, code: 'substitution_scheme_injection', offset: scheme.length, why: `the value gives the URL the scheme ${scheme}:` };
  }
  const offset = divergence(observed, expected);
  if (offset === -1) return { ok: true, offset: -1 };
  const nfc = raw.normalize('NFC');
  for (const token of macroTokens(nfc)) {
    const literal = observed.indexOf(token);
    if (literal !== -1)
      return {
        ok: false,
        code: 'nested_macro_re_expansion',
        offset: literal,
        why: `the macro ${token} of the value is left as a literal token a later pass expands`,
      };
    // Re-expanded: what surrounds the token survives, the token itself does not.
    const before = nfc.slice(0, nfc.indexOf(token));
    const after = nfc.slice(nfc.indexOf(token) + token.length);
    const decoded = lenientDecode(observed);
    if (!decoded.includes(token) && decoded.startsWith(before) && decoded.endsWith(after) && decoded.length > before.length + after.length)
      return {
        ok: false,
        code: 'nested_macro_re_expansion',
        offset: encodeForUrl(before).length,
        why: `the macro ${token} inside the value was expanded to ${JSON.stringify(decoded.slice(before.length, decoded.length - after.length))}`,
      };
  }
  const unsafe = firstUnsafe(observed);
  const why =
    unsafe !== -1
      ? `${JSON.stringify(observed[unsafe])} is neither RFC 3986 unreserved nor a %XX triplet`
      : observed.length < expected.length && expected.startsWith(observed)
        ? 'the value is cut short (a reserved character of it ended the URL component)'
        : 'the bytes differ from the NFC, unreserved-only percent-encoding of the value';
  return { ok: false, code: 'substitution_encoding_violation', offset, why };
}
