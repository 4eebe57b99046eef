/**
 * Proof of detection for the webhook faults of the mock seller: the `webhooks` suite, run
 * against a seller with one webhook fault (every suite running), fails exactly the checks the
 * fault targets (plus its declared collateral) on both transports, and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/engine/result.js';
import { WEBHOOK_FAULTS } from '../../mocks/seller/webhooks/faults.js';
import { certifyMock, erroredChecks, judgeFault } from '../testing/mock-run.js';

// A longer quiet period: a fault that sends what it must not is seen even on a loaded machine.
process.env.PROTO_COMPLY_WEBHOOK_QUIET_S = '2';

const PARALLEL = 4;
const runs = new Map<string, RunResult>();

async function runAll(): Promise<void> {
  const queue = [...WEBHOOK_FAULTS];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        runs.set(f.name, await certifyMock({ mock: { faults: [f.name] }, timeoutS: 60 }));
      }
    }),
  );
}

describe('webhook fault profiles', () => {
  beforeAll(runAll, 240_000);

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
    ]) {
      expect(names).toContain(n);
    }
  });

  afterAll(() => {
    const verdicts = WEBHOOK_FAULTS.filter((f) => runs.has(f.name)).map((f) => judgeFault(f, runs.get(f.name)!));
    const exact = verdicts.filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(`webhook mutation score: ${verdicts.filter((v) => v.caught).length}/${WEBHOOK_FAULTS.length} faults caught (${exact} exactly)`);
  });

  it.each(WEBHOOK_FAULTS.map((f) => [f.name, f] as const))('%s is caught by exactly its targeted checks', (_name, fault) => {
    const run = runs.get(fault.name)!;
    expect(erroredChecks(run)).toEqual([]);
    const verdict = judgeFault(fault, run);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
