/**
 * Runs signature vectors through the verifier exactly as published (digest 2.5): clock from
 * `reference_now`, keys from `keys.json` via `jwks_ref` / `jwks_override`, preloaded
 * `test_harness_state`, `verifier_capability`, operation from the URL's last segment or the
 * JSON-RPC body. Grading compares the error code byte for byte (and, for positives, the
 * verified label and the expected signature base when given).
 */
import { protocolIds } from '../../token.js';
import { effectiveDigestPolicy, operationFromJsonRpc, type OperationRef } from '../verify/precheck.js';
import { StaticKeyResolver } from '../keys/key-resolver.js';
import { verifyRequestSignature } from '../verify/verifier.js';
import type { VerifierPathChoice } from '../verify/verifier-paths.js';
import type { VerifyContext, VerifyResult } from '../verify/verifier-types.js';
import { installHarnessState } from './harness-state.js';
import type { SignatureVector } from './loader.js';

export type VectorStatus = 'pass' | 'fail' | 'not_applicable';

export interface VectorOutcome {
  id: string;
  /** `success` or the expected error code. */
  expected: string;
  /** `success`, the code returned, `not_applicable` or `error`. */
  actual: string;
  status: VectorStatus;
  /** Step at which the verifier stopped (failures only). */
  step?: number | string;
  detail?: string;
}

/** Operation of a vector request: JSON-RPC body first, else the URL's last path segment. */
export function vectorOperation(url: string, body: string): OperationRef {
  if (body.length > 0) {
    try {
      const fromRpc = operationFromJsonRpc(JSON.parse(body));
      if (fromRpc) return fromRpc;
    } catch {
      /* not JSON: fall through */
    }
  }
  const path = url.replace(/^[a-z]+:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '');
  const last = path.split('/').filter(Boolean).pop();
  return { operation: last };
}

/** Run one vector through the verifier (`paths`: its fast path, the default, or its reference path). */
export async function runSignatureVector(v: SignatureVector, token: string, paths: VerifierPathChoice = 'fast'): Promise<VectorOutcome> {
  const expected = v.expected.success ? 'success' : v.expected.errorCode!;
  const base = { id: v.id, expected };
  let state;
  try {
    state = installHarnessState(v.state, v.referenceNow);
  } catch (err) {
    return { ...base, actual: 'error', status: 'fail', detail: `test_harness_state: ${(err as Error).message}` };
  }
  if (state.unsupported.length > 0) {
    const detail = `cannot install test_harness_state ${state.unsupported.join(', ')}`;
    return v.kind === 'webhook'
      ? { ...base, actual: 'not_applicable', status: 'not_applicable', detail }
      : { ...base, actual: 'error', status: 'fail', detail };
  }
  const ids = protocolIds(token);
  const webhook = v.kind === 'webhook';
  const ctx: VerifyContext = {
    profile: v.kind,
    ids,
    encoding: !webhook && v.profileVersion.startsWith('3.2') ? 'strict' : 'legacy',
    capability: v.capability,
    digestPolicy: webhook ? 'required' : effectiveDigestPolicy(v.capability, v.profileVersion),
    ...(webhook ? {} : vectorOperation(v.request.url, v.request.body)),
    fallbackAuthenticated: false,
    now: () => v.referenceNow,
    keys: new StaticKeyResolver(v.jwks),
    replayCache: state.replayCache,
    revocation: state.revocation,
    paths,
  };
  let result: VerifyResult;
  try {
    result = await verifyRequestSignature(v.request, ctx);
  } catch (err) {
    return { ...base, actual: 'error', status: 'fail', detail: `verifier threw: ${(err as Error).message}` };
  }
  return grade(v, base, result);
}

function grade(v: SignatureVector, base: { id: string; expected: string }, result: VerifyResult): VectorOutcome {
  if (!result.ok) {
    const out: VectorOutcome = { ...base, actual: result.code, step: result.step, detail: result.detail, status: 'fail' };
    if (v.expected.success || result.code !== v.expected.errorCode) return out;
    if (v.expectedSignatureBase !== undefined && result.signatureBase !== undefined && result.signatureBase !== v.expectedSignatureBase) {
      return { ...out, detail: 'signature base differs from expected_signature_base' };
    }
    return { ...out, status: 'pass' };
  }
  const out: VectorOutcome = { ...base, actual: 'success', status: 'fail' };
  if (!v.expected.success) return out;
  if (result.signer === null) return { ...out, detail: 'request accepted without a verified signature' };
  if (v.expected.verifiedLabel !== undefined && result.signer.label !== v.expected.verifiedLabel) {
    return { ...out, detail: `verified label ${result.signer.label}, expected ${v.expected.verifiedLabel}` };
  }
  if (v.expectedSignatureBase !== undefined && result.signatureBase !== v.expectedSignatureBase) {
    return { ...out, detail: 'signature base differs from expected_signature_base' };
  }
  return { ...out, status: 'pass' };
}
