/**
 * Proof of detection for the buyer side: every fault profile of the mock buyer makes exactly the
 * webhook-receiver checks it targets fail (plus its declared collateral), on both envelopes, and
 * nothing else. Faults of a matrix group are judged together against the whole suite and each
 * alone against the checks the group names and those the shared run did not judge, as the seller
 * faults are (suites/testing/mock-run.ts runFaultMatrix). Prints the mutation score (faults caught / faults).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { runFaultMatrix, type MatrixVerdict } from '../../suites/testing/mock-run.js';
import { listBuyerFaults } from './faults.js';
import { certifyMockBuyer } from './testing/certify-buyer.js';

const faults = listBuyerFaults();
let results = new Map<string, MatrixVerdict>();
let identity: SenderIdentity | undefined;

describe('mock buyer fault profiles', () => {
  beforeAll(async () => {
    identity = await startSenderIdentity();
    const sender = identity;
    results = await runFaultMatrix(faults, {
      parallel: 3,
      run: (active, checkGlob) => certifyMockBuyer({ identity: sender, buyer: { faults: active.map((f) => f.name) }, ...(checkGlob ? { checkGlob } : {}) }),
    });
  }, 600_000);

  afterAll(async () => {
    await identity?.close();
    const verdicts = [...results.values()];
    const caught = verdicts.filter((v) => v.caught).length;
    const exact = verdicts.filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(
      `buyer mutation score: ${caught}/${faults.length} faults caught by their targeted webhook-receiver checks (${exact} exactly, nothing else failing)`,
    );
  });

  it('covers the required receiver faults', () => {
    const names = faults.map((f) => f.name);
    for (const n of [
      'dedup-per-endpoint',
      'duplicate-409',
      'older-status-applied',
      'no-413',
      'no-429-bound',
      'accepts-wrong-content-type',
      'skips-digest',
      'accepts-replayed-nonce',
      'accepts-expired-window',
      'accepts-wrong-tag',
    ]) {
      expect(names).toContain(n);
    }
  });

  it.each(faults.map((f) => [f.name] as const))('%s is caught by exactly its targeted checks', (name) => {
    const verdict = results.get(name)!;
    expect(verdict.errored).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
