/**
 * Checks that need a test-controller scenario name it in `requires`; a scenario the spec does not
 * define (harness/core/protocol/controller-scenarios.ts) makes the check a coverage gap by
 * construction, and the check says so in `requires_feature`.
 */
import { describe, expect, it } from 'vitest';
import type { Condition } from '../harness/core/engine/model.js';
import { EXTENSION_SCENARIOS, SPEC_SCENARIOS, isSpecScenario } from '../harness/core/protocol/controller-scenarios.js';
import { builtinSuites } from './index.js';

function scenariosIn(c: Condition | undefined): string[] {
  if (!c) return [];
  if ('all' in c) return c.all.flatMap(scenariosIn);
  if ('any' in c) return c.any.flatMap(scenariosIn);
  if ('not' in c) return scenariosIn(c.not);
  if ('controller_scenario' in c) return [c.controller_scenario];
  return [];
}

describe('test-controller scenarios', () => {
  const checks = builtinSuites().suites.flatMap((s) => s.checks);
  const needing = checks.map((c) => ({ check: c, scenarios: scenariosIn(c.requires) })).filter((x) => x.scenarios.length > 0);

  it('every scenario a check requires is one the spec defines or a known extension', () => {
    const known = new Set<string>([...SPEC_SCENARIOS, ...EXTENSION_SCENARIOS]);
    expect(needing.flatMap((x) => x.scenarios.filter((s) => !known.has(s)).map((s) => `${x.check.id}: ${s}`))).toEqual([]);
    expect(needing.length).toBeGreaterThan(0);
  });

  it('a check that needs a scenario names its feature; one that needs an extension says so', () => {
    for (const { check, scenarios } of needing) {
      expect(check.requires_feature, check.id).toBeTruthy();
      for (const s of scenarios.filter((x) => !isSpecScenario(x))) expect(check.requires_feature, check.id).toContain(`extension ${s}`);
      if (scenarios.every(isSpecScenario)) expect(check.requires_feature, check.id).not.toContain('extension');
    }
  });

  it('the lists do not overlap', () => {
    expect(EXTENSION_SCENARIOS.filter((s) => (SPEC_SCENARIOS as readonly string[]).includes(s))).toEqual([]);
  });
});
