/**
 * Loads a vector set as published (digest 2.1-2.4): `keys.json` at the root, vector files
 * found recursively beneath it. Request vectors (2.2) and webhook vectors (2.3) share one
 * normalised shape; the differences (jwks_override as a JWKS or as a kid→JWK map, failed_step
 * spelling, absent verifier_capability) are absorbed here. Files are never modified.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Jwk } from '../keys/keys.js';
import type { RequestSigningCapability } from '../verify/precheck.js';

export type VectorKind = 'request' | 'webhook';

export interface VectorRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ExpectedOutcome {
  success: boolean;
  errorCode?: string;
  failedStep?: number | string;
  subStep?: string;
  verifiedLabel?: string;
}

export interface SignatureVector {
  /** Path relative to the set root, without `.json` (`negative/002-wrong-tag`). */
  id: string;
  file: string;
  kind: VectorKind;
  name?: string;
  /** `3.1`, `3.2` (requests; absent means 3.1) or `webhook`. */
  profileVersion: string;
  referenceNow: number;
  request: VectorRequest;
  capability?: RequestSigningCapability;
  jwks: Jwk[];
  state?: Record<string, unknown>;
  expected: ExpectedOutcome;
  expectedSignatureBase?: string;
  requiresContract?: string;
}

export class VectorFormatError extends Error {
  override name = 'VectorFormatError';
}

/** Files at the set root that are not signature vectors. */
export const NON_VECTOR_FILES = new Set(['keys.json', 'canonicalization.json', 'body-integrity-policy.json']);

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON object whose members the caller checks one by one
function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new VectorFormatError(`${file}: ${(err as Error).message}`);
  }
}

/** `keys.json`: `{keys: [JWK...]}`. */
export function loadKeySet(dir: string): Jwk[] {
  const file = join(dir, 'keys.json');
  const data = readJson(file);
  if (!isObj(data) || !Array.isArray(data.keys) || !data.keys.every(isObj)) {
    throw new VectorFormatError(`${file}: expected {"keys": [JWK, ...]}`);
  }
  return data.keys as Jwk[];
}

/** Vector files under a set root, sorted by relative path. */
export function findVectorFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (entry.endsWith('.json') && !(d === dir && NON_VECTOR_FILES.has(entry)) && entry !== 'keys.json') out.push(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => relative(dir, a).localeCompare(relative(dir, b)));
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed vector file, checked member by member
function selectKeys(file: string, data: Record<string, any>, keys: readonly Jwk[]): Jwk[] {
  const byKid = new Map(keys.map((k) => [k.kid, k]));
  const override = data.jwks_override;
  if (isObj(override) && Array.isArray(override.keys)) {
    if (data.jwks_ref !== undefined) throw new VectorFormatError(`${file}: jwks_ref and jwks_override are mutually exclusive`);
    return override.keys as Jwk[];
  }
  let selected: Jwk[];
  if (Array.isArray(data.jwks_ref)) {
    selected = data.jwks_ref.map((kid: unknown) => {
      const k = byKid.get(kid as string);
      if (!k) throw new VectorFormatError(`${file}: jwks_ref names ${JSON.stringify(kid)}, absent from keys.json`);
      return k;
    });
  } else selected = [...keys];
  if (isObj(override)) {
    // Webhook form: a map kid → JWK replacing (or adding) those kids.
    for (const [kid, jwk] of Object.entries(override)) {
      if (!isObj(jwk)) throw new VectorFormatError(`${file}: jwks_override.${kid} is not a JWK`);
      const replacement = { kid, ...jwk } as Jwk;
      const i = selected.findIndex((k) => k.kid === kid);
      if (i === -1) selected.push(replacement);
      else selected[i] = replacement;
    }
  }
  return selected;
}

/** Parse one vector file. */
export function loadVector(root: string, file: string, kind: VectorKind, keys: readonly Jwk[]): SignatureVector {
  const data = readJson(file);
  if (!isObj(data)) throw new VectorFormatError(`${file}: not a JSON object`);
  const req = data.request;
  if (!isObj(req) || typeof req.method !== 'string' || typeof req.url !== 'string' || !isObj(req.headers)) {
    throw new VectorFormatError(`${file}: request {method, url, headers, body} missing or malformed`);
  }
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v !== 'string') throw new VectorFormatError(`${file}: header ${k} is not a string`);
  }
  const body = req.body ?? '';
  if (typeof body !== 'string') throw new VectorFormatError(`${file}: request.body must be a string`);
  if (typeof data.reference_now !== 'number') throw new VectorFormatError(`${file}: reference_now missing`);
  const exp = data.expected_outcome;
  if (!isObj(exp) || typeof exp.success !== 'boolean') throw new VectorFormatError(`${file}: expected_outcome.success missing`);
  if (!exp.success && typeof exp.error_code !== 'string') throw new VectorFormatError(`${file}: negative vector without error_code`);
  if (data.test_harness_state !== undefined && !isObj(data.test_harness_state)) {
    throw new VectorFormatError(`${file}: test_harness_state is not an object`);
  }
  const id = relative(root, file)
    .split(sep)
    .join('/')
    .replace(/\.json$/, '');
  return {
    id,
    file,
    kind,
    name: typeof data.name === 'string' ? data.name : undefined,
    profileVersion: kind === 'webhook' ? 'webhook' : String(data.signing_profile_version ?? '3.1'),
    referenceNow: data.reference_now,
    request: { method: req.method, url: req.url, headers: req.headers as Record<string, string>, body },
    capability: isObj(data.verifier_capability) ? (data.verifier_capability as RequestSigningCapability) : undefined,
    jwks: selectKeys(file, data, keys),
    state: data.test_harness_state as Record<string, unknown> | undefined,
    expected: {
      success: exp.success,
      errorCode: exp.error_code,
      failedStep: exp.failed_step,
      subStep: exp.sub_step,
      verifiedLabel: exp.verified_label,
    },
    expectedSignatureBase: typeof data.expected_signature_base === 'string' ? data.expected_signature_base : undefined,
    requiresContract: typeof data.requires_contract === 'string' ? data.requires_contract : undefined,
  };
}
