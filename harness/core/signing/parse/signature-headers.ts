/**
 * Step 1 parsing of `Signature-Input` and `Signature` (RFC 9421 section 4) with the profile's
 * strictness: the label `sig1` is processed and every other label ignored; covered components
 * are plain lower-case strings without parameters and without repeats; string parameters must
 * be quoted strings; `created`/`expires` integers; the nonce unpadded base64url of at least
 * 16 bytes.
 */
import { Token, type InnerList } from 'structured-headers';
import type { BinaryEncoding } from './base64.js';
import { type Base64Error, MIN_NONCE_BYTES, nonceByteLength } from './base64.js';
import { SignatureFormatError } from '../codes.js';
import { isInnerList, parseStrictDictionaryWithText, type StrictDictionary, StructuredFieldError } from './structured-fields.js';

/** The label the profile processes (digest 1.3: one signature per request). */
export const SIGNATURE_LABEL = 'sig1';

/** Derived components the profile knows how to compute. */
export const DERIVED_COMPONENTS: readonly string[] = ['@method', '@target-uri', '@authority'];

export interface SignatureParams {
  created?: number;
  expires?: number;
  nonce?: string;
  keyid?: string;
  alg?: string;
  tag?: string;
}

export interface ParsedSignature {
  label: string;
  /** Covered component identifiers in order (`@method`, `content-type`, ...). */
  components: string[];
  params: SignatureParams;
  /** The `@signature-params` value: the serialized inner list with its parameters. */
  signatureParams: string;
  /** Raw signature bytes. */
  signature: Buffer;
}

/**
 * What Step 1 hands the later steps: the fields of ParsedSignature, read only, with the
 * signature bytes as any Uint8Array and the coverage bits of the components.
 */
export interface SignatureView extends Omit<ParsedSignature, 'signature' | 'components'> {
  components: readonly string[];
  signature: Uint8Array;
  /** COVERS_* bits of `components` (`coverageOf`). */
  coverage: number;
}

export const COVERS_METHOD = 1;
export const COVERS_TARGET_URI = 2;
export const COVERS_AUTHORITY = 4;
export const COVERS_CONTENT_TYPE = 8;
export const COVERS_CONTENT_DIGEST = 16;
const COMPONENT_BITS: Readonly<Record<string, number>> = {
  '@method': COVERS_METHOD,
  '@target-uri': COVERS_TARGET_URI,
  '@authority': COVERS_AUTHORITY,
  'content-type': COVERS_CONTENT_TYPE,
  'content-digest': COVERS_CONTENT_DIGEST,
};

/** COVERS_* bits of a component list. */
export function coverageOf(components: readonly string[]): number {
  let bits = 0;
  for (const c of components) bits |= Object.hasOwn(COMPONENT_BITS, c) ? COMPONENT_BITS[c]! : 0;
  return bits;
}

/** A strict dictionary parser: `parseStrictDictionaryWithText`, or one that answers exactly as it does. */
export type DictionaryParser = (input: string, encoding: BinaryEncoding) => StrictDictionary;

const STRING_PARAMS = ['nonce', 'keyid', 'alg', 'tag'] as const;
const INTEGER_PARAMS = ['created', 'expires'] as const;
const FIELD_NAME = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;

function malformed(message: string): never {
  throw new SignatureFormatError('header_malformed', message);
}

function dict(name: string, value: string, encoding: BinaryEncoding, parse: DictionaryParser) {
  try {
    return parse(value, encoding);
  } catch (err) {
    if (err instanceof StructuredFieldError) malformed(`${name}: ${err.message}`);
    throw err;
  }
}

/**
 * Parse the header pair and extract the `sig1` signature. Throws SignatureFormatError. The
 * dictionaries are parsed by `parseStrictDictionaryWithText` unless another parser is given.
 */
export function parseSignatureHeaders(
  signatureInput: string,
  signature: string,
  encoding: BinaryEncoding,
  parseDictionary: DictionaryParser = parseStrictDictionaryWithText,
): ParsedSignature {
  const parsedInputs = dict('Signature-Input', signatureInput, encoding, parseDictionary);
  const inputs = parsedInputs.dict;
  const sigs = dict('Signature', signature, encoding, parseDictionary).dict;
  const input = inputs.get(SIGNATURE_LABEL);
  const sig = sigs.get(SIGNATURE_LABEL);
  if (input === undefined) malformed(`Signature-Input has no ${SIGNATURE_LABEL} label`);
  if (sig === undefined) malformed(`Signature has no ${SIGNATURE_LABEL} label`);
  if (!isInnerList(input)) malformed(`Signature-Input ${SIGNATURE_LABEL} is not an inner list`);
  if (isInnerList(sig) || !Buffer.isBuffer(sig[0]) || sig[1].size > 0) {
    malformed(`Signature ${SIGNATURE_LABEL} is not a plain byte sequence`);
  }
  const [items, rawParams] = input as InnerList;
  const components: string[] = [];
  for (const [value, itemParams] of items) {
    if (typeof value !== 'string') malformed('a covered component is not a quoted string');
    if (itemParams.size > 0) malformed(`covered component "${value}" carries parameters`);
    if (value.startsWith('@') ? !DERIVED_COMPONENTS.includes(value) : !FIELD_NAME.test(value)) {
      malformed(`unsupported covered component "${value}"`);
    }
    if (components.includes(value)) malformed(`covered component "${value}" listed twice`);
    components.push(value);
  }
  const params: SignatureParams = {};
  for (const name of INTEGER_PARAMS) {
    if (!rawParams.has(name)) continue;
    const v = rawParams.get(name);
    if (typeof v !== 'number' || !Number.isInteger(v)) malformed(`parameter ${name} is not an integer`);
    params[name] = v;
  }
  for (const name of STRING_PARAMS) {
    if (!rawParams.has(name)) continue;
    const v = rawParams.get(name);
    if (v instanceof Token) malformed(`parameter ${name} is an unquoted token, not a string`);
    if (typeof v !== 'string') malformed(`parameter ${name} is not a string`);
    params[name] = v;
  }
  if (params.nonce !== undefined) {
    let length: number;
    try {
      length = nonceByteLength(params.nonce);
    } catch (err) {
      malformed(`nonce: ${(err as Base64Error).message}`);
    }
    if (length < MIN_NONCE_BYTES) malformed(`nonce decodes to ${length} bytes, fewer than ${MIN_NONCE_BYTES}`);
  }
  return {
    label: SIGNATURE_LABEL,
    components,
    params,
    signatureParams: parsedInputs.memberText(SIGNATURE_LABEL)!,
    signature: sig[0] as Buffer,
  };
}
