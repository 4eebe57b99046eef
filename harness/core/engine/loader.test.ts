import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSuiteFile, SuiteLoadError, validateSuite } from './loader.js';
import { KindRegistry } from './kinds/registry.js';

const KINDS = new KindRegistry();

const base = {
  id: 'demo',
  title: 'Demo',
  checks: [
    {
      id: 'demo.area.rule',
      title: 'a rule',
      level: 'MUST',
      spec: { doc: 'interface-spec', section: '7' },
      steps: [{ kind: 'call', task: 'get_products', expect: [{ kind: 'success' }] }],
    },
  ],
};

function variant(mutate: (s: any) => void) {
  const copy = structuredClone(base);
  mutate(copy);
  return copy;
}

describe('suite loader', () => {
  it('accepts a well-formed suite', () => {
    expect(validateSuite(base, 'demo.yaml', KINDS).checks).toHaveLength(1);
  });

  it('accepts the heading anchor in a spec reference', () => {
    const withAnchor = variant((s) => (s.checks[0].spec.anchor = '7-errors'));
    expect(validateSuite(withAnchor, 'demo.yaml', KINDS).checks[0]!.spec).toEqual({ doc: 'interface-spec', section: '7', anchor: '7-errors' });
  });

  it.each([
    ['an unknown step kind', (s: any) => (s.checks[0].steps[0].kind = 'teleport'), /unknown step kind "teleport"/],
    ['an unknown step field', (s: any) => (s.checks[0].steps[0].taks = 'x'), /taks/],
    ['an unknown expectation kind', (s: any) => (s.checks[0].steps[0].expect = [{ kind: 'vibes' }]), /unknown expectation kind "vibes"/],
    ['an unknown expectation field', (s: any) => (s.checks[0].steps[0].expect = [{ kind: 'error_code', allowed_code: ['X'] }]), /allowed_code/],
    ['a missing required expectation field', (s: any) => (s.checks[0].steps[0].expect = [{ kind: 'error_code' }]), /allowed_codes/],
    ['an unknown check field', (s: any) => (s.checks[0].severity = 'high'), /severity/],
    ['a bad level', (s: any) => (s.checks[0].level = 'MIGHT'), /level/],
    ['a spec anchor that is no heading anchor', (s: any) => (s.checks[0].spec.anchor = '#7 Errors'), /spec\/anchor/],
    ['a check id outside the suite', (s: any) => (s.checks[0].id = 'other.area.rule'), /must start with the suite id/],
    ['a positional check id', (s: any) => (s.checks[0].id = 'demo'), /id/],
    ['a duplicate check id', (s: any) => s.checks.push(structuredClone(s.checks[0])), /duplicate check id/],
    [
      'a nested unknown expectation',
      (s: any) => (s.checks[0].steps[0] = { kind: 'call_concurrent', task: 't', count: 2, expect: [{ kind: 'each', expect: [{ kind: 'nope' }] }] }),
      /nope/,
    ],
    ['a bad condition', (s: any) => (s.checks[0].applies_when = { capability_path: '/x' }), /applies_when/],
  ])('rejects %s', (_name, mutate, message) => {
    expect(() => validateSuite(variant(mutate), 'demo.yaml', KINDS)).toThrow(SuiteLoadError);
    expect(() => validateSuite(variant(mutate), 'demo.yaml', KINDS)).toThrow(message);
  });
});

describe('suite files', () => {
  const load = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'suite-file-'));
    try {
      const file = join(dir, 'demo.yaml');
      writeFileSync(file, text);
      return loadSuiteFile(file, KINDS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const suite = (checkExtra: string) => `id: demo
title: Demo
fragments:
  spec: &spec { doc: interface-spec, section: "7" }
checks:
  - id: demo.area.rule
    title: a rule
    level: MUST
    spec: { <<: *spec, rule: "merged" }
    steps: [{ kind: call, task: get_products, expect: [{ kind: success }] }]
${checkExtra}`;

  it('reads merge keys', () => {
    expect(load(suite('')).checks[0]!.spec).toMatchObject({ doc: 'interface-spec', section: '7', rule: 'merged' });
  });

  it('refuses a duplicated key, naming the file and the line', () => {
    expect(() => load(suite('    title: again\n'))).toThrow(SuiteLoadError);
    expect(() => load(suite('    title: again\n'))).toThrow(/demo\.yaml: duplicated mapping key \(11:5\)/);
  });
});
