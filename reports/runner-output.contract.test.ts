/**
 * The runner output document against the contract itself: `universal/runner-output-contract.yaml`
 * of the bundle the pinned @adcp/sdk ships, read at test time (never copied here), on the run of
 * the fixture bundle against the mock seller over MCP and A2A: every departure the contract
 * checker finds (reports/testing/runner-output-contract.ts), and that the run exercises what it
 * judges (skips, failures, wire records, secrets).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_BUNDLE } from '../harness/core/storyboards/testing/sdk-bundle.js';
import { runFixtureBundle } from '../harness/core/storyboards/testing/fixture-bundle.js';
import { RUNNER_SKIP_REASONS } from '../harness/core/engine/storyboard-step.js';
import { RUNNER_OUTPUT_CONTRACT, toRunnerOutput, type RunnerOutputDocument } from './runner-output.js';
import { commentEnum, contractProblems, readContract, redactionPattern, walk, type RunnerOutputContract } from './testing/runner-output-contract.js';

const CONTRACT_FILE = [SDK_BUNDLE && join(SDK_BUNDLE, 'universal/runner-output-contract.yaml')].find((f) => f && existsSync(f)) ?? '';

describe.skipIf(!CONTRACT_FILE)('the runner output against the contract the pinned bundle ships', () => {
  let c: RunnerOutputContract;
  let doc: RunnerOutputDocument;
  beforeAll(async () => {
    c = readContract(readFileSync(CONTRACT_FILE, 'utf8'));
    doc = toRunnerOutput((await runFixtureBundle()).run);
  }, 120_000);

  it('follows the contract: every required field, every enumeration, redaction and the header allowlist', () => {
    expect(contractProblems(doc, c)).toEqual([]);
  });

  it('the checker finds a departure of each kind', () => {
    const broken = structuredClone(doc);
    const step = broken.step_results.find((s) => s.skip)!;
    step.skip!.reason = 'because' as never;
    delete (broken.run_summary as Partial<typeof broken.run_summary>).total_steps;
    const failed = broken.step_results.find((s) => !s.passed && !s.skip)!;
    failed.validations = failed.validations.map((v) => ({ ...v, passed: true }));
    (broken.step_results[0] as { api_key?: string }).api_key = 'leaked';
    expect(contractProblems(broken, c)).toEqual(
      expect.arrayContaining([
        'run_summary: no total_steps',
        `${step.transport} ${step.check_id} skip.reason: because is none of ${commentEnum(c.text, 'skip_result', 'reason').join(', ')}`,
        `${failed.transport} ${failed.check_id}: failed with no failed validation`,
        'api_key: not redacted',
      ]),
    );
  });

  it('names the contract version it follows, and has every step of both transports', () => {
    expect(c.id).toBe(RUNNER_OUTPUT_CONTRACT.id);
    expect(c.version).toBe(RUNNER_OUTPUT_CONTRACT.version);
    expect(new Set(doc.step_results.map((s) => s.transport))).toEqual(new Set(['mcp', 'a2a']));
  });

  it('knows the contract enumerations it writes: the extraction paths, the skip reasons, the transports', () => {
    expect(commentEnum(c.text, 'extraction', 'path')).toEqual(['structured_content', 'text_fallback', 'error', 'none']);
    const reasons = commentEnum(c.text, 'skip_result', 'reason');
    expect([...RUNNER_SKIP_REASONS].sort()).toEqual([...reasons].sort());
    expect(Object.keys(c.blocks.skip_result.reasons as object)).toEqual(expect.arrayContaining(reasons));
    expect(commentEnum(c.text, 'response', 'transport')).toEqual(commentEnum(c.text, 'request', 'transport'));
  });

  it('exercises what the checker judges: skipped steps, failed validations with the call beside them, wire records', () => {
    expect(doc.step_results.filter((s) => s.skip).length).toBeGreaterThan(0);
    const failed = doc.step_results.flatMap((s) => s.validations.filter((v) => !v.passed).map((v) => ({ s, v })));
    expect(failed.length).toBeGreaterThan(0);
    // The step's own call is recorded beside each failure.
    for (const { s, v } of failed) if (s.request) expect([v.request, v.response], `${s.check_id} ${v.check}`).toEqual([s.request, s.response]);
    expect(doc.step_results.filter((s) => s.request && s.response).length).toBeGreaterThan(0);
  });

  it("redacts every value at a key the contract's pattern names, anywhere in the document", () => {
    const pattern = redactionPattern(c);
    const seen: string[] = [];
    walk(doc, (key) => {
      if (pattern.test(key)) seen.push(key);
    });
    // The fixture sends api_key on both transports, echoed back: in requests, responses and the JSON text of MCP results.
    expect(seen.filter((k) => k === 'api_key').length).toBeGreaterThanOrEqual(4);
  });
});

if (!CONTRACT_FILE)
  console.warn(
    'reports/runner-output: the @adcp/sdk bundle is not installed (npm ci), so the contract tests skip; runner-output.test.ts still checks the document',
  );
