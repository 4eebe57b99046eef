/**
 * Fast path for the subset of RFC 8941 dictionaries the profile uses (keys; items and inner
 * lists of strings, integers, tokens, booleans and byte sequences; parameters). It mirrors
 * `structured-headers`' parser decision for decision and returns the same structure; any input
 * using other features (decimals, dates, display strings) returns FALLBACK and is parsed by
 * the reference path (parse/structured-fields.ts: `structured-headers` plus the profile's
 * strictness) instead. `parseStrictDictionaryFast` is the entry point: a drop-in for
 * `parseStrictDictionaryWithText`. Differential tests keep the two in agreement.
 *
 * Profile strictness is applied while parsing: duplicate keys and duplicate parameters are
 * errors, byte sequences are decoded with the profile decoder. It also records each member's
 * text when that text is already in canonical serialization, so `@signature-params` needs no
 * re-serialization.
 */
import { Token, type Dictionary, type InnerList, type Item, type Parameters } from 'structured-headers';
import { type Base64Error, decodeBinary, type BinaryEncoding } from '../parse/base64.js';
import { parseStrictDictionaryWithText, serializeMember, type StrictDictionary, StructuredFieldError } from '../parse/structured-fields.js';

export const FALLBACK = Symbol('sf-fast-fallback');

export class FastParseError extends Error {
  override name = 'FastParseError';
}

export interface FastDictionary {
  dict: Dictionary;
  /** Member value text (after `key=`) when it is canonical, else undefined. */
  canonicalText: Map<string, string | undefined>;
}

const isLcAlpha = (c: number) => c >= 0x61 && c <= 0x7a;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || isLcAlpha(c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
// key: lcalpha / DIGIT / "_" / "-" / "." / "*"
const isKeyChar = (c: number) => isLcAlpha(c) || isDigit(c) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a;
// tchar plus ":" and "/"
const TOKEN_EXTRA = new Set([...":/!#$%&'*+-.^_`|~"].map((c) => c.charCodeAt(0)));
const isTokenChar = (c: number) => isAlpha(c) || isDigit(c) || TOKEN_EXTRA.has(c);

class Fallback {}
const FB = new Fallback();

/**
 * `parseStrictDictionaryWithText` with the fast paths in front: the canonical single-member
 * forms, then the general fast parser, then (FALLBACK) the reference parser. Throws
 * StructuredFieldError, as the reference parser does, for the same inputs.
 */
export function parseStrictDictionaryFast(input: string, encoding: BinaryEncoding): StrictDictionary {
  let fast: FastDictionary | typeof FALLBACK;
  try {
    fast = fastBinaryMember(input, encoding) ?? fastInnerListMember(input) ?? fastParseDictionary(input, encoding);
  } catch (err) {
    if (err instanceof FastParseError) throw new StructuredFieldError(err.message);
    throw err;
  }
  if (fast === FALLBACK) return parseStrictDictionaryWithText(input, encoding);
  return new ParsedDictionary(fast.dict, fast.canonicalText);
}

/** `parseStrictDictionaryFast(...).dict`: a drop-in for `parseStrictDictionary`. */
export function parseStrictDictionaryFastDict(input: string, encoding: BinaryEncoding): Dictionary {
  return parseStrictDictionaryFast(input, encoding).dict;
}

/** A class, not an object literal with an arrow: no per-parse function objects. */
class ParsedDictionary implements StrictDictionary {
  constructor(
    readonly dict: Dictionary,
    private readonly canonicalText: Map<string, string | undefined>,
  ) {}

  memberText(key: string): string | undefined {
    return this.canonicalText.get(key) ?? serializeMember(this.dict.get(key));
  }
}

/** Parse; returns FALLBACK when the input needs the full library. Throws FastParseError. */
export function fastParseDictionary(input: string, encoding: BinaryEncoding): FastDictionary | typeof FALLBACK {
  try {
    return new FastParser(input, encoding).dictionary();
  } catch (e) {
    if (e === FB) return FALLBACK;
    throw e;
  }
}

/** A class rather than closures: no per-call function objects on the hot path. */
class FastParser {
  private pos = 0;
  private canonical = true;
  private readonly n: number;

  constructor(
    private readonly input: string,
    private readonly encoding: BinaryEncoding,
  ) {
    this.n = input.length;
  }

  private err(msg: string): never {
    throw new FastParseError(`${msg} at offset ${this.pos}`);
  }

  private code(): number {
    return this.pos < this.n ? this.input.charCodeAt(this.pos) : -1;
  }

  dictionary(): FastDictionary {
    const dict: Dictionary = new Map();
    const canonicalText = new Map<string, string | undefined>();
    const input = this.input;
    while (this.code() === 0x20) this.pos++;
    while (this.pos < this.n) {
      const key = this.key();
      if (dict.has(key)) this.err(`duplicate dictionary key "${key}"`);
      this.canonical = true;
      let member: Item | InnerList;
      const start = this.pos;
      if (this.code() === 0x3d) {
        this.pos++;
        member = this.code() === 0x28 ? this.innerList() : [this.bare() as never, this.params()];
      } else {
        member = [true, this.params()];
      }
      dict.set(key, member);
      canonicalText.set(key, this.canonical && input.charCodeAt(start) === 0x3d ? input.slice(start + 1, this.pos) : undefined);
      while (this.code() === 0x20 || this.code() === 0x09) this.pos++;
      if (this.pos >= this.n) break;
      if (this.code() !== 0x2c) this.err('expected ","');
      this.pos++;
      while (this.code() === 0x20 || this.code() === 0x09) this.pos++;
      if (this.pos >= this.n) this.err('trailing comma');
    }
    return { dict, canonicalText };
  }

  private key(): string {
    const start = this.pos;
    const c = this.code();
    if (!(isLcAlpha(c) || c === 0x2a)) this.err('a key must begin with a-z or *');
    this.pos++;
    while (this.pos < this.n && isKeyChar(this.input.charCodeAt(this.pos))) this.pos++;
    return this.input.slice(start, this.pos);
  }

  private bare(): unknown {
    const input = this.input;
    const c = this.code();
    if (c === -1) this.err('unexpected end of input');
    if (c === 0x2d || isDigit(c)) {
      const start = this.pos;
      if (c === 0x2d) this.pos++;
      if (!isDigit(this.code())) this.err('expected a digit');
      const digitsStart = this.pos;
      while (isDigit(this.code())) this.pos++;
      if (this.code() === 0x2e) throw FB; // decimal
      const digits = this.pos - digitsStart;
      if (digits > 15) this.err('integer too long');
      const text = input.slice(start, this.pos);
      if ((digits > 1 && input.charCodeAt(digitsStart) === 0x30) || text === '-0') this.canonical = false;
      return parseInt(text, 10);
    }
    if (c === 0x22) return this.string();
    if (isAlpha(c) || c === 0x2a) {
      const start = this.pos;
      this.pos++;
      while (this.pos < this.n && isTokenChar(input.charCodeAt(this.pos))) this.pos++;
      return new Token(input.slice(start, this.pos));
    }
    if (c === 0x3a) {
      const end = input.indexOf(':', this.pos + 1);
      if (end === -1) this.err('unterminated byte sequence');
      const token = input.slice(this.pos + 1, end);
      this.pos = end + 1;
      let bytes: Buffer;
      try {
        bytes = decodeBinary(token, this.encoding);
      } catch (e) {
        return this.err(`byte sequence: ${(e as Base64Error).message}`);
      }
      // The legacy decoder also takes base64url and unpadded tokens; the serialization is
      // padded standard base64.
      if (this.encoding !== 'strict' && bytes.toString('base64') !== token) this.canonical = false;
      return bytes;
    }
    if (c === 0x3f) {
      const v = input.charCodeAt(this.pos + 1);
      this.pos += 2;
      if (v === 0x31) return true;
      if (v === 0x30) return false;
      return this.err('bad boolean');
    }
    if (c === 0x40 || c === 0x25) throw FB; // date, display string
    return this.err('unexpected input');
  }

  private string(): string {
    const input = this.input;
    this.pos++;
    let out = '';
    let run = this.pos;
    while (this.pos < this.n) {
      const d = input.charCodeAt(this.pos);
      if (d === 0x5c) {
        out += input.slice(run, this.pos);
        const e = input.charCodeAt(this.pos + 1);
        if (e !== 0x5c && e !== 0x22) this.err('bad escape in string');
        out += input[this.pos + 1];
        this.pos += 2;
        run = this.pos;
      } else if (d === 0x22) {
        out += input.slice(run, this.pos);
        this.pos++;
        return out;
      } else if (d < 0x20 || d > 0x7e) this.err('string outside printable ASCII');
      else this.pos++;
    }
    return this.err('unterminated string');
  }

  private params(): Parameters {
    const params: Parameters = new Map();
    while (this.code() === 0x3b) {
      this.pos++;
      if (this.code() === 0x20) this.canonical = false;
      while (this.code() === 0x20) this.pos++;
      const key = this.key();
      let value: unknown = true;
      if (this.code() === 0x3d) {
        this.pos++;
        value = this.bare();
        if (value === true) this.canonical = false;
      }
      if (params.has(key)) this.err(`duplicate parameter "${key}"`);
      params.set(key, value as never);
    }
    return params;
  }

  private innerList(): InnerList {
    this.pos++; // "("
    const items: Item[] = [];
    let first = true;
    while (this.pos < this.n) {
      let spaces = 0;
      while (this.code() === 0x20) {
        this.pos++;
        spaces++;
      }
      if (this.code() === 0x29) {
        if (spaces > 0) this.canonical = false;
        this.pos++;
        return [items, this.params()];
      }
      if (spaces !== (first ? 0 : 1)) this.canonical = false;
      first = false;
      items.push([this.bare() as never, this.params()]);
      const next = this.code();
      if (next !== 0x20 && next !== 0x29) this.err('expected a space or ) after an inner-list item');
    }
    return this.err('unterminated inner list');
  }
}

// ---------------------------------------------------------------------------------------------
// Canonical single-member forms. Signers emit exactly these; a match is parsed with native
// regular expressions and yields the same result the general parsers would. Anything else
// (several members, escapes, tokens, spacing, leading zeros) takes the general path.

const BINARY_MEMBER = /^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/=_-]*):$/;
// One inner list of escape-free strings with escape-free string / integer parameters.
const INNER_LIST_MEMBER =
  /^([a-z*][a-z0-9_.*-]*)=(\((?:"[ !#-[\]-~]*"(?: "[ !#-[\]-~]*")*)?\)((?:;[a-z*][a-z0-9_.*-]*=(?:"[ !#-[\]-~]*"|-?(?:0|[1-9][0-9]{0,14})))*))$/;
const ITEM = /"([ !#-[\]-~]*)"/g;
const PARAM = /;([a-z*][a-z0-9_.*-]*)=(?:"([ !#-[\]-~]*)"|(-?[0-9]+))/g;

/**
 * `key=:<bytes>:` — the form of `Signature` and `Content-Digest` as signers send them.
 * Returns undefined when the input is not in that form.
 */
export function fastBinaryMember(input: string, encoding: BinaryEncoding): FastDictionary | undefined {
  const m = BINARY_MEMBER.exec(input);
  if (!m) return undefined;
  let bytes: Buffer;
  try {
    bytes = decodeBinary(m[2]!, encoding);
  } catch (e) {
    throw new FastParseError(`byte sequence: ${(e as Base64Error).message}`);
  }
  const dict: Dictionary = new Map([[m[1]!, [bytes as never, new Map()]]]);
  // Canonical when the token is already the serialization (padded standard base64).
  const canonical = encoding === 'strict' || bytes.toString('base64') === m[2];
  return { dict, canonicalText: new Map([[m[1]!, canonical ? input.slice(m[1]!.length + 1) : undefined]]) };
}

/** `label=("c1" "c2" ...);k="v";n=1...` — the form of `Signature-Input` as signers send it. */
export function fastInnerListMember(input: string): FastDictionary | undefined {
  const m = INNER_LIST_MEMBER.exec(input);
  if (!m) return undefined;
  const listText = m[2]!.slice(0, m[2]!.length - m[3]!.length);
  // exec loops, not matchAll: matchAll clones the RegExp on every call.
  const items: Item[] = [];
  ITEM.lastIndex = 0;
  for (let it = ITEM.exec(listText); it !== null; it = ITEM.exec(listText)) items.push([it[1]!, new Map()]);
  const params: Parameters = new Map();
  const paramText = m[3]!;
  PARAM.lastIndex = 0;
  for (let p = PARAM.exec(paramText); p !== null; p = PARAM.exec(paramText)) {
    if (params.has(p[1]!)) throw new FastParseError(`duplicate parameter "${p[1]}"`);
    params.set(p[1]!, p[2] !== undefined ? p[2] : parseInt(p[3]!, 10));
  }
  const dict: Dictionary = new Map([[m[1]!, [items, params] as InnerList]]);
  return { dict, canonicalText: new Map([[m[1]!, m[2]!]]) };
}
