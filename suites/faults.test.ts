/**
 * Proof of detection: every fault profile of the mock seller makes exactly the checks it
 * targets fail (plus its declared collateral), on the transports it affects, and nothing else,
 * with every suite running. Prints the mutation score (faults caught / faults).
 *
 * The verifier faults and the webhook faults are judged the same way in their own files
 * (suites/signatures.faults.test.ts, suites/webhooks.faults.test.ts) so each fault runs once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { listFaults } from '../mocks/seller/faults.js';
import { VERIFIER_FAULTS } from '../mocks/seller/signing/faults.js';
import { WEBHOOK_FAULTS } from '../mocks/seller/webhooks/faults.js';
import { certifyMock, erroredChecks, judgeFault, type FaultVerdict } from './testing/mock-run.js';

const ownedElsewhere = new Set<string>([...Object.values(VERIFIER_FAULTS), ...WEBHOOK_FAULTS.map((f) => f.name)]);
const faults = listFaults().filter((f) => !ownedElsewhere.has(f.name));
const results = new Map<string, FaultVerdict>();

describe.concurrent('mock seller fault profiles', () => {
  afterAll(() => {
    const caught = [...results.values()].filter((v) => v.caught).length;
    const exact = [...results.values()].filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(
      `mutation score: ${caught}/${faults.length} seller faults caught by their targeted checks (${exact} exactly, nothing else failing); ` +
        `verifier and webhook faults: see their own files`,
    );
  });

  it.each(faults.map((f) => [f.name, f] as const))('%s is caught by exactly its targeted checks', async (_name, fault) => {
    const run = await certifyMock({ mock: { faults: [fault.name] } });
    const verdict = judgeFault(fault, run);
    results.set(fault.name, verdict);
    expect(erroredChecks(run)).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
