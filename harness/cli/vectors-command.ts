/**
 * `proto-comply vectors --kind request|webhook|canonicalization --dir DIR [--token T] [--json]`
 *
 * Runs a vector set through our verifier and prints one line per vector
 * (`<id>  expected=<code|success>  actual=<code|success>  PASS|FAIL|N/A`) and a closing
 * `N passed, N failed` line (`, N skipped` when vectors were not applicable), or a JSON array
 * with `--json`. Returns 0 when every vector matched, 1 on any mismatch, 2 on bad usage.
 * `--kind request` also evaluates the set's `body-integrity-policy.json` when present.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_TOKEN, protocolIds } from '../core/token.js';
import { loadCanonicalizationCases, runCanonicalizationCase } from '../core/signing/vectors/canonicalization.js';
import { findVectorFiles, loadKeySet, loadVector, type VectorKind } from '../core/signing/vectors/loader.js';
import { loadPolicyCases, runPolicyCase } from '../core/signing/vectors/policy.js';
import { runSignatureVector, type VectorOutcome } from '../core/signing/vectors/runner.js';
import type { VerifierPathChoice } from '../core/signing/verify/verifier-paths.js';

export const VECTORS_USAGE = 'usage: proto-comply vectors --kind request|webhook|canonicalization --dir DIR [--token T] [--json]';

export interface VectorsIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const defaultIo: VectorsIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/** Run every vector of a set; errors in individual files become failed outcomes. */
export async function runVectorSet(
  kind: VectorKind | 'canonicalization',
  dir: string,
  token: string,
  paths: VerifierPathChoice = 'fast',
): Promise<VectorOutcome[]> {
  if (kind === 'canonicalization') return loadCanonicalizationCases(dir).map(runCanonicalizationCase);
  const keys = loadKeySet(dir);
  const outcomes: VectorOutcome[] = [];
  for (const file of findVectorFiles(dir)) {
    let outcome: VectorOutcome;
    try {
      outcome = await runSignatureVector(loadVector(dir, file, kind, keys), token, paths);
    } catch (err) {
      const id = file
        .slice(dir.length)
        .replace(/^[\\/]/, '')
        .replace(/\.json$/, '');
      outcome = { id, expected: '?', actual: 'error', status: 'fail', detail: (err as Error).message };
    }
    outcomes.push(outcome);
  }
  if (kind === 'request' && existsSync(join(dir, 'body-integrity-policy.json'))) {
    let cases: ReturnType<typeof loadPolicyCases> = [];
    try {
      cases = loadPolicyCases(dir, protocolIds(token));
    } catch (err) {
      outcomes.push({ id: 'body-integrity-policy', expected: '?', actual: 'error', status: 'fail', detail: (err as Error).message });
    }
    for (const c of cases) outcomes.push(await runPolicyCase(c, keys, token, paths));
  }
  return outcomes;
}

export function formatOutcome(o: VectorOutcome): string {
  const verdict = o.status === 'pass' ? 'PASS' : o.status === 'fail' ? 'FAIL' : 'N/A';
  const note = o.status !== 'pass' && o.detail ? `  (${o.detail.replace(/[\r\n]+/g, ' ')})` : '';
  return `${o.id}  expected=${o.expected}  actual=${o.actual}  ${verdict}${note}`;
}

export function summaryLine(outcomes: readonly VectorOutcome[]): string {
  const n = (s: VectorOutcome['status']) => outcomes.filter((o) => o.status === s).length;
  const skipped = n('not_applicable');
  return `${n('pass')} passed, ${n('fail')} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/** When failures come from tags spelled with another token, name the token the files use. */
export function tokenHint(outcomes: readonly VectorOutcome[], token: string): string | undefined {
  const others = new Set<string>();
  for (const o of outcomes) {
    const m = o.status === 'fail' ? /tag "([a-z0-9_-]+)\/(?:request|webhook)-signing\/v1" is not "/.exec(o.detail ?? '') : null;
    if (m && m[1] !== token) others.add(m[1]!);
  }
  return others.size === 1 ? `these vectors are written for token "${[...others][0]}"; run again with --token ${[...others][0]}` : undefined;
}

export async function vectorsCommand(argv: string[], io: VectorsIo = defaultIo): Promise<number> {
  let values: { kind?: string; dir?: string; token?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        kind: { type: 'string' },
        dir: { type: 'string' },
        token: { type: 'string', default: DEFAULT_TOKEN },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    io.err(`vectors: ${(err as Error).message}. ${VECTORS_USAGE}`);
    return 2;
  }
  const { kind, dir, token = DEFAULT_TOKEN, json } = values;
  if (kind !== 'request' && kind !== 'webhook' && kind !== 'canonicalization') {
    io.err(`vectors: --kind must be request, webhook or canonicalization. ${VECTORS_USAGE}`);
    return 2;
  }
  if (!dir || !existsSync(dir) || !statSync(dir).isDirectory()) {
    io.err(`vectors: --dir ${dir === undefined ? 'is required' : `${JSON.stringify(dir)} is not a directory`}. ${VECTORS_USAGE}`);
    return 2;
  }
  try {
    protocolIds(token);
  } catch (err) {
    io.err(`vectors: ${(err as Error).message}`);
    return 2;
  }
  let outcomes: VectorOutcome[];
  try {
    outcomes = await runVectorSet(kind, dir, token);
  } catch (err) {
    io.err(`vectors: ${(err as Error).message}`);
    return 2;
  }
  if (json) io.out(JSON.stringify(outcomes, null, 2));
  else {
    for (const o of outcomes) io.out(formatOutcome(o));
    io.out(summaryLine(outcomes));
  }
  const hint = tokenHint(outcomes, token);
  if (hint) io.err(`vectors: ${hint}`);
  return outcomes.some((o) => o.status === 'fail') ? 1 : 0;
}
