/**
 * Requests for the differential test of the verifier's two paths (fast/differential.test.ts):
 * validly signed requests (Ed25519 and ES256; request 3.1 / 3.2 and webhook profiles; with and
 * without Content-Digest) built from a description that fast-check generates and mutates, then
 * signed, then sometimes mutated again on the wire.
 *
 * Mutations before signing reach the later steps (the signature still verifies over whatever
 * the headers say): component lists, parameter values, order, duplicates and spelling, extra
 * labels and parameters, whitespace, bodies (duplicate keys, invalid JSON, unicode, invalid
 * UTF-8), URLs (ports, dots, percent-encoding, IPv6, IDN, query). The `@signature-params` line
 * is signed either as sent or as the reference parser re-serializes it. Mutations after
 * signing (header bytes, signature alphabets and padding, the received URL and Host) test the
 * parsers' and canonicalizers' verdicts on input the signer never saw.
 *
 * Nothing here decides what a verdict should be: the test only compares the two paths.
 */
import fc from 'fast-check';
import type { BinaryEncoding } from '../parse/base64.js';
import { digestBytes } from '../parse/content-digest.js';
import { parseStrictDictionaryWithText } from '../parse/structured-fields.js';
import { canonicalizeTargetUri, type CanonicalTarget } from '../parse/target-uri.js';
import { buildSignatureBase } from '../sign/signature-base.js';
import { signBytes } from '../verify/crypto-verify.js';
import type { SignatureProfile } from '../codes.js';
import type { Jwk, SignatureAlg } from '../keys/keys.js';
import type { ReceivedRequest } from '../verify/verifier-types.js';
import {
  applyEdit,
  badBody,
  badUrl,
  goodBody,
  type TextEdit,
  textEdit,
  token,
  type TokenForm,
  URL_CHANGES,
  type UrlChange,
  urlOf,
  validUrl,
} from './differential-inputs.js';
import { ids, NOW, signingKey } from './verifier-setup.js';
import { loadKeySet } from '../vectors/loader.js';
import { fileURLToPath } from 'node:url';

export interface DiffSetup {
  profile: SignatureProfile;
  encoding: BinaryEncoding;
}

/**
 * The keys the verifier knows, from the project's test-only fixtures (fixed keys, so a seed
 * reproduces a case; ES256 signatures still differ run to run): Ed25519, ES256, and an
 * Ed25519 key without a purpose.
 */
const FIXTURE_KEYS = loadKeySet(fileURLToPath(new URL('../../../../fixtures/signing/', import.meta.url)));
export const DIFF_KEYS: readonly Jwk[] = ['own-ed25519-2026', 'own-es256-2026', 'own-webhook-no-purpose-2026'].map((kid) => {
  const jwk = FIXTURE_KEYS.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`fixtures/signing/keys.json has no ${kid}`);
  return jwk;
});
const SIGNERS = DIFF_KEYS.map((jwk) => ({ kid: jwk.kid!, key: signingKey(jwk) }));

/** One generated case: the request as received, and how the verifier is set up for it. */
export interface DiffCase {
  setup: DiffSetup;
  request: ReceivedRequest;
  /** Request profile: the endpoint's `covers_content_digest`. */
  digestPolicy: 'required' | 'either' | 'forbidden';
  /** Request profile: the operation is in `required_for`; a fallback credential was presented. */
  required: boolean;
  fallbackAuthenticated: boolean;
  checkBody: boolean;
  revocation: 'none' | 'ok' | 'revoked' | 'stale';
  /** Per-keyid replay cap (1 makes a second verification of the same keyid hit 9a). */
  replayCap: number;
  /** Verify the same request a second time on the same stores (replay). */
  twice: boolean;
}

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// The case: its variety (always random), and fields with usual values and mutants.

const PARAM_NAMES = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'] as const;
type ParamName = (typeof PARAM_NAMES)[number];
type Header = 'signature-input' | 'signature' | 'content-digest' | 'content-type';

const VARIETY = {
  setup: fc.constantFrom<DiffSetup>(
    { profile: 'request', encoding: 'legacy' },
    { profile: 'request', encoding: 'strict' },
    { profile: 'webhook', encoding: 'legacy' },
  ),
  method: fc.constantFrom('POST', 'post', 'GET', 'Put'),
  receivedMethodLower: fc.boolean(),
  stringBody: fc.boolean(),
  headerNames: fc.constantFrom<'lower' | 'mixed' | 'both'>('lower', 'lower', 'mixed', 'both'),
  signOver: fc.constantFrom<'sent' | 'reserialized'>('reserialized', 'sent'),
  twice: fc.boolean(),
  required: fc.boolean(),
  fallbackAuthenticated: fc.boolean(),
  createdOffset: fc.constantFrom(-10, 0, -100, 60),
  window: fc.constantFrom(300, 60, 1),
  nonceBytes: fc.uint8Array({ minLength: 16, maxLength: 24 }),
};

/** [usual, mutant] per field. */
const FIELDS = {
  url: [validUrl, badUrl],
  receivedUrl: [fc.constant<UrlChange | undefined>(undefined), fc.constantFrom<UrlChange | undefined>(...URL_CHANGES)],
  host: [fc.constantFrom<string>('canonical', 'canonical', 'none', 'raw'), fc.constantFrom('other', 'two', 'padded')],
  h2Authority: [fc.constantFrom<string>('none', 'none', 'same'), fc.constant('other')],
  body: [goodBody, badBody],
  bodyFlip: [fc.constant(false), fc.constant(true)],
  contentType: [
    fc.constantFrom<string | string[] | undefined>(
      'application/json',
      ' application/json ',
      'application/json; charset=utf-8',
      ['application/json'],
      'multipart/form-data; boundary="a,b"',
      // as node:http hands over non-ASCII bytes (latin1), long enough to pass the scratch buffer
      `application/json; p=${'\u00e9'.repeat(9_000)}`,
    ),
    fc.constantFrom<string | string[] | undefined>('application/json, text/plain', ['application/json', 'text/plain'], undefined),
  ],
  coverDigest: [fc.constant<boolean | undefined>(undefined), fc.boolean()],
  digestAlgs: [
    fc.constantFrom(['sha-256'], ['sha-256'], ['sha-512'], ['sha-256', 'sha-512']),
    fc.constantFrom(['sha-256', 'sha-256'], ['md5'], ['sha-512', 'md5'], []),
  ],
  digestForm: [
    fc.constant<TokenForm | 'main'>('main'),
    fc.constantFrom<TokenForm | 'main'>('url', 'std', 'std-nopad', 'url-pad', 'mixed', 'noncanonical', 'truncated'),
  ],
  digestOfOtherBody: [fc.constant(false), fc.constant(true)],
  digestMemberParam: [fc.constant(false), fc.constant(true)],
  digestHeaderMissing: [fc.constant(false), fc.constant(true)],
  createdOffset: [fc.constant<number | undefined>(undefined), fc.constantFrom(61, 120, -400, -1000)],
  window: [fc.constant<number | undefined>(undefined), fc.constantFrom(0, -5, 301, 600)],
  nonceBytes: [fc.constant<Uint8Array | undefined>(undefined), fc.uint8Array({ maxLength: 15 })],
  nonceForm: [fc.constant<TokenForm | 'token'>('url'), fc.constantFrom<TokenForm | 'token'>('std', 'url-pad', 'noncanonical', 'token', 'empty')],
  keyid: [
    fc.constant<string | undefined>(undefined),
    fc.constantFrom('k-unknown', 'OWN-ED25519-2026', 'own-webhook-no-purpose-2026', 'own-es256-2026', 'own-ed25519-2026', 'a"b', 'a\\b', ''),
  ],
  alg: [fc.constant<string | undefined>(undefined), fc.constantFrom('ed25519', 'ecdsa-p256-sha256', 'ED25519', 'rsa-pss-sha512', 'hmac-sha256', '')],
  tag: [
    fc.constant<string | undefined>(undefined),
    fc.constantFrom(ids.requestSigningTag, ids.webhookSigningTag, ids.requestSigningTag.toUpperCase(), `${ids.requestSigningTag}x`, ''),
  ],
  intSpelling: [fc.constant('plain'), fc.constantFrom('leading-zero', 'string', 'decimal', 'negative')],
  dropParam: [fc.constant<ParamName | undefined>(undefined), fc.constantFrom<ParamName | undefined>(...PARAM_NAMES)],
  duplicateParam: [fc.constant<ParamName | undefined>(undefined), fc.constantFrom<ParamName | undefined>(...PARAM_NAMES)],
  tokenParam: [fc.constant<ParamName | undefined>(undefined), fc.constantFrom<ParamName | undefined>(...PARAM_NAMES)],
  shuffleParams: [fc.constant<number[] | undefined>(undefined), fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 6, maxLength: 6 })],
  extraParams: [
    fc.constant<string[]>([]),
    fc.array(
      fc.constantFrom(
        'x="y"',
        'x=1',
        'x=?1',
        'x=?0',
        'x=tok',
        'x=:AA==:',
        'x=:AA:',
        'x=:-_8:',
        'x=:+/8=:',
        'x=1.5',
        'x=1.0',
        'x=@1776520800',
        'x=%"caf%c3%a9"',
        'x="a\\"b"',
        'y',
      ),
      { minLength: 1, maxLength: 2 },
    ),
  ],
  spaceAfterSemicolon: [fc.constant(false), fc.constant(true)],
  extraComponent: [
    fc.constant<string | undefined>(undefined),
    fc.constantFrom('"authorization"', '"x-custom"', '"@path"', '"X-Upper"', 'method', '"@method";req', '"content-type";sf', '""', '"@query"'),
  ],
  dropComponent: [fc.constant<number | undefined>(undefined), fc.nat({ max: 4 })],
  duplicateComponent: [fc.constant<number | undefined>(undefined), fc.nat({ max: 4 })],
  shuffleComponents: [fc.constant(false), fc.constant(true)],
  spacing: [fc.constant('canonical'), fc.constantFrom('inner-spaces', 'double-spaces', 'leading', 'trailing-ows')],
  label: [fc.constant('sig1'), fc.constantFrom('sig2', 'SIG1', 'sig10', '*sig1')],
  otherMembers: [fc.constantFrom('none', 'none', 'none', 'before', 'after', 'split-lines'), fc.constant('duplicate-label')],
  signatureForm: [
    fc.constant<TokenForm | 'main'>('main'),
    fc.constantFrom<TokenForm | 'main'>('url', 'std', 'std-nopad', 'url-pad', 'mixed', 'noncanonical', 'truncated', 'empty'),
  ],
  signatureFlip: [fc.constant(false), fc.constant(true)],
  signatureExtra: [fc.constantFrom('none', 'none', 'none', 'other-label'), fc.constantFrom('param', 'inner-list', 'token', 'only-other-label')],
  signer: [fc.constantFrom(0, 1), fc.constant(2)],
  claimedAlg: [fc.constant<SignatureAlg | undefined>(undefined), fc.constantFrom<SignatureAlg | undefined>('ed25519', 'ecdsa-p256-sha256')],
  drop: [fc.constant<string | undefined>(undefined), fc.constantFrom<string | undefined>('input', 'signature', 'both')],
  wire: [
    fc.constant<{ header: Header; edit: TextEdit } | undefined>(undefined),
    fc.record({ header: fc.constantFrom<Header>('signature-input', 'signature', 'content-digest', 'content-type'), edit: textEdit }),
  ],
  digestPolicy: [fc.constantFrom<DiffCase['digestPolicy']>('required', 'either'), fc.constant<DiffCase['digestPolicy']>('forbidden')],
  checkBody: [fc.constant(true), fc.constant(false)],
  revocation: [fc.constantFrom<DiffCase['revocation']>('none', 'ok'), fc.constantFrom<DiffCase['revocation']>('revoked', 'stale')],
  replayCap: [fc.constant(1000), fc.constant(1)],
} as const;

type FieldName = keyof typeof FIELDS;
type Value<A> = A extends fc.Arbitrary<infer T> ? T : never;
type Choices = { [K in FieldName]: Value<(typeof FIELDS)[K][0]> | Value<(typeof FIELDS)[K][1]> } & {
  variety: { [K in keyof typeof VARIETY]: Value<(typeof VARIETY)[K]> };
};

const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];
const usualValues = fc.record(Object.fromEntries(FIELD_NAMES.map((k) => [k, FIELDS[k][0]])) as { [K in FieldName]: (typeof FIELDS)[K][0] });
/** One mutated field and its mutant value. */
const mutation = fc.oneof(...FIELD_NAMES.map((k) => (FIELDS[k][1] as fc.Arbitrary<unknown>).map((v): [FieldName, unknown] => [k, v])));
/** The fields mutated in one case: none (a valid request), one, or a few. */
const mutations = fc.oneof(
  { weight: 3, arbitrary: fc.constant<[FieldName, unknown][]>([]) },
  { weight: 5, arbitrary: mutation.map((m) => [m]) },
  { weight: 2, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
);

const caseChoices: fc.Arbitrary<Choices> = fc.tuple(fc.record(VARIETY), usualValues, mutations).map(([variety, usual, changes]) => {
  const c = { ...usual, variety } as Record<string, unknown>;
  for (const [k, v] of changes) c[k] = v;
  return c as Choices;
});

// ---------------------------------------------------------------------------------------------
// Building a request from the choices.

function paramEntries(c: Choices, signerKid: string, alg: SignatureAlg, profile: SignatureProfile): string[] {
  const created = NOW + (c.createdOffset ?? c.variety.createdOffset);
  const expires = created + (c.window ?? c.variety.window);
  const int = (n: number) => {
    switch (c.intSpelling) {
      case 'leading-zero':
        return `0${n}`;
      case 'string':
        return `"${n}"`;
      case 'decimal':
        return `${n}.0`;
      case 'negative':
        return `-${n}`;
      default:
        return String(n);
    }
  };
  const nonceBytes = c.nonceBytes ?? c.variety.nonceBytes;
  const nonce =
    c.nonceForm === 'token'
      ? Buffer.from(nonceBytes)
          .toString('base64url')
          .replace(/^[^A-Za-z]*/, 'n')
      : `"${token(nonceBytes, c.nonceForm)}"`;
  const values: Record<ParamName, string> = {
    created: int(created),
    expires: c.intSpelling === 'negative' ? String(expires) : int(expires),
    nonce,
    keyid: `"${(c.keyid ?? signerKid).replace(/[\\"]/g, (m) => `\\${m}`)}"`,
    alg: `"${c.alg ?? alg}"`,
    tag: `"${c.tag ?? (profile === 'webhook' ? ids.webhookSigningTag : ids.requestSigningTag)}"`,
  };
  if (c.tokenParam !== undefined && values[c.tokenParam].startsWith('"')) {
    const bare = values[c.tokenParam].slice(1, -1);
    if (/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+.^_`|~-]*$/.test(bare)) values[c.tokenParam] = bare;
  }
  let names: ParamName[] = c.shuffleParams ? c.shuffleParams.map((i) => PARAM_NAMES[i]!) : [...PARAM_NAMES];
  if (c.dropParam !== undefined) names = names.filter((n) => n !== c.dropParam);
  const out = names.map((n) => `${n}=${values[n]}`);
  if (c.duplicateParam !== undefined) out.push(`${c.duplicateParam}=${values[c.duplicateParam]}`);
  return [...out, ...c.extraParams];
}

function componentItems(c: Choices, hasBody: boolean, coverDigest: boolean): string[] {
  const items = ['"@method"', '"@target-uri"', '"@authority"'];
  if (hasBody) items.push('"content-type"');
  if (coverDigest) items.push('"content-digest"');
  if (c.dropComponent !== undefined) items.splice(c.dropComponent % items.length, 1);
  if (c.duplicateComponent !== undefined && items.length > 0) items.push(items[c.duplicateComponent % items.length]!);
  if (c.extraComponent !== undefined) items.push(c.extraComponent);
  if (c.shuffleComponents) items.reverse();
  return items;
}

function innerList(items: string[], spacing: string): string {
  if (spacing === 'inner-spaces') return `( ${items.join(' ')} )`;
  if (spacing === 'double-spaces') return `(${items.join('  ')})`;
  return `(${items.join(' ')})`;
}

const mainForm = (encoding: BinaryEncoding): TokenForm => (encoding === 'strict' ? 'std' : 'url');

/** The Content-Digest header value (or undefined when none is sent). */
function contentDigest(c: Choices, bytes: Uint8Array, encoding: BinaryEncoding): string | undefined {
  if (c.digestHeaderMissing) return undefined;
  const of = c.digestOfOtherBody ? encoder.encode('{"other":true}') : bytes;
  const form = c.digestForm === 'main' ? mainForm(encoding) : c.digestForm;
  return c.digestAlgs
    .map((alg) => {
      const digest = alg === 'md5' ? new Uint8Array(16) : digestBytes(of, alg as 'sha-256' | 'sha-512');
      return `${alg}=:${token(digest, form)}:${c.digestMemberParam ? ';x=1' : ''}`;
    })
    .join(', ');
}

function canonicalOrUndefined(url: string): CanonicalTarget | undefined {
  try {
    return canonicalizeTargetUri(url, { allowUnicodeHost: true });
  } catch {
    return undefined;
  }
}

function headerValueFor(headers: Record<string, string | string[]>, name: string): string {
  const v = headers[name];
  if (v === undefined) return '';
  return (Array.isArray(v) ? v.join(', ') : v).trim();
}

/** Signature-Input: the text, its lines, and the sig1 member's value as written. */
function signatureInput(c: Choices, items: string[], params: string[]): { text: string; lines: string[]; member: string } {
  const member = `${innerList(items, c.spacing)}${params.join('')}`;
  const sig1 = `${c.label}=${member}`;
  const lines =
    c.otherMembers === 'before'
      ? ['sig0=("@method");created=1', sig1]
      : c.otherMembers === 'after'
        ? [sig1, 'sig2=("@authority");keyid="other"']
        : c.otherMembers === 'duplicate-label'
          ? [sig1, `${c.label}=("@method")`]
          : c.otherMembers === 'split-lines'
            ? [sig1, 'sig2=()']
            : [sig1];
  let text = lines.join(c.spacing === 'trailing-ows' ? ' ,\t' : ', ');
  if (c.spacing === 'leading') text = `  ${text}`;
  if (c.spacing === 'trailing-ows') text = `${text} `;
  return { text, lines, member };
}

function signatureField(c: Choices, sigToken: string): string {
  const sig1 = `${c.label}=:${sigToken}:`;
  switch (c.signatureExtra) {
    case 'param':
      return `${sig1};x=1`;
    case 'other-label':
      return `sig0=:AAAA:, ${sig1}`;
    case 'inner-list':
      return `${c.label}=(:${sigToken}:)`;
    case 'token':
      return `${c.label}=abc`;
    case 'only-other-label':
      return `sig9=:${sigToken}:`;
    default:
      return sig1;
  }
}

/** Build, sign and mutate one request. */
function buildCase(c: Choices): DiffCase {
  const { setup, method } = c.variety;
  const webhook = setup.profile === 'webhook';
  const signer = SIGNERS[c.signer]!;
  const alg: SignatureAlg = c.claimedAlg ?? signer.key.alg;
  const bytes = c.body;
  const hasBody = bytes.length > 0 || webhook;
  const coverDigest = c.coverDigest ?? (webhook || bytes.length > 0);

  // Header fields other than the signature pair.
  const headers: Record<string, string | string[]> = {};
  if (c.contentType !== undefined) headers['content-type'] = c.contentType;
  const digest = contentDigest(c, bytes, setup.encoding);
  if (digest !== undefined && (coverDigest || bytes.length > 0)) headers['content-digest'] = digest;
  if (c.extraComponent === '"authorization"') headers.authorization = 'Bearer t';

  // Signature-Input, and the base the signer signs: `@signature-params` as written, or as the
  // reference parser re-serializes it.
  const items = componentItems(c, hasBody, coverDigest);
  const params = paramEntries(c, signer.kid, alg, setup.profile).map((p) => `;${c.spaceAfterSemicolon ? ' ' : ''}${p}`);
  const input = signatureInput(c, items, params);
  const signedUrl = urlOf(c.url);
  const target = canonicalOrUndefined(signedUrl);
  let signatureParams = input.member;
  if (c.variety.signOver === 'reserialized') {
    try {
      signatureParams = parseStrictDictionaryWithText(input.text, setup.encoding).memberText(c.label) ?? input.member;
    } catch {
      // unparseable: sign what was written
    }
  }
  const names = [...new Set(items.map((i) => (i.startsWith('"') ? i.slice(1, i.indexOf('"', 1)) : i)))];
  const values = new Map<string, string>([
    ['@method', method.toUpperCase()],
    ['@target-uri', target?.targetUri ?? signedUrl],
    ['@authority', target?.authority ?? c.url.host],
  ]);
  for (const n of names) if (!values.has(n)) values.set(n, headerValueFor(headers, n));
  const signature = signBytes(signer.key.alg, signer.key.privateKey, encoder.encode(buildSignatureBase(names, values, signatureParams)));
  if (c.signatureFlip) signature[10]! ^= 0x01;
  const sigToken = token(signature, c.signatureForm === 'main' ? mainForm(setup.encoding) : c.signatureForm);
  if (c.drop !== 'input' && c.drop !== 'both') headers['signature-input'] = c.otherMembers === 'split-lines' ? input.lines : input.text;
  if (c.drop !== 'signature' && c.drop !== 'both') headers.signature = signatureField(c, sigToken);

  // After signing: the wire.
  if (c.wire !== undefined) {
    const v = headers[c.wire.header];
    if (v !== undefined) headers[c.wire.header] = applyEdit(Array.isArray(v) ? v.join(', ') : v, c.wire.edit);
  }
  const receivedParts = c.receivedUrl ? c.receivedUrl(c.url) : c.url;
  const receivedTarget = canonicalOrUndefined(urlOf(receivedParts));
  const authority = receivedTarget?.authority ?? `${receivedParts.host}${receivedParts.port}`;
  if (c.host === 'canonical') headers.host = authority;
  else if (c.host === 'raw') headers.host = `${receivedParts.host}${receivedParts.port}`;
  else if (c.host === 'other') headers.host = 'other.example.com';
  else if (c.host === 'two') headers.host = [authority, authority];
  else if (c.host === 'padded') headers.host = ` ${authority} `;
  const receivedBody = c.bodyFlip && bytes.length > 0 ? Uint8Array.from(bytes, (b, i) => (i === 0 ? b ^ 0x20 : b)) : bytes;
  const request: ReceivedRequest = {
    method: c.variety.receivedMethodLower ? method.toLowerCase() : method,
    url: urlOf(receivedParts),
    headers: renameHeaders(headers, c.variety.headerNames),
    body: c.variety.stringBody ? new TextDecoder().decode(receivedBody) : receivedBody,
    ...(c.h2Authority === 'none' ? {} : { authority: c.h2Authority === 'same' ? authority : 'other.example.com' }),
  };
  return {
    setup,
    request,
    digestPolicy: c.digestPolicy,
    required: c.variety.required,
    fallbackAuthenticated: c.variety.fallbackAuthenticated,
    checkBody: c.checkBody,
    revocation: c.revocation,
    replayCap: c.replayCap,
    twice: c.variety.twice,
  };
}

/** Header names as a server hands them over (lower case), as a client wrote them, or both. */
function renameHeaders(headers: Record<string, string | string[]>, style: 'lower' | 'mixed' | 'both'): Record<string, string | string[]> {
  if (style === 'lower') return headers;
  const mixed = (n: string) => n.replace(/(^|-)([a-z])/g, (_m, d: string, ch: string) => d + ch.toUpperCase());
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (style === 'both' && Array.isArray(value) && value.length > 1) {
      out[name] = value[0]!;
      out[mixed(name)] = value.slice(1);
    } else out[mixed(name)] = value;
  }
  return out;
}

/** Generated cases, signed and mutated. */
export const diffCase: fc.Arbitrary<DiffCase> = caseChoices.map(buildCase);
