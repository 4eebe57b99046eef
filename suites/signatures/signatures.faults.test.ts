/**
 * Proof of detection for the mock seller's verifier faults (mocks/seller/signing/faults.ts):
 * with each fault active and every suite running, exactly the fault's targeted signatures
 * check(s) fail, on both transports, and nothing else; no check errors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { listFaults } from '../../mocks/seller/faults.js';
import { VERIFIER_FAULTS } from '../../mocks/seller/signing/faults.js';
import { certifyMock, erroredChecks, judgeFault, type FaultVerdict } from '../testing/mock-run.js';

const names = new Set<string>(Object.values(VERIFIER_FAULTS));
const faults = listFaults().filter((f) => names.has(f.name));
const results = new Map<string, FaultVerdict>();

describe.concurrent('verifier fault profiles', () => {
  afterAll(() => {
    const exact = [...results.values()].filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(`verifier mutation score: ${[...results.values()].filter((v) => v.caught).length}/${faults.length} faults caught (${exact} exactly)`);
  });

  it('are registered, at least eight, each targeting signatures checks only', () => {
    expect(faults.map((f) => f.name).sort()).toEqual([...names].sort());
    expect(faults.length).toBeGreaterThanOrEqual(8);
    for (const f of faults) {
      expect(
        f.targets.every((t) => t.startsWith('signatures.')),
        f.name,
      ).toBe(true);
      expect(f.rule, f.name).toMatch(/\(digest [\d.]+/);
      expect(f.transports, f.name).toBeUndefined(); // both transports
    }
    const targets = faults.flatMap((f) => f.targets);
    expect(new Set(targets).size).toBe(targets.length); // each caught by its own check id
  });

  it.each(faults.map((f) => [f.name, f] as const))('%s fails exactly its targeted checks', async (_name, fault) => {
    const run = await certifyMock({ mock: { faults: [fault.name] } });
    const verdict = judgeFault(fault, run);
    results.set(fault.name, verdict);
    expect(erroredChecks(run)).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
