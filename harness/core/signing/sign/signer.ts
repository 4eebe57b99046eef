/**
 * The signer: RFC 9421 signatures for the request and webhook profiles, Ed25519 or ECDSA
 * P-256 (IEEE P1363 r||s), parameters created/expires/nonce/keyid/alg/tag, covered components
 * per profile, and named defects (defects.ts) that break exactly one checklist rule.
 */
import { randomBytes } from 'node:crypto';
import type { ProtocolIds } from '../../token.js';
import { encodeBinary, type BinaryEncoding } from '../parse/base64.js';
import type { SignatureProfile } from '../codes.js';
import { contentDigestHeader } from '../parse/content-digest.js';
import { signBytes } from '../verify/crypto-verify.js';
import { defectHooks, parseDefects, type DefectName, type WireRequest } from './defects.js';
import type { SigningKey } from '../keys/keys.js';
import { buildSignatureBase, serializeSignatureParams } from './signature-base.js';
import type { SignatureParams } from '../parse/signature-headers.js';
import { SIGNATURE_LABEL } from '../parse/signature-headers.js';
import { canonicalizeTargetUri } from '../parse/target-uri.js';

export interface SignInput {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

export interface SignOptions {
  profile: SignatureProfile;
  ids: ProtocolIds;
  key: SigningKey;
  /** `strict` for the 3.2 request profile; `legacy` (default) for 3.1 requests and webhooks. */
  encoding?: BinaryEncoding;
  /** Unix seconds; defaults to `now()`. */
  created?: number;
  /** Defaults to created + 300. */
  expires?: number;
  /** Defaults to 16 random bytes, unpadded base64url. */
  nonce?: string;
  /** Encoding of the Content-Digest value; defaults to `encoding` (webhook senders often pad it). */
  digestEncoding?: BinaryEncoding;
  /** Cover content-digest; default true for webhooks and for requests with a body. */
  coverContentDigest?: boolean;
  /** Extra covered header fields, by prior coordination only (e.g. `authorization`). */
  extraComponents?: string[];
  /** Clock for `created`, unix seconds. */
  now?: () => number;
  /** Deliberate defects for probing, each breaking one checklist rule. */
  defects?: readonly DefectName[];
}

export interface SignedRequest extends WireRequest {
  /** The signature base that was signed. */
  signatureBase: string;
  params: SignatureParams;
  components: string[];
}

export const DEFAULT_WINDOW_SECONDS = 300;
const encoder = new TextEncoder();

function findHeader(headers: Record<string, string>, name: string): string | undefined {
  for (const k in headers) if (k.toLowerCase() === name) return k;
  return undefined;
}

export function randomNonce(): string {
  return randomBytes(16).toString('base64url');
}

export function signRequest(input: SignInput, opts: SignOptions): SignedRequest {
  const hooks = defectHooks(parseDefects(opts.defects ?? []), opts);
  const encoding = opts.encoding ?? 'legacy';
  const webhook = opts.profile === 'webhook';
  let body = typeof input.body === 'string' ? encoder.encode(input.body) : (input.body ?? new Uint8Array());
  for (const h of hooks) if (h.body) body = h.body(body);
  const headers: Record<string, string> = { ...(input.headers ?? {}) };
  const hasBody = body.length > 0 || webhook;
  if (hasBody && findHeader(headers, 'content-type') === undefined) headers['Content-Type'] = 'application/json';
  const coverDigest = opts.coverContentDigest ?? (webhook || body.length > 0);
  if (coverDigest) {
    const existing = findHeader(headers, 'content-digest');
    if (existing) delete headers[existing];
    headers['Content-Digest'] = contentDigestHeader(body, opts.digestEncoding ?? encoding);
  }
  let components = ['@method', '@target-uri', '@authority'];
  if (hasBody) components.push('content-type');
  if (coverDigest) components.push('content-digest');
  components.push(...(opts.extraComponents ?? []));
  for (const h of hooks) if (h.components) components = h.components(components);

  const created = opts.created ?? Math.floor(opts.now?.() ?? Date.now() / 1000);
  const params: SignatureParams = {
    created,
    expires: opts.expires ?? created + DEFAULT_WINDOW_SECONDS,
    nonce: opts.nonce ?? randomNonce(),
    keyid: opts.key.kid,
    alg: opts.key.alg,
    tag: webhook ? opts.ids.webhookSigningTag : opts.ids.requestSigningTag,
  };
  for (const h of hooks) h.params?.(params);

  const target = canonicalizeTargetUri(input.url, { allowUnicodeHost: true });
  const method = input.method.toUpperCase();
  let signatureParams = serializeSignatureParams(components, params);
  for (const h of hooks) if (h.paramsText) signatureParams = h.paramsText(signatureParams);
  const values = new Map<string, string>([
    ['@method', method],
    ['@target-uri', target.targetUri],
    ['@authority', target.authority],
  ]);
  for (const c of components) {
    if (c.startsWith('@')) continue;
    const k = findHeader(headers, c);
    if (k === undefined) throw new Error(`cannot sign: covered header ${c} is absent`);
    values.set(c, headers[k]!.trim());
  }
  const base = buildSignatureBase(components, values, signatureParams);
  const signature = signBytes(opts.key.alg, opts.key.privateKey, encoder.encode(base));
  headers['Signature-Input'] = `${SIGNATURE_LABEL}=${signatureParams}`;
  headers.Signature = `${SIGNATURE_LABEL}=:${encodeBinary(signature, encoding)}:`;
  const wire: WireRequest = { method: input.method, url: input.url, headers, body };
  for (const h of hooks) h.wire?.(wire, { signature, encoding, digestEncoding: opts.digestEncoding ?? encoding, signatureParams });
  return { ...wire, signatureBase: base, params, components };
}
