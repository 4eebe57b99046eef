/**
 * RFC 8941 structured fields through `structured-headers`, plus the strictness the profile adds
 * on top (digest 1.3, 1.5, 1.7):
 *
 * - a duplicate dictionary key is malformed (RFC 8941 would let the last one win silently);
 * - a duplicate parameter key inside one parameter list is malformed;
 * - byte sequences are decoded with the profile's binary decoder (strict sf-binary for the 3.2
 *   request profile, the lenient legacy decoder for 3.1 requests and webhooks).
 *
 * A small scanner locates dictionary keys, parameter keys and byte-sequence spans outside
 * strings. Byte-sequence contents are decoded with the chosen decoder and rewritten as
 * canonical standard base64 before the text is handed to `structured-headers`, which then
 * checks the whole grammar. Decoded bytes are taken from the decoder, not re-derived.
 */
import { parseDictionary, serializeInnerList, serializeItem, type Dictionary, type InnerList, type Item } from 'structured-headers';
import { type Base64Error, decodeBinary, type BinaryEncoding } from './base64.js';

export class StructuredFieldError extends Error {
  override name = 'StructuredFieldError';
}

interface ScanResult {
  dictKeys: string[];
  duplicateParam?: string;
  byteSpans: Array<{ start: number; end: number }>;
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;

function readKey(input: string, pos: number): { key: string; end: number } {
  let end = pos;
  if (end < input.length && KEY_START.test(input[end]!)) {
    end++;
    while (end < input.length && KEY_CHAR.test(input[end]!)) end++;
  }
  return { key: input.slice(pos, end), end };
}

/**
 * Scan a dictionary field value. Grammar errors are left to `structured-headers`; the scan only
 * has to be right for grammatical input, and harmless for the rest.
 */
function scanDictionary(input: string): ScanResult {
  const dictKeys: string[] = [];
  const byteSpans: ScanResult['byteSpans'] = [];
  let duplicateParam: string | undefined;
  let params = new Set<string>();
  let depth = 0;
  let expectKey = true;
  let prev = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (expectKey) {
      if (c === ' ' || c === '\t') continue;
      const { key, end } = readKey(input, i);
      if (key) dictKeys.push(key);
      expectKey = false;
      params = new Set();
      i = end - 1;
      prev = 'k';
      continue;
    }
    if (c === '"') {
      // skip a string, honouring backslash escapes
      i++;
      while (i < input.length && input[i] !== '"') i += input[i] === '\\' ? 2 : 1;
      prev = '"';
      continue;
    }
    if (c === ':' && (prev === '=' || prev === '(' || prev === ' ')) {
      const close = input.indexOf(':', i + 1);
      if (close === -1) break;
      byteSpans.push({ start: i + 1, end: close });
      i = close;
      prev = ':';
      continue;
    }
    if (c === '(') {
      depth++;
      params = new Set();
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      params = new Set();
    } else if (c === ' ' && depth > 0) {
      params = new Set();
    } else if (c === ',' && depth === 0) {
      expectKey = true;
    } else if (c === ';') {
      let j = i + 1;
      while (input[j] === ' ') j++;
      const { key, end } = readKey(input, j);
      if (key) {
        if (params.has(key) && duplicateParam === undefined) duplicateParam = key;
        params.add(key);
      }
      i = end - 1;
      prev = 'k';
      continue;
    }
    prev = c;
  }
  return { dictKeys, byteSpans, duplicateParam };
}

export interface StrictDictionary {
  dict: Dictionary;
  /** Canonical serialization of a member's value (`(...);params` or `item;params`). */
  memberText(key: string): string | undefined;
}

/**
 * Parse a dictionary field strictly. Returns the parsed dictionary (byte sequences as the
 * decoder's bytes) or throws StructuredFieldError.
 */
export function parseStrictDictionary(input: string, encoding: BinaryEncoding): Dictionary {
  const scan = scanDictionary(input);
  const seen = new Set<string>();
  for (const key of scan.dictKeys) {
    if (seen.has(key)) throw new StructuredFieldError(`duplicate dictionary key "${key}"`);
    seen.add(key);
  }
  if (scan.duplicateParam !== undefined) {
    throw new StructuredFieldError(`duplicate parameter "${scan.duplicateParam}"`);
  }
  const decoded: Buffer[] = [];
  let rewritten = '';
  let last = 0;
  for (const span of scan.byteSpans) {
    const token = input.slice(span.start, span.end);
    let bytes: Buffer;
    try {
      bytes = decodeBinary(token, encoding);
    } catch (err) {
      throw new StructuredFieldError(`byte sequence: ${(err as Base64Error).message}`);
    }
    decoded.push(bytes);
    rewritten += input.slice(last, span.start) + bytes.toString('base64');
    last = span.end;
  }
  rewritten += input.slice(last);
  let dict: Dictionary;
  try {
    dict = parseDictionary(rewritten);
  } catch (err) {
    throw new StructuredFieldError((err as Error).message);
  }
  if (dict.size !== scan.dictKeys.length) {
    throw new StructuredFieldError('dictionary member count does not match its keys');
  }
  // Replace library-decoded byte sequences by the decoder's bytes, in document order.
  let n = 0;
  const take = (): Buffer => {
    const b = decoded[n++];
    if (!b) throw new StructuredFieldError('byte sequence outside the expected positions');
    return b;
  };
  for (const [key, member] of dict) dict.set(key, replaceBytes(member, take));
  if (n !== decoded.length) throw new StructuredFieldError('byte sequence outside the expected positions');
  return dict;
}

/** `parseStrictDictionary`, with each member's canonical serialization on request. */
export function parseStrictDictionaryWithText(input: string, encoding: BinaryEncoding): StrictDictionary {
  const dict = parseStrictDictionary(input, encoding);
  return { dict, memberText: (key) => serializeMember(dict.get(key)) };
}

/** Canonical serialization of a dictionary member's value. */
export function serializeMember(member: Item | InnerList | undefined): string | undefined {
  if (member === undefined) return undefined;
  return isInnerList(member) ? serializeInnerList(member) : serializeItem(member);
}

function replaceBytes<T extends Item | InnerList>(member: T, take: () => Buffer): T {
  if (Array.isArray(member[0])) {
    const [items, params] = member as InnerList;
    const out = items.map((it) => replaceBytes(it, take));
    return [out, replaceParamBytes(params, take)] as T;
  }
  const [value, params] = member as Item;
  const v = value instanceof ArrayBuffer ? take() : value;
  return [v, replaceParamBytes(params, take)] as T;
}

// biome-ignore lint/suspicious/noExplicitAny: structured-headers types parameters as its own BareItem; the map is handed back to it
function replaceParamBytes(params: Map<string, unknown>, take: () => Buffer): Map<string, any> {
  for (const [k, v] of params) if (v instanceof ArrayBuffer) params.set(k, take());
  return params;
}

/** True when a member is an inner list. */
export function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}

/**
 * A covered non-structured header (content-type, authorization...) must be single-valued.
 * Arrays with more than one entry, and a comma outside quoted strings in content-type, are
 * multi-valued.
 */
export function singleFieldValue(name: string, value: string | readonly string[]): string {
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new StructuredFieldError(`${name} has ${value.length} field lines`);
    value = value[0]!;
  }
  const v = trimmed(value as string);
  if (name === 'content-type' && v.indexOf(',') !== -1 && hasTopLevelComma(v)) {
    throw new StructuredFieldError('content-type is multi-valued');
  }
  return v;
}

/** `trim()`, without the call when both ends are printable ASCII (never white space). */
export function trimmed(v: string): string {
  const first = v.charCodeAt(0);
  const last = v.charCodeAt(v.length - 1);
  return first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f ? v : v.trim();
}

function hasTopLevelComma(v: string): boolean {
  let inQuote = false;
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (inQuote) {
      if (c === '\\') i++;
      else if (c === '"') inQuote = false;
    } else if (c === '"') inQuote = true;
    else if (c === ',') return true;
  }
  return false;
}
