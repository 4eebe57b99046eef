/**
 * Runs a set's `canonicalization.json` (digest 2.5): cases without `reject` must produce
 * `expected_target_uri` and `expected_authority` exactly; `reject: true` cases must fail with
 * `expected_error_code`. These are signer-side cases: U-labels are converted to A-labels.
 */
import { join } from 'node:path';
import { errorCode } from '../codes.js';
import { canonicalizeTargetUri, TargetUriError } from '../parse/target-uri.js';
import { readJson, VectorFormatError } from './loader.js';
import type { VectorOutcome } from './runner.js';

interface CanonCase {
  name: string;
  input_url: string;
  expected_target_uri?: string;
  expected_authority?: string;
  reject?: boolean;
  expected_error_code?: string;
}

export function loadCanonicalizationCases(dir: string): CanonCase[] {
  const file = join(dir, 'canonicalization.json');
  const data = readJson(file) as { cases?: unknown };
  if (!Array.isArray(data?.cases)) throw new VectorFormatError(`${file}: expected {"cases": [...]}`);
  for (const c of data.cases as CanonCase[]) {
    if (typeof c?.name !== 'string' || typeof c.input_url !== 'string') {
      throw new VectorFormatError(`${file}: every case needs name and input_url`);
    }
    if (!c.reject && (typeof c.expected_target_uri !== 'string' || typeof c.expected_authority !== 'string')) {
      throw new VectorFormatError(`${file}: case ${c.name} needs expected_target_uri and expected_authority`);
    }
  }
  return data.cases as CanonCase[];
}

export function runCanonicalizationCase(c: CanonCase): VectorOutcome {
  const id = `canonicalization/${c.name}`;
  const malformedCode = errorCode('request', 'target_uri_malformed');
  if (c.reject) {
    const expected = c.expected_error_code ?? malformedCode;
    try {
      const got = canonicalizeTargetUri(c.input_url, { allowUnicodeHost: true });
      return { id, expected, actual: got.targetUri, status: 'fail', detail: 'accepted a URL that must be rejected' };
    } catch (err) {
      if (!(err instanceof TargetUriError)) throw err;
      return { id, expected, actual: malformedCode, status: malformedCode === expected ? 'pass' : 'fail', detail: err.message };
    }
  }
  const expected = `${c.expected_target_uri} ${c.expected_authority}`;
  try {
    const got = canonicalizeTargetUri(c.input_url, { allowUnicodeHost: true });
    const actual = `${got.targetUri} ${got.authority}`;
    return { id, expected, actual, status: actual === expected ? 'pass' : 'fail' };
  } catch (err) {
    if (!(err instanceof TargetUriError)) throw err;
    return { id, expected, actual: malformedCode, status: 'fail', detail: err.message };
  }
}
