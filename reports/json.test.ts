import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../harness/core/engine/result.js';
import {
  AgentComplianceValidationError,
  agentComplianceSchema,
  buildAgentCompliance,
  renderAgentComplianceJson,
  validateAgentCompliance,
  writeAgentComplianceJson,
} from './json.js';
import { HOSTILE, HOSTILE_AGENT_URL, buildRunFixture } from './testing/run-result.js';

/** ajv-formats is CommonJS; under NodeNext its default import is the module object. */
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => Ajv2020;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reports-json-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function parsedDoc(run: RunResult = buildRunFixture()): Record<string, any> {
  return JSON.parse(renderAgentComplianceJson(run));
}

describe('agent-compliance.json', () => {
  it('has a committed schema that is valid JSON Schema 2020-12 (the run compiles it without the meta-schema)', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    addFormats(ajv);
    expect(ajv.validateSchema(agentComplianceSchema()), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(agentComplianceSchema())).not.toThrow();
  });

  it('writes a document that validates against the committed schema and round-trips the run', async () => {
    const run = buildRunFixture();
    const path = await writeAgentComplianceJson(run, dir);
    expect(path).toBe(join(dir, 'agent-compliance.json'));
    const text = await readFile(path, 'utf8');
    const doc = JSON.parse(text);
    expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
    const { compliance_detail, ...rest } = doc;
    expect(rest).toEqual(JSON.parse(JSON.stringify(run)));
    expect(compliance_detail.status).toBe('failing');
    expect(doc.agent_url).toBe(HOSTILE_AGENT_URL);
    // hostile strings survive JSON verbatim (JSON is data, not markup)
    expect(doc.checks.find((c: any) => c.outcome === 'error').message).toContain(HOSTILE.textarea);
    // no temporary files are left behind
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('emits keys in schema order, pretty, identical for equal runs built differently', () => {
    const run = buildRunFixture({ baseline: true });
    const shuffled = JSON.parse(JSON.stringify(run), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    ) as RunResult;
    // evidence values (expected/actual) are agent data and keep their own order; restore them
    shuffled.checks.forEach((c, i) => {
      if (c.evidence) {
        c.evidence.expected = run.checks[i].evidence?.expected;
        c.evidence.actual = run.checks[i].evidence?.actual;
        c.evidence.exchanges = run.checks[i].evidence!.exchanges;
      }
    });
    const a = renderAgentComplianceJson(run);
    expect(renderAgentComplianceJson(shuffled)).toBe(a);
    expect(a.startsWith('{\n  "schema_version": "1.2",\n  "harness": {\n    "name": "proto-comply",')).toBe(true);
    const top = Object.keys(JSON.parse(a));
    // harness_error is only present on a run the harness broke in, injected only on a proxy report with --inject,
    // timing only on a run through certify (this fixture is built by hand; engine/timing.test.ts covers it)
    const optional = ['harness_error', 'injected', 'timing'];
    const schemaOrder = Object.keys(agentComplianceSchema().properties as object).filter((k) => !optional.includes(k));
    expect(top).toEqual(schemaOrder);
    expect(Object.keys(JSON.parse(a).checks[0])).toEqual([
      'check_id',
      'suite_id',
      'title',
      'level',
      'spec_ref',
      'transport',
      'outcome',
      'duration_ms',
      'message',
    ]);
  });

  it('rejects documents that break the schema, naming where', () => {
    const cases: Array<[string, (d: Record<string, any>) => void, string]> = [
      ['unknown outcome', (d) => (d.checks[0].outcome = 'skipped'), '/checks/0/outcome'],
      ['extra top-level field', (d) => (d.surprise = 1), 'surprise'],
      ['bad overall status', (d) => (d.overall_status = 'ok'), '/overall_status'],
      ['non-pass without evidence', (d) => delete d.checks.find((c: any) => c.outcome === 'warn').evidence, 'evidence'],
      ['not_run that is not a gap', (d) => (d.checks.find((c: any) => c.not_run).outcome = 'fail'), '/outcome'],
      ['blocked without blocked_by', (d) => delete d.checks.find((c: any) => c.outcome === 'blocked').blocked_by, 'blocked_by'],
      ['gap without the feature', (d) => delete d.checks.find((c: any) => c.outcome === 'gap').gap, 'gap'],
      ['incomplete coverage without reasons', (d) => (d.coverage.reasons = []), '/coverage/reasons'],
      ['compliance detail without lifecycle_stage', (d) => delete d.compliance_detail.lifecycle_stage, 'lifecycle_stage'],
      ['bad timestamp', (d) => (d.started_at = 'yesterday'), '/started_at'],
      ['bad token', (d) => (d.token = 'Bad-Token!'), '/token'],
      ['negative duration', (d) => (d.duration_ms = -1), '/duration_ms'],
      ['NaN duration becomes null', (d) => (d.checks[1].duration_ms = null), '/checks/1/duration_ms'],
      ['registry status out of vocabulary', (d) => (d.compliance_detail.status = 'unreachable'), '/compliance_detail/status'],
      ['bad pointer', (d) => (d.checks.find((c: any) => c.evidence?.pointer).evidence.pointer = 'no-slash'), '/pointer'],
      ['missing suites', (d) => delete d.suites, 'suites'],
      ['malformed spec anchor', (d) => (d.checks[0].spec_ref.anchor = '#4.1 Registry'), '/checks/0/spec_ref/anchor'],
    ];
    for (const [name, mutate, where] of cases) {
      const doc = parsedDoc();
      mutate(doc);
      const result = validateAgentCompliance(doc);
      expect(result.valid, name).toBe(false);
      expect(result.errors.join('\n'), name).toContain(where);
    }
  });

  it('keeps the heading anchor of a spec reference', () => {
    const run = buildRunFixture();
    run.checks[0]!.spec_ref = { ...run.checks[0]!.spec_ref, anchor: '41-registry-rest' };
    const doc = parsedDoc(run);
    expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
    expect(Object.keys(doc.checks[0].spec_ref)).toEqual(['doc', 'section', 'anchor', ...(run.checks[0]!.spec_ref.rule ? ['rule'] : [])]);
  });

  it('rejects documents whose fields contradict each other', () => {
    const cases: Array<[string, (d: Record<string, any>) => void, string]> = [
      ['run counts', (d) => (d.counts.pass += 1), '/counts.pass'],
      ['suite counts', (d) => (d.suites[0].counts.fail = 0), '/suites/0/counts.fail'],
      ['per-transport counts', (d) => (d.suites[0].by_transport.a2a.counts.fail = 2), '/suites/0/by_transport/a2a/counts.fail'],
      ['unknown suite', (d) => (d.checks[0].suite_id = 'nope'), '/checks/0/suite_id'],
      ['duplicate result', (d) => d.checks.push(structuredClone(d.checks[0])), 'duplicate result'],
      ['dangling first failure', (d) => (d.suites[0].first_failure.check_id = 'x.y'), 'first_failure'],
      ['time travel', (d) => (d.finished_at = '2020-01-01T00:00:00Z'), '/finished_at'],
      ['forged projection', (d) => (d.compliance_detail.storyboards_passing = 5), '/compliance_detail'],
    ];
    for (const [name, mutate, where] of cases) {
      const doc = parsedDoc();
      mutate(doc);
      const result = validateAgentCompliance(doc);
      expect(result.valid, name).toBe(false);
      expect(result.errors.join('\n'), name).toContain(where);
    }
  });

  it('refuses to write an invalid run and reports the ajv errors', async () => {
    const run = buildRunFixture();
    (run.checks[0] as any).outcome = 'bogus';
    expect(() => renderAgentComplianceJson(run)).toThrow(AgentComplianceValidationError);
    const sub = join(dir, 'invalid');
    await expect(writeAgentComplianceJson(run, sub)).rejects.toThrow(/\/checks\/0\/outcome/);
    await expect(readdir(sub)).rejects.toThrow(); // nothing written, not even the directory
  });

  it('validates a run with no checks (unreachable agent)', () => {
    const run = buildRunFixture();
    run.checks = [];
    run.suites = run.suites.map((s) => ({
      ...s,
      status: 'untested',
      counts: { ...run.counts, pass: 0, fail: 0, warn: 0, info: 0, not_applicable: 0, blocked: 0, gap: 0, error: 0 },
      by_transport: {},
      first_failure: undefined,
    }));
    run.counts = { pass: 0, fail: 0, warn: 0, info: 0, not_applicable: 0, blocked: 0, gap: 0, error: 0 };
    run.overall_status = 'unreachable';
    const doc = buildAgentCompliance(run);
    expect(doc.compliance_detail.status).toBe('unknown');
    expect(validateAgentCompliance(JSON.parse(JSON.stringify(doc)))).toEqual({ valid: true, errors: [] });
  });
});
