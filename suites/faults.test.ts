/**
 * Proof of detection: every fault profile of the mock seller makes exactly the checks it
 * targets fail (plus its declared collateral), on the transports it affects, and nothing else,
 * with every suite running. Prints the mutation score (faults caught / faults). Faults of a
 * matrix group are judged together against every suite
 * and each alone against the checks the group names and those the shared run did not judge
 * (suites/testing/mock-run.ts runFaultMatrix).
 *
 * The verifier faults and the webhook faults are judged the same way in their own files
 * (suites/signatures/signatures.faults.test.ts, suites/webhooks/webhooks.faults.test.ts) so each fault runs once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFaults } from '../mocks/seller/faults.js';
import { VERIFIER_FAULTS } from '../mocks/seller/signing/faults.js';
import { WEBHOOK_FAULTS } from '../mocks/seller/webhooks/faults.js';
import { runFaultMatrix, type MatrixVerdict } from './testing/mock-run.js';

const ownedElsewhere = new Set<string>([...Object.values(VERIFIER_FAULTS), ...WEBHOOK_FAULTS.map((f) => f.name)]);
// A storyboard fault is proven by its bundle's own test (FaultDef.storyboard).
const faults = listFaults().filter((f) => !ownedElsewhere.has(f.name) && !f.storyboard);
let results = new Map<string, MatrixVerdict>();

describe('mock seller fault profiles', () => {
  beforeAll(async () => {
    results = await runFaultMatrix(faults, { parallel: 3 });
  }, 600_000);

  afterAll(() => {
    const verdicts = [...results.values()];
    const caught = verdicts.filter((v) => v.caught).length;
    const exact = verdicts.filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(
      `mutation score: ${caught}/${faults.length} seller faults caught by their targeted checks (${exact} exactly, nothing else failing); ` +
        `verifier and webhook faults: see their own files`,
    );
  });

  it.each(faults.map((f) => [f.name, f] as const))('%s is caught by exactly its targeted checks', (name) => {
    const verdict = results.get(name)!;
    expect(verdict.errored).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
