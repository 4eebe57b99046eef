/**
 * Named defects for probing a verifier: each breaks exactly one rule and targets one
 * checklist step and reason (digest 1.9; webhook codes by substitution, 1.16). The signer
 * applies them at the stage they belong to: body, components, parameters, or on the wire.
 */
import type { BinaryEncoding } from '../parse/base64.js';
import type { FailureReason, SignatureProfile, VerifyStep } from '../codes.js';
import type { SignatureParams } from '../parse/signature-headers.js';
import { PARAM_ORDER } from './signature-base.js';
import type { ProtocolIds } from '../../token.js';
import { contentDigestHeader } from '../parse/content-digest.js';

/** A request as it goes on the wire. */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

type ParamName = (typeof PARAM_ORDER)[number];
type ComponentName = '@method' | '@target-uri' | '@authority' | 'content-type' | 'content-digest';

export type DefectName =
  | 'unsigned'
  | 'signature-without-input'
  | 'input-without-signature'
  | 'malformed-input'
  | 'duplicate-label'
  | 'doubled-tag'
  | 'second-label'
  | 'extra-input-label'
  | 'standard-base64-token'
  | 'forwarded-host'
  | 'host-upper-case'
  | 'params-reordered'
  | 'unquoted-string-param'
  | 'mixed-alphabet'
  | 'base64url-in-3.2'
  | 'short-nonce'
  | 'padded-nonce'
  | 'multi-valued-content-type'
  | 'digest-multi-valued'
  | 'non-ascii-host'
  | 'covered-header-absent'
  | `missing-param:${ParamName}`
  | 'wrong-tag'
  | 'alg-not-allowed'
  | 'expired'
  | 'window-too-long'
  | 'expires-before-created'
  | 'created-in-future'
  | `drop-component:${ComponentName}`
  | 'unknown-keyid'
  | 'alg-key-mismatch'
  | 'bad-signature'
  | 'malformed-target-uri'
  | 'authority-mismatch'
  | 'host-empty'
  | 'host-broken-bracket'
  | 'host-bare-ipv6'
  | 'host-default-port'
  | 'digest-mismatch'
  | 'body-and-digest-rewritten'
  | 'duplicate-json-key';

export interface DefectInfo {
  name: DefectName;
  step: VerifyStep;
  reason: FailureReason;
  /** Encodings the defect is meaningful under (default both). */
  encodings?: readonly BinaryEncoding[];
  /** What the defect does. */
  description: string;
}

const PARAMS: readonly ParamName[] = PARAM_ORDER;
const COMPONENTS: readonly ComponentName[] = ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'];

/** Every defect with the step and reason it targets. */
export const DEFECTS: readonly DefectInfo[] = [
  { name: 'unsigned', step: 0, reason: 'required', description: 'no Signature-Input / Signature at all (operation requires a signature)' },
  { name: 'signature-without-input', step: 1, reason: 'header_malformed', description: 'Signature sent without Signature-Input' },
  { name: 'input-without-signature', step: 1, reason: 'header_malformed', description: 'Signature-Input sent without Signature' },
  { name: 'malformed-input', step: 1, reason: 'header_malformed', description: 'Signature-Input is not an RFC 8941 dictionary' },
  { name: 'duplicate-label', step: 1, reason: 'header_malformed', description: 'Signature-Input declares sig1 twice' },
  { name: 'doubled-tag', step: 1, reason: 'header_malformed', description: 'the tag parameter appears twice (same value), both signed' },
  { name: 'unquoted-string-param', step: 1, reason: 'header_malformed', description: 'keyid sent as a bare token, not a quoted string' },
  { name: 'mixed-alphabet', step: 1, reason: 'header_malformed', encodings: ['legacy'], description: 'Signature token mixes base64 and base64url alphabets' },
  {
    name: 'base64url-in-3.2',
    step: 1,
    reason: 'header_malformed',
    encodings: ['strict'],
    description: 'Signature sent as base64url under the strict sf-binary profile',
  },
  { name: 'short-nonce', step: 1, reason: 'header_malformed', description: 'nonce decodes to 8 bytes (< 16)' },
  { name: 'padded-nonce', step: 1, reason: 'header_malformed', description: 'nonce carries base64 padding' },
  { name: 'multi-valued-content-type', step: 1, reason: 'header_malformed', description: 'covered Content-Type has two values' },
  { name: 'digest-multi-valued', step: 1, reason: 'header_malformed', description: 'Content-Digest lists sha-256 twice' },
  { name: 'non-ascii-host', step: 1, reason: 'header_malformed', description: 'request URL host sent as a raw U-label' },
  { name: 'covered-header-absent', step: 1, reason: 'header_malformed', description: 'covered Content-Type removed from the request' },
  ...PARAMS.map((p): DefectInfo => ({ name: `missing-param:${p}`, step: 2, reason: 'params_incomplete', description: `parameter ${p} omitted` })),
  { name: 'wrong-tag', step: 3, reason: 'tag_invalid', description: 'tag of the other profile (request tag on a webhook and vice versa)' },
  { name: 'alg-not-allowed', step: 4, reason: 'alg_not_allowed', description: 'alg="rsa-pss-sha512"' },
  { name: 'expired', step: 5, reason: 'window_invalid', description: 'expires more than 60 s in the past' },
  { name: 'window-too-long', step: 5, reason: 'window_invalid', description: 'expires - created = 1200 s (> 300)' },
  { name: 'expires-before-created', step: 5, reason: 'window_invalid', description: 'expires equals created' },
  { name: 'created-in-future', step: 5, reason: 'window_invalid', description: 'created 120 s in the future' },
  ...COMPONENTS.map(
    (c): DefectInfo => ({
      name: `drop-component:${c}`,
      step: 6,
      reason: 'components_incomplete',
      description: `${c} not covered (content-digest: only where the digest is required)`,
    }),
  ),
  { name: 'unknown-keyid', step: 7, reason: 'key_unknown', description: 'keyid names no key in the JWKS' },
  { name: 'alg-key-mismatch', step: 8, reason: 'key_purpose_invalid', description: "signature alg differs from the JWK's algorithm" },
  { name: 'bad-signature', step: 10, reason: 'invalid', description: 'one signature byte flipped' },
  { name: 'malformed-target-uri', step: 10, reason: 'target_uri_malformed', description: 'request URL host ends in two dots' },
  { name: 'authority-mismatch', step: 10, reason: 'target_uri_malformed', description: 'Host header names another authority than the URL' },
  // Digest 1.6 step 3: malformed authorities; the signature covers the real one.
  { name: 'host-empty', step: 10, reason: 'target_uri_malformed', description: 'Host header with an empty host (:PORT, digest 1.6 step 3)' },
  {
    name: 'host-broken-bracket',
    step: 10,
    reason: 'target_uri_malformed',
    description: 'Host header [::1, an IPv6 literal without its closing bracket (digest 1.6 step 3)',
  },
  {
    name: 'host-bare-ipv6',
    step: 10,
    reason: 'target_uri_malformed',
    description: 'Host header fe80::1, an IPv6 literal without brackets (digest 1.6 step 3)',
  },
  { name: 'digest-mismatch', step: 11, reason: 'digest_mismatch', description: 'body changed after the digest was computed and signed' },
  {
    name: 'body-and-digest-rewritten',
    step: 10,
    reason: 'invalid',
    description: 'body changed after signing and Content-Digest recomputed to match it (digest 1.7)',
  },
  { name: 'duplicate-json-key', step: 14, reason: 'body_malformed', description: 'body JSON repeats a key (signed as is)' },
];

/**
 * Variations a correct verifier ACCEPTS (digest 1.3: only `sig1` is processed): the signature
 * itself stays valid, the request carries something the profile says to ignore.
 */
export interface VariationInfo {
  name: DefectName;
  /** Encodings the variation is meaningful under (default both). */
  encodings?: readonly BinaryEncoding[];
  description: string;
}

export const VARIATIONS: readonly VariationInfo[] = [
  { name: 'second-label', description: 'a second signature sig2 (Signature-Input and Signature, listed first) with garbage signature bytes' },
  { name: 'extra-input-label', description: 'an extra Signature-Input label sig2, listed first, with no Signature entry' },
  {
    name: 'params-reordered',
    description: 'signature parameters listed nonce, keyid, alg, tag, created, expires (signed as sent; the profile lists created first, digest 1.8)',
  },
  {
    name: 'forwarded-host',
    description: 'X-Forwarded-Host and Forwarded name another host (proxy routing state a verifier never reads, digest 1.6)',
  },
  {
    name: 'host-upper-case',
    description: 'the Host header carries the authority upper-cased; the signature covers the canonical lower-case host (digest 1.6 step 2)',
  },
  {
    name: 'host-default-port',
    description:
      "the Host header carries the scheme's default port (:443 for https, :80 for http) on a port-less URL; the signature covers the canonical authority without it (digest 1.6 step 4)",
  },
  {
    name: 'standard-base64-token',
    encodings: ['legacy'],
    description: 'the Signature token in padded standard base64 under the legacy profile (verifiers SHOULD decode it, digest 1.5)',
  },
];

/** Defects and variations: every name a signing call accepts. */
export const SIGNING_ALTERATIONS: readonly { name: DefectName }[] = [...DEFECTS, ...VARIATIONS];

const BY_NAME = new Map<DefectName, DefectInfo | VariationInfo>(SIGNING_ALTERATIONS.map((d) => [d.name, d as DefectInfo | VariationInfo]));

export class DefectError extends Error {
  override name = 'DefectError';
}

/** Validate defect (and variation) names. */
export function parseDefects(names: readonly string[]): (DefectInfo | VariationInfo)[] {
  return names.map((n) => {
    const d = BY_NAME.get(n as DefectName);
    if (!d) throw new DefectError(`unknown defect ${JSON.stringify(n)}; known: ${[...BY_NAME.keys()].join(', ')}`);
    return d;
  });
}

export interface WireContext {
  signature: Buffer;
  encoding: BinaryEncoding;
  /** Encoding of the Content-Digest value. */
  digestEncoding: BinaryEncoding;
  signatureParams: string;
}

export interface DefectHook {
  body?(body: Uint8Array): Uint8Array;
  components?(components: string[]): string[];
  params?(params: SignatureParams): void;
  /** The serialized `@signature-params` (signed as returned). */
  paramsText?(text: string): string;
  wire?(wire: WireRequest, ctx: WireContext): void;
}

function headerKey(h: Record<string, string>, name: string): string {
  for (const k in h) if (k.toLowerCase() === name) return k;
  return name;
}

function replaceHost(url: string, f: (host: string) => string): string {
  return url.replace(/^([a-z]+:\/\/)([^/?#:]+)/i, (_m, s: string, h: string) => s + f(h));
}

/** The port a URL connects to: its own, or its scheme's default. */
function urlPort(url: string): string {
  const u = new URL(url);
  return u.port || (u.protocol === 'https:' ? '443' : '80');
}

/** The host the `forwarded-host` variation names in proxy headers. */
export const FORWARDED_HOST = 'proxy-state.invalid';

/** A second, well-formed member describing signature `sig2` (same window, fresh nonce, real keyid). */
function secondLabelInput(signatureParams: string): string {
  const params = /\)(;.*)$/.exec(signatureParams)?.[1] ?? '';
  return `sig2=("@method" "@authority")${params.replace(/;nonce="[^"]*"/, ';nonce="c2Vjb25kLWxhYmVsLW5vbmNlLXZhbHVl"')}`;
}

/** Change a body after signing, keeping JSON valid where it is an object (a space after the brace). */
function rewriteBody(body: Uint8Array): Uint8Array {
  const at = body.indexOf(0x7b);
  if (at < 0) {
    const b = Buffer.from(body.length ? body : [0x20]);
    b[0] = b[0]! ^ 0x01;
    return b;
  }
  const out = new Uint8Array(body.length + 1);
  out.set(body.subarray(0, at + 1), 0);
  out[at + 1] = 0x20;
  out.set(body.subarray(at + 1), at + 2);
  return out;
}

/** The hooks implementing a list of defects for one signing call. */
export function defectHooks(
  defects: readonly (DefectInfo | VariationInfo)[],
  opts: { profile: SignatureProfile; ids: ProtocolIds; key: { alg: string } },
): DefectHook[] {
  return defects.map((d): DefectHook => {
    const n = d.name;
    if (n.startsWith('missing-param:')) {
      const p = n.slice('missing-param:'.length) as ParamName;
      return { params: (x) => void delete x[p] };
    }
    if (n.startsWith('drop-component:')) {
      const c = n.slice('drop-component:'.length);
      return { components: (cs) => cs.filter((x) => x !== c) };
    }
    switch (n) {
      case 'unsigned':
        return {
          wire: (w) => {
            delete w.headers.Signature;
            delete w.headers['Signature-Input'];
          },
        };
      case 'signature-without-input':
        return { wire: (w) => void delete w.headers['Signature-Input'] };
      case 'input-without-signature':
        return { wire: (w) => void delete w.headers.Signature };
      case 'malformed-input':
        return { wire: (w) => void (w.headers['Signature-Input'] = 'this is not a structured dictionary') };
      case 'duplicate-label':
        return { wire: (w, c) => void (w.headers['Signature-Input'] += `, sig1=${c.signatureParams}`) };
      case 'doubled-tag':
        return { paramsText: (t) => `${t}${/;tag="[^"]*"/.exec(t)?.[0] ?? ''}` };
      case 'second-label':
        return {
          wire: (w, c) => {
            const garbage = Buffer.alloc(c.signature.length, 0x5a);
            w.headers['Signature-Input'] = `${secondLabelInput(c.signatureParams)}, ${w.headers['Signature-Input']}`;
            w.headers.Signature = `sig2=:${c.encoding === 'strict' ? garbage.toString('base64') : garbage.toString('base64url')}:, ${w.headers.Signature}`;
          },
        };
      case 'extra-input-label':
        return { wire: (w, c) => void (w.headers['Signature-Input'] = `${secondLabelInput(c.signatureParams)}, ${w.headers['Signature-Input']}`) };
      case 'params-reordered':
        return {
          paramsText: (t) => {
            const close = t.lastIndexOf(')');
            const params = t
              .slice(close + 1)
              .split(';')
              .filter(Boolean);
            const late = (p: string) => p.startsWith('created=') || p.startsWith('expires=');
            return `${t.slice(0, close + 1)};${[...params.filter((p) => !late(p)), ...params.filter(late)].join(';')}`;
          },
        };
      case 'forwarded-host':
        return {
          wire: (w) => {
            w.headers['X-Forwarded-Host'] = FORWARDED_HOST;
            w.headers.Forwarded = `host=${FORWARDED_HOST};proto=https`;
          },
        };
      case 'host-upper-case':
        return { wire: (w) => void (w.headers.Host = (/^[a-z]+:\/\/([^/?#]+)/i.exec(w.url)?.[1] ?? '').toUpperCase()) };
      case 'standard-base64-token':
        return { wire: (w, c) => void (w.headers.Signature = `sig1=:${c.signature.toString('base64')}:`) };
      case 'unquoted-string-param':
        return { wire: (w) => void (w.headers['Signature-Input'] = w.headers['Signature-Input']!.replace(/;keyid="([^"]*)"/, ';keyid=$1')) };
      case 'mixed-alphabet':
        return {
          wire: (w, c) => {
            const url = c.signature.toString('base64url');
            const token = /[-_]/.test(url) ? `${url}==` : `-${c.signature.toString('base64').slice(1)}`;
            w.headers.Signature = `sig1=:${token}:`;
          },
        };
      case 'base64url-in-3.2':
        return {
          wire: (w, c) => {
            let sig = c.signature;
            // A base64url token must show a '-' or '_' to be distinguishable; flip bits until it does.
            for (let i = 0; !/[-_]/.test(sig.toString('base64url')) && i < 64; i++) {
              sig = Buffer.from(sig);
              sig[i] = sig[i]! | 0xfc;
            }
            w.headers.Signature = `sig1=:${sig.toString('base64url')}:`;
          },
        };
      case 'short-nonce':
        return { params: (p) => void (p.nonce = 'c2hvcnRub24') };
      case 'padded-nonce':
        return { params: (p) => void (p.nonce = `${p.nonce}==`) };
      case 'multi-valued-content-type':
        return { wire: (w) => void (w.headers[headerKey(w.headers, 'content-type')] += ', text/plain') };
      case 'digest-multi-valued':
        return {
          wire: (w) => {
            const k = headerKey(w.headers, 'content-digest');
            w.headers[k] = `${w.headers[k]}, ${w.headers[k]}`;
          },
        };
      case 'non-ascii-host':
        return { wire: (w) => void (w.url = replaceHost(w.url, (h) => `ü${h}`)) };
      case 'covered-header-absent':
        return { wire: (w) => void delete w.headers[headerKey(w.headers, 'content-type')] };
      case 'wrong-tag':
        return { params: (p) => void (p.tag = opts.profile === 'webhook' ? opts.ids.requestSigningTag : opts.ids.webhookSigningTag) };
      case 'alg-not-allowed':
        return { params: (p) => void (p.alg = 'rsa-pss-sha512') };
      case 'expired':
        return {
          params: (p) => {
            p.created = p.created! - 600;
            p.expires = p.created + 300;
          },
        };
      case 'window-too-long':
        return { params: (p) => void (p.expires = p.created! + 1200) };
      case 'expires-before-created':
        return { params: (p) => void (p.expires = p.created) };
      case 'created-in-future':
        return {
          params: (p) => {
            p.created = p.created! + 120;
            p.expires = p.created + 300;
          },
        };
      case 'unknown-keyid':
        return { params: (p) => void (p.keyid = `${p.keyid}-unknown`) };
      case 'alg-key-mismatch':
        return { params: (p) => void (p.alg = opts.key.alg === 'ed25519' ? 'ecdsa-p256-sha256' : 'ed25519') };
      case 'bad-signature':
        return {
          wire: (w, c) => {
            const sig = Buffer.from(c.signature);
            sig[0] = sig[0]! ^ 0x01;
            w.headers.Signature = `sig1=:${c.encoding === 'strict' ? sig.toString('base64') : sig.toString('base64url')}:`;
          },
        };
      case 'malformed-target-uri':
        return { wire: (w) => void (w.url = replaceHost(w.url, (h) => `${h}..`)) };
      case 'authority-mismatch':
        return { wire: (w) => void (w.headers.Host = 'other.invalid') };
      case 'host-empty':
        return { wire: (w) => void (w.headers.Host = `:${urlPort(w.url)}`) };
      case 'host-broken-bracket':
        return { wire: (w) => void (w.headers.Host = '[::1') };
      case 'host-bare-ipv6':
        return { wire: (w) => void (w.headers.Host = 'fe80::1') };
      case 'host-default-port':
        return {
          wire: (w) => {
            const u = new URL(w.url);
            if (u.port !== '') throw new DefectError('host-default-port needs a URL without an explicit port');
            w.headers.Host = `${u.host}:${urlPort(w.url)}`;
          },
        };
      case 'digest-mismatch':
        return {
          wire: (w) => {
            const b = Buffer.from(w.body);
            b[b.length - 2] = b[b.length - 2] === 0x31 ? 0x32 : 0x31;
            w.body = b;
          },
        };
      case 'body-and-digest-rewritten':
        return {
          wire: (w, c) => {
            w.body = rewriteBody(w.body);
            const k = headerKey(w.headers, 'content-digest');
            if (w.headers[k] !== undefined) w.headers[k] = contentDigestHeader(w.body, c.digestEncoding);
          },
        };
      case 'duplicate-json-key':
        return {
          body: (b) => {
            const text = new TextDecoder().decode(b);
            if (!text.startsWith('{')) throw new DefectError('duplicate-json-key needs a JSON object body');
            return new TextEncoder().encode(`{"dup":1,"dup":2${text.length > 2 ? ',' : ''}${text.slice(1)}`);
          },
        };
      default:
        throw new DefectError(`defect ${n} has no implementation`);
    }
  });
}
