/**
 * Signs the exact outgoing request as the harness's test counterparty (as suites/signatures does:
 * legacy binary encoding, Ed25519 key) and applies one mutation. Parameter mutations are signed
 * over (the signature stays valid for what was sent), so only the mutated rule is broken.
 */
import { randomBytes } from 'node:crypto';
import { counterpartyKeys } from '../../core/signing/keys/counterparty.js';
import { decodeBinary, encodeBinary } from '../../core/signing/parse/base64.js';
import type { DefectName } from '../../core/signing/sign/defects.js';
import { type SignOptions, signRequest } from '../../core/signing/sign/signer.js';
import type { ProtocolIds } from '../../core/token.js';
import type { OutgoingRequest } from '../../core/transport/types.js';
import type { DigestPolicy, Mutation, Probe } from './mutations.js';

function authorityOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  const authority = m?.[1] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

function mutatedTag(tag: string, variant: Extract<Mutation, { kind: 'tag' }>['variant'], ids: ProtocolIds): string {
  switch (variant) {
    case 'upper-case':
      return tag.toUpperCase();
    case 'suffix':
      return `${tag}x`;
    case 'prefix':
      return `x${tag}`;
    case 'v2':
      return tag.replace(/v1$/, 'v2');
    case 'truncated':
      return tag.slice(0, -1);
    case 'webhook':
      return ids.webhookSigningTag;
  }
}

function mutatedKid(kid: string, m: Extract<Mutation, { kind: 'keyid' }>): string {
  switch (m.variant) {
    case 'suffix':
      return `${kid}-${m.salt}`;
    case 'prefix':
      return `x${m.salt}-${kid}`;
    case 'upper-case':
      return kid.toUpperCase() === kid ? `${kid}X` : kid.toUpperCase();
    case 'random':
      return `pcfz-unknown-${m.salt}`;
  }
}

/** Whitespace added where JSON allows it: the body stays valid, the digest no longer matches (step 11). */
function reshapeBody(body: Uint8Array, where: Extract<Mutation, { kind: 'digest-mismatch' }>['where']): Uint8Array {
  const text = new TextDecoder().decode(body);
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  const out =
    where === 'leading'
      ? ` ${text}`
      : where === 'trailing'
        ? `${text}\n`
        : where === 'after-open'
          ? `${text.slice(0, open + 1)} ${text.slice(open + 1)}`
          : `${text.slice(0, close)} ${text.slice(close)}`;
  return new TextEncoder().encode(out);
}

/** A `prepare` hook: sign the request as sent, then apply the probe's mutation (undefined: a valid Ed25519 signature). */
export function mutatedSigning(ids: ProtocolIds, policy: DigestPolicy, probe?: Probe): (req: OutgoingRequest) => OutgoingRequest {
  const keys = counterpartyKeys(ids);
  const m = probe?.mutation;
  return (req) => {
    const now = Math.floor(Date.now() / 1000);
    const defects: DefectName[] = [];
    let key = keys.signingKey(m?.kind === 'key-role' ? m.role : (probe?.key ?? 'ed25519'));
    let signIds = ids;
    const opts: Partial<SignOptions> = {};
    // Under `either` both are valid; a body change is only a digest mismatch when the digest is covered.
    let coverDigest = policy === 'forbidden' ? false : policy === 'required' || m?.kind === 'digest-mismatch' || !probe?.uncoveredDigest;
    switch (m?.kind) {
      case 'window':
        if (m.variant === 'created-in-future') Object.assign(opts, { created: now + 90 + m.seconds, expires: now + 90 + m.seconds + 300 });
        if (m.variant === 'expired') Object.assign(opts, { created: now - 390 - m.seconds, expires: now - 90 - m.seconds });
        if (m.variant === 'too-long') Object.assign(opts, { created: now, expires: now + 305 + m.seconds });
        if (m.variant === 'inverted') Object.assign(opts, { created: now, expires: now - (m.seconds % 200) });
        break;
      case 'missing-param':
        defects.push(`missing-param:${m.param}`);
        break;
      case 'tag':
        signIds = { ...ids, requestSigningTag: mutatedTag(ids.requestSigningTag, m.variant, ids) };
        break;
      case 'alg-not-allowed':
      case 'alg-key-mismatch':
      case 'duplicate-json-key':
      case 'malformed-target-uri':
        defects.push(m.kind);
        break;
      case 'keyid':
        key = { ...key, kid: mutatedKid(key.kid, m) };
        break;
      case 'nonce':
        opts.nonce = m.variant === 'short' ? randomBytes(m.bytes).toString('base64url') : `${randomBytes(16).toString('base64url')}==`;
        break;
      case 'drop-component':
        defects.push(`drop-component:${m.component}`);
        break;
      case 'header':
        defects.push(m.defect);
        break;
      case 'digest-coverage':
        coverDigest = m.covered;
        break;
      default:
        break;
    }
    const signed = signRequest(
      { method: req.method, url: req.url, headers: { ...req.headers }, body: req.body },
      { ...opts, profile: 'request', ids: signIds, key, encoding: 'legacy', coverContentDigest: coverDigest, defects },
    );
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(signed.headers)) headers[k.toLowerCase()] = v;
    let url = req.url;
    let body = signed.body;
    if (signed.url !== req.url) headers.host = authorityOf(signed.url);
    if (m?.kind === 'bad-signature') {
      const token = /^sig1=:([^:]*):$/.exec(headers.signature ?? '')?.[1] ?? '';
      const sig = Buffer.from(decodeBinary(token, 'legacy'));
      sig[m.byte % sig.length] = sig[m.byte % sig.length]! ^ (1 << m.bit);
      headers.signature = `sig1=:${encodeBinary(sig, 'legacy')}:`;
    }
    if (m?.kind === 'covered-value-changed') {
      if (m.component === 'content-type')
        headers['content-type'] = headers['content-type'] === 'application/json; charset=utf-8' ? 'application/json' : 'application/json; charset=utf-8';
      else url = `${url}${url.includes('?') ? '&' : '?'}pcfz=1`;
    }
    if (m?.kind === 'digest-mismatch') body = reshapeBody(body, m.where);
    return { method: req.method, url, headers, body };
  };
}
