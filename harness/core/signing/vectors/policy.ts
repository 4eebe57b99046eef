/**
 * Runs `body-integrity-policy.json` (digest 2.8) end to end: each case's facts are turned into
 * a real request signed by our signer with a key of the set (or deliberately broken to match
 * the facts), verified by the real verifier under the case's endpoint configuration, and the
 * verdict composed with the fallback credential by `decideAuthentication`.
 */
import { join } from 'node:path';
import { protocolIds, type ProtocolIds } from '../../token.js';
import { decideAuthentication, type AuthDecision } from '../verify/auth-decision.js';
import { contentDigestHeader } from '../parse/content-digest.js';
import type { DefectName } from '../sign/defects.js';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import { sigAlgOfJwk, signingKeyFromJwk, type Jwk } from '../keys/keys.js';
import type { DigestPolicy, OperationRef, RequestSigningCapability } from '../verify/precheck.js';
import { InMemoryReplayCache } from '../verify/replay-cache.js';
import { signRequest, type SignedRequest } from '../sign/signer.js';
import { verifyRequestSignature } from '../verify/verifier.js';
import type { VerifierPathChoice } from '../verify/verifier-paths.js';
import { readJson, VectorFormatError } from './loader.js';
import type { VectorOutcome } from './runner.js';

export const POLICY_NOW = 1776520800;
const URL = 'https://seller.example.com/mcp';
const OPERATION = 'create_media_buy';
const METHOD = 'tasks/cancel';

type Mode = 'supported_for' | 'required_for' | 'warn_for' | 'protocol_methods_supported_for' | 'protocol_methods_required_for' | 'protocol_methods_warn_for';
const MODES: readonly Mode[] = [
  'supported_for',
  'required_for',
  'warn_for',
  'protocol_methods_supported_for',
  'protocol_methods_required_for',
  'protocol_methods_warn_for',
];

export interface PolicyCase {
  id: string;
  endpoint_profile: string;
  mode: Mode;
  has_body: boolean;
  signature_present: boolean;
  covers_content_digest?: boolean;
  digest_matches_body?: boolean;
  cryptographic_signature_valid?: boolean;
  fallback_auth_valid: boolean;
  signature_header_state?: string;
  legacy_digest_policy?: DigestPolicy;
  expected: Partial<AuthDecision> & { action: string; verified_signer_identity: boolean };
  [fact: string]: unknown;
}

const KNOWN = new Set([
  'id',
  'endpoint_profile',
  'mode',
  'has_body',
  'signature_present',
  'covers_content_digest',
  'digest_matches_body',
  'cryptographic_signature_valid',
  'fallback_auth_valid',
  'signature_header_state',
  'legacy_digest_policy',
  'expected',
  'description',
  'name',
]);

export function loadPolicyCases(dir: string, ids: ProtocolIds): PolicyCase[] {
  const file = join(dir, 'body-integrity-policy.json');
  const data = readJson(file) as { cases?: unknown };
  if (!Array.isArray(data?.cases)) throw new VectorFormatError(`${file}: expected {"cases": [...]}`);
  const bodyVersion = `request_body_${ids.versionMember}`;
  for (const c of data.cases as PolicyCase[]) {
    if (typeof c?.id !== 'string' || !MODES.includes(c.mode) || typeof c.expected?.action !== 'string') {
      throw new VectorFormatError(`${file}: case ${JSON.stringify(c?.id)} lacks id, a known mode or expected.action`);
    }
    for (const k of Object.keys(c)) {
      if (!KNOWN.has(k) && k !== bodyVersion && !k.startsWith('$')) throw new VectorFormatError(`${file}: case ${c.id}: unknown fact ${k}`);
    }
  }
  return data.cases as PolicyCase[];
}

function endpoint(c: PolicyCase): { capability: RequestSigningCapability; ref: OperationRef } {
  const protocol = c.mode.startsWith('protocol_methods_');
  const name = protocol ? METHOD : OPERATION;
  const prefix = protocol ? 'protocol_methods_' : '';
  const list = c.mode.slice(prefix.length);
  const capability: RequestSigningCapability = { supported: true, [`${prefix}supported_for`]: [name] };
  if (list !== 'supported_for') (capability as unknown as Record<string, unknown>)[`${prefix}${list}`] = [name];
  if (c.endpoint_profile.startsWith('3.2')) capability.covers_content_digest = 'required';
  else if (c.legacy_digest_policy) capability.covers_content_digest = c.legacy_digest_policy;
  const ref: OperationRef = protocol ? { jsonRpcMethod: METHOD } : { jsonRpcMethod: 'tools/call', operation: OPERATION };
  return { capability, ref };
}

function body(c: PolicyCase, ids: ProtocolIds, variant: string): string {
  if (!c.has_body) return '';
  const version = c[`request_body_${ids.versionMember}`];
  const args: Record<string, unknown> = { idempotency_key: `policy-${variant}`, plan_id: `plan_${variant}` };
  if (version !== undefined) args[ids.versionMember] = version;
  const rpc = c.mode.startsWith('protocol_methods_')
    ? { jsonrpc: '2.0', id: 1, method: METHOD, params: { taskId: `task_${variant}`, ...(version !== undefined ? { [ids.versionMember]: version } : {}) } }
    : { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: OPERATION, arguments: args } };
  return JSON.stringify(rpc);
}

function buildRequest(
  c: PolicyCase,
  ids: ProtocolIds,
  keyJwk: Jwk,
): SignedRequest | { method: string; url: string; headers: Record<string, string>; body: Uint8Array } {
  const original = body(c, ids, 'original');
  if (!c.signature_present) {
    const headers: Record<string, string> = c.has_body ? { 'Content-Type': 'application/json' } : {};
    return { method: 'POST', url: URL, headers, body: new TextEncoder().encode(original) };
  }
  const strict = c.endpoint_profile.startsWith('3.2');
  const encoding = strict ? 'strict' : 'legacy';
  const defects: DefectName[] = [];
  if (c.signature_header_state === 'malformed_pair') defects.push('signature-without-input');
  else if (c.signature_header_state !== undefined) throw new VectorFormatError(`case ${c.id}: unknown signature_header_state`);
  const covers = c.covers_content_digest === true;
  const cryptoValid = c.cryptographic_signature_valid !== false;
  const digestMatches = c.digest_matches_body !== false;
  if (covers && cryptoValid && !digestMatches) defects.push('digest-mismatch');
  if (!covers && !cryptoValid) defects.push('bad-signature');
  const signed = signRequest(
    { method: 'POST', url: URL, body: original },
    { profile: 'request', ids, key: signingKeyFromJwk(keyJwk), encoding, created: POLICY_NOW, coverContentDigest: covers && c.has_body, defects },
  );
  if (covers && !cryptoValid) {
    // Body (and digest) rewritten in transit; the signature still covers the original digest.
    const rewritten = new TextEncoder().encode(body(c, ids, 'rewritten'));
    const digestOf = digestMatches ? rewritten : new TextEncoder().encode(body(c, ids, 'third'));
    signed.body = rewritten;
    signed.headers['Content-Digest'] = contentDigestHeader(digestOf, encoding);
  }
  return signed;
}

/** The request-signing Ed25519 key with private material the cases are signed with. */
export function policySigningKey(keys: readonly Jwk[], ids: ProtocolIds): Jwk {
  const k = keys.find((j) => j[ids.keyUseMember] === 'request-signing' && sigAlgOfJwk(j) === 'ed25519' && (j.d ?? j._private_d_for_test_only) !== undefined);
  if (!k) throw new VectorFormatError(`keys.json has no Ed25519 ${ids.keyUseMember}=request-signing key with private material`);
  return k;
}

export async function runPolicyCase(c: PolicyCase, keys: readonly Jwk[], token: string, paths: VerifierPathChoice = 'fast'): Promise<VectorOutcome> {
  const ids = protocolIds(token);
  const id = `body-integrity-policy/${c.id}`;
  const expected = c.expected.error_code ? `${c.expected.action}:${c.expected.error_code}` : c.expected.action;
  try {
    const keyJwk = policySigningKey(keys, ids);
    const { capability, ref } = endpoint(c);
    const req = buildRequest(c, ids, keyJwk);
    const verify = await verifyRequestSignature(req, {
      profile: 'request',
      ids,
      encoding: c.endpoint_profile.startsWith('3.2') ? 'strict' : 'legacy',
      capability,
      digestPolicy: capability.covers_content_digest ?? 'either',
      ...ref,
      fallbackAuthenticated: c.fallback_auth_valid,
      now: () => POLICY_NOW,
      keys: new StaticKeyResolver([keyJwk]),
      replayCache: new InMemoryReplayCache({ perKeyidCap: 100 }),
      paths,
    });
    const d = decideAuthentication(capability, ref, verify, c.fallback_auth_valid);
    const actual = d.error_code ? `${d.action}:${d.error_code}` : d.action;
    const mismatches: string[] = [];
    if (d.action !== c.expected.action) mismatches.push('action');
    if (c.expected.error_code !== undefined && d.error_code !== c.expected.error_code) mismatches.push('error_code');
    if (c.expected.authentication_source !== undefined && d.authentication_source !== c.expected.authentication_source) {
      mismatches.push(`authentication_source=${d.authentication_source}`);
    }
    if (d.verified_signer_identity !== c.expected.verified_signer_identity) mismatches.push('verified_signer_identity');
    const detail = verify.ok ? undefined : `${verify.code} at step ${verify.step}: ${verify.detail}`;
    return {
      id,
      expected,
      actual,
      status: mismatches.length ? 'fail' : 'pass',
      detail: mismatches.length ? `mismatch: ${mismatches.join(', ')}; ${detail ?? ''}` : detail,
    };
  } catch (err) {
    return { id, expected, actual: 'error', status: 'fail', detail: (err as Error).message };
  }
}
