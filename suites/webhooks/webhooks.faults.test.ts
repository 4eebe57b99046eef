/**
 * Proof of detection for the webhook faults of the mock seller: the `webhooks` suite, run
 * against a seller with one webhook fault (every suite running), fails exactly the checks the
 * fault targets (plus its declared collateral) on both transports, and nothing else. Faults of a
 * matrix group are judged together against every suite
 * and each alone against the checks the group names and those the shared run did not judge
 * (suites/testing/mock-run.ts runFaultMatrix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_FAULTS } from '../../mocks/seller/webhooks/faults.js';
import { runFaultMatrix, type MatrixVerdict } from '../testing/mock-run.js';

// A longer quiet period: a fault that sends what it must not is seen even on a loaded machine.
process.env.PROTO_COMPLY_WEBHOOK_QUIET_S = '2';

let verdicts = new Map<string, MatrixVerdict>();

describe('webhook fault profiles', () => {
  beforeAll(async () => {
    verdicts = await runFaultMatrix(WEBHOOK_FAULTS, { parallel: 4, certify: { timeoutS: 60 } });
  }, 600_000);

  it('registers a fault for each webhook rule the issue names', () => {
    const names = WEBHOOK_FAULTS.map((f) => f.name);
    for (const n of [
      'webhook-on-terminal-response',
      'webhook-operation-id-from-url',
      'webhook-context-not-echoed',
      'webhook-key-rotated-on-retry',
      'webhook-nonce-reused',
      'webhook-unsigned',
      'webhook-events-after-final',
      'webhook-no-final-report',
      'webhook-aggregated-totals',
      'webhook-status-is-buy-status',
      'webhook-disabled-after-401',
      'webhook-window-too-long',
      'webhook-key-unpublished',
      'webhook-a2a-native-as-mcp',
      'webhook-a2a-result-misplaced',
      'webhook-a2a-one-channel',
      'webhook-no-start-announcement',
      'webhook-config-update-ignored',
      'webhook-url-not-checked',
      'webhook-http-accepted',
    ]) {
      expect(names).toContain(n);
    }
  });

  afterAll(() => {
    const all = WEBHOOK_FAULTS.filter((f) => verdicts.has(f.name)).map((f) => verdicts.get(f.name)!);
    const exact = all.filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(`webhook mutation score: ${all.filter((v) => v.caught).length}/${WEBHOOK_FAULTS.length} faults caught (${exact} exactly)`);
  });

  it.each(WEBHOOK_FAULTS.map((f) => [f.name, f] as const))('%s is caught by exactly its targeted checks', (name) => {
    const verdict = verdicts.get(name)!;
    expect(verdict.errored).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
