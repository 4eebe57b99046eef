/**
 * Proof of detection for the mock seller's verifier faults (mocks/seller/signing/faults.ts):
 * with each fault active and every suite running, exactly the fault's targeted signatures
 * check(s) fail (plus its declared collateral), on both transports, and nothing else; no check
 * errors. Faults of a matrix group are judged together against every suite
 * and each alone against the checks the group names and those the shared run did not judge
 * (suites/testing/mock-run.ts runFaultMatrix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFaults } from '../../mocks/seller/faults.js';
import { VERIFIER_FAULTS } from '../../mocks/seller/signing/faults.js';
import { runFaultMatrix, type MatrixVerdict } from '../testing/mock-run.js';

const names = new Set<string>(Object.values(VERIFIER_FAULTS));
const faults = listFaults().filter((f) => names.has(f.name));
let results = new Map<string, MatrixVerdict>();

describe('verifier fault profiles', () => {
  beforeAll(async () => {
    results = await runFaultMatrix(faults, { parallel: 3 });
  }, 600_000);

  afterAll(() => {
    const verdicts = [...results.values()];
    const exact = verdicts.filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(`verifier mutation score: ${verdicts.filter((v) => v.caught).length}/${faults.length} faults caught (${exact} exactly)`);
  });

  it('are registered, at least eight, each targeting signatures checks only, each with a target of its own', () => {
    expect(faults.map((f) => f.name).sort()).toEqual([...names].sort());
    expect(faults.length).toBeGreaterThanOrEqual(8);
    for (const f of faults) {
      expect(
        f.targets.every((t) => t.startsWith('signatures.')),
        f.name,
      ).toBe(true);
      expect(f.rule, f.name).toMatch(/\(digest [\d.]+/);
      expect(f.transports, f.name).toBeUndefined(); // both transports
      const others = new Set(faults.filter((g) => g !== f).flatMap((g) => g.targets));
      expect(
        f.targets.some((t) => !others.has(t)),
        `${f.name} has no target of its own`,
      ).toBe(true);
    }
  });

  it.each(faults.map((f) => [f.name, f] as const))('%s fails exactly its targeted checks', (name) => {
    const verdict = results.get(name)!;
    expect(verdict.errored).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
