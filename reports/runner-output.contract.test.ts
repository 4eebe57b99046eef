/**
 * The runner output document against the contract itself: `universal/runner-output-contract.yaml`
 * of the bundle the pinned @adcp/sdk ships, read at test time (never copied here). Every block's
 * `required_fields` (and `required_on_failure` of a failed validation), every value of the
 * contract's enumerations (the reason list of skip_result, the extraction paths, the transports),
 * the redaction pattern and the response header allowlist, on the run of the fixture bundle
 * against the mock seller over MCP and A2A.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SDK_BUNDLE } from '../harness/core/storyboards/testing/sdk-bundle.js';
import { runFixtureBundle } from '../harness/core/storyboards/testing/fixture-bundle.js';
import { RUNNER_SKIP_REASONS } from '../harness/core/engine/storyboard-step.js';
import { RUNNER_OUTPUT_CONTRACT, toRunnerOutput, type RunnerOutputDocument } from './runner-output.js';

const CONTRACT_FILE = [SDK_BUNDLE && join(SDK_BUNDLE, 'universal/runner-output-contract.yaml')].find((f) => f && existsSync(f)) ?? '';

type Block = { required_fields?: string[]; required_on_failure?: string[] };

/**
 * The values a block's field lists in its comment (`- path  # "structured_content" | "text_fallback" |`
 * and the comment lines after it): the contract's enumerations are written that way.
 */
function commentEnum(text: string, block: string, field: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === `${block}:`);
  const at = lines.findIndex((l, i) => i > start && new RegExp(`^\\s+- ${field}\\s+#`).test(l));
  if (start < 0 || at < 0) throw new Error(`the contract has no ${block}.${field}`);
  const comment = [lines[at].split('#').slice(1).join('#')];
  for (let i = at + 1; /^\s+#/.test(lines[i]); i++) comment.push(lines[i].replace(/^\s+#/, ''));
  return comment
    .join(' ')
    .split('|')
    .map((t) => t.trim().replace(/^"|"$/g, ''))
    .filter((t) => /^[a-z0-9_]+$/.test(t));
}

const walk = (value: unknown, visit: (key: string, v: unknown) => void): void => {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
};

describe.skipIf(!CONTRACT_FILE)('the runner output against the contract the pinned bundle ships', () => {
  let text: string;
  let contract: Record<string, Block & Record<string, unknown>>;
  let doc: RunnerOutputDocument;
  beforeAll(async () => {
    text = readFileSync(CONTRACT_FILE, 'utf8');
    contract = parse(text);
    doc = toRunnerOutput((await runFixtureBundle()).run);
  }, 120_000);

  const required = (block: string) => contract[block].required_fields ?? [];
  const missing = (obj: object, fields: string[]) => fields.filter((f) => !(f in obj));

  it('names the contract version it follows, and has every step of both transports', () => {
    expect(contract.id).toBe(RUNNER_OUTPUT_CONTRACT.id);
    expect(contract.version).toBe(RUNNER_OUTPUT_CONTRACT.version);
    expect(new Set(doc.step_results.map((s) => s.transport))).toEqual(new Set(['mcp', 'a2a']));
  });

  it('has every required field of run_summary', () => {
    expect(missing(doc.run_summary, required('run_summary'))).toEqual([]);
  });

  it('has every required field of step_result and extraction, and only the contract extraction paths', () => {
    const paths = commentEnum(text, 'extraction', 'path');
    expect(paths).toEqual(['structured_content', 'text_fallback', 'error', 'none']);
    for (const step of doc.step_results) {
      expect(missing(step, required('step_result')), step.check_id).toEqual([]);
      expect(missing(step.extraction, required('extraction')), step.check_id).toEqual([]);
      expect(paths, step.check_id).toContain(step.extraction.path);
    }
  });

  it('gives every skipped step a skip_result with a reason of the contract, and names the same reasons the contract lists', () => {
    const reasons = commentEnum(text, 'skip_result', 'reason');
    expect([...RUNNER_SKIP_REASONS].sort()).toEqual([...reasons].sort());
    expect(Object.keys(contract.skip_result.reasons as object)).toEqual(expect.arrayContaining(reasons));
    const skipped = doc.step_results.filter((s) => s.skip);
    expect(skipped.length).toBeGreaterThan(0);
    for (const s of skipped) {
      expect(missing(s.skip!, required('skip_result')), s.check_id).toEqual([]);
      expect(reasons, s.check_id).toContain(s.skip!.reason);
      expect(s.skip!.detail.length, s.check_id).toBeGreaterThan(0);
    }
  });

  it('has every required field of validation_result, and on a failure every field required on failure', () => {
    const failed = doc.step_results.flatMap((s) => s.validations.filter((v) => !v.passed).map((v) => ({ s, v })));
    expect(failed.length).toBeGreaterThan(0);
    for (const s of doc.step_results) for (const v of s.validations) expect(missing(v, required('validation_result')), s.check_id).toEqual([]);
    for (const { s, v } of failed) {
      expect(missing(v, contract.validation_result.required_on_failure ?? []), `${s.check_id} ${v.check}`).toEqual([]);
      // Null only for a transport-level failure; the step's own call is recorded beside each failure.
      if (v.check !== 'transport') expect(v.json_pointer, `${s.check_id} ${v.check}`).not.toBeNull();
      if (s.request) expect([v.request, v.response], `${s.check_id} ${v.check}`).toEqual([s.request, s.response]);
    }
  });

  it('fails a step only with a failed validation, and skips one only with a skip_result', () => {
    for (const s of doc.step_results) {
      if (!s.passed && !s.skip)
        expect(
          s.validations.some((v) => !v.passed),
          s.check_id,
        ).toBe(true);
      if (s.skip) expect(s.passed, s.check_id).toBe(false);
    }
  });

  it('records requests and responses with their required fields, a transport of the contract, no request headers and allowlisted response headers', () => {
    const transports = commentEnum(text, 'request', 'transport');
    expect(commentEnum(text, 'response', 'transport')).toEqual(transports);
    const security = contract.security as { response_headers: { allowlist: string[] } };
    const records = doc.step_results.flatMap((s) => [s.request, s.response].filter((r) => r !== undefined));
    expect(records.length).toBeGreaterThan(0);
    for (const s of doc.step_results) {
      if (s.request) {
        expect(missing(s.request, required('request'))).toEqual([]);
        expect(s.request).not.toHaveProperty('headers');
      }
      if (s.response) {
        expect(missing(s.response, required('response'))).toEqual([]);
        expect(security.response_headers.allowlist).toEqual(expect.arrayContaining(Object.keys(s.response.headers ?? {}).map((h) => h.toLowerCase())));
      }
    }
    for (const r of records) expect(transports).toContain(r.transport);
  });

  it("redacts every value at a key the contract's pattern names, anywhere in the document", () => {
    const security = contract.security as { payload_redaction: { pattern: string } };
    const pattern = new RegExp(security.payload_redaction.pattern.replace(/\s+/g, ''), 'i');
    const seen: string[] = [];
    walk(doc, (key, v) => {
      if (pattern.test(key)) {
        seen.push(key);
        expect(v, key).toBe('[redacted]');
      }
    });
    // The fixture sends api_key on both transports, echoed back: in requests, responses and the JSON text of MCP results.
    expect(seen.filter((k) => k === 'api_key').length).toBeGreaterThanOrEqual(4);
  });
});

if (!CONTRACT_FILE)
  console.warn(
    'reports/runner-output: the @adcp/sdk bundle is not installed (npm ci), so the contract tests skip; runner-output.test.ts still checks the document',
  );
