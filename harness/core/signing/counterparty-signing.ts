/**
 * Signing ordinary calls as the harness's test counterparty, for any suite whose checks send
 * signed requests (the `signatures` probes, the `webhooks` registrations that carry an
 * authentication block): the exact outgoing request is signed through the transport's `prepare`
 * hook, so `@target-uri` and `@authority` are the URL as sent, with the counterparty keys that
 * the run-scoped key server publishes (brand.json + JWKS on loopback).
 */
import { counterpartyKeys, impossibleJwkCounterparty, type ProbeKey } from './keys/counterparty.js';
import { startCounterpartyServer, type RunningCounterpartyServer } from './keys/counterparty-server.js';
import type { DefectName } from './sign/defects.js';
import { signRequest } from './sign/signer.js';
import type { OutgoingRequest } from '../transport/types.js';
import type { CheckContext } from '../engine/kinds/types.js';

export interface SignSpec {
  /** A counterparty key, or the separate counterparty's impossible key (digest 1.4). */
  key: ProbeKey;
  defects: readonly DefectName[];
  /** Cover content-digest. */
  coverDigest: boolean;
}

/** The request_signing block of the capability declaration (empty object when absent). */
export function signingCapability(ctx: CheckContext): Record<string, unknown> {
  const block = ctx.profile.capabilities?.request_signing;
  return block !== null && typeof block === 'object' && !Array.isArray(block) ? (block as Record<string, unknown>) : {};
}

/** The declared `covers_content_digest` (absent: `either`, digest 1.15). */
export function declaredDigestPolicy(ctx: CheckContext): string {
  const v = signingCapability(ctx).covers_content_digest;
  return typeof v === 'string' ? v : 'either';
}

/** `policy`: cover content-digest unless the agent declares `covers_content_digest: forbidden`. */
export function coverDigest(mode: unknown, ctx: CheckContext): boolean {
  if (mode === 'covered') return true;
  if (mode === 'uncovered') return false;
  return declaredDigestPolicy(ctx) !== 'forbidden';
}

function authorityOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  const authority = m?.[1] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

/**
 * Change the body after it was digested and signed while keeping it valid JSON (a space after
 * the opening brace), so the agent's verifier, not its JSON parser, has to notice (step 11).
 */
function tamperKeepingJson(body: Uint8Array): Uint8Array {
  const at = body.indexOf(0x7b);
  if (at < 0) throw new Error('digest-mismatch probe needs a JSON object body');
  const out = new Uint8Array(body.length + 1);
  out.set(body.subarray(0, at + 1), 0);
  out[at + 1] = 0x20;
  out.set(body.subarray(at + 1), at + 2);
  return out;
}

/**
 * A `prepare` hook that signs the request exactly as it will be sent. Defects that move the
 * request to another host (a raw U-label, two trailing dots) are carried in the Host header:
 * the connection still goes to the agent, which sees the defective authority.
 */
export function signingPrepare(ctx: CheckContext, spec: SignSpec, onSigned?: (req: OutgoingRequest) => void) {
  const keys = counterpartyKeys(ctx.ids);
  const tamperDigest = spec.defects.includes('digest-mismatch');
  // The impossible key's probe declares the JWK's alg (ed25519) over ECDSA bytes (vector 025 shape).
  const defects = [...spec.defects.filter((d) => d !== 'digest-mismatch'), ...(spec.key === 'impossible-jwk' ? (['alg-key-mismatch'] as const) : [])];
  const key = spec.key === 'impossible-jwk' ? impossibleJwkCounterparty(ctx.ids).signingKey : keys.signingKey(spec.key);
  return (req: OutgoingRequest): OutgoingRequest => {
    const signed = signRequest(
      { method: req.method, url: req.url, headers: { ...req.headers }, body: req.body },
      {
        profile: 'request',
        ids: ctx.ids,
        key,
        // The 3.2 request profile: padded standard-base64 sf-binary; earlier lines base64url (digest 1.5).
        encoding: ctx.target === '3.2' ? 'strict' : 'legacy',
        coverContentDigest: spec.coverDigest,
        defects,
      },
    );
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(signed.headers)) headers[k.toLowerCase()] = v;
    if (signed.url !== req.url) headers.host = authorityOf(signed.url);
    const out: OutgoingRequest = { method: req.method, url: req.url, headers, body: tamperDigest ? tamperKeepingJson(signed.body) : signed.body };
    onSigned?.(out);
    return out;
  };
}

/** The run-scoped server publishing the harness's test keys (brand.json + JWKS on loopback). */
export function counterpartyServer(ctx: CheckContext): Promise<RunningCounterpartyServer> {
  return ctx.resources.get(`signatures.counterparty.${ctx.ids.token}`, async () => {
    const server = await startCounterpartyServer({ ids: ctx.ids });
    return { value: server, close: () => server.close() };
  });
}

/**
 * A well-formed counterparty signature for an ordinary call (e.g. a registration carrying a
 * webhook `authentication` block, which a signing-capable seller refuses unsigned, digest 1.9 P1):
 * `ctx.call(task, args, { prepare: counterpartySigning(ctx) })`.
 */
export function counterpartySigning(ctx: CheckContext): (req: OutgoingRequest) => OutgoingRequest {
  return signingPrepare(ctx, { key: 'ed25519', defects: [], coverDigest: coverDigest('policy', ctx) });
}
