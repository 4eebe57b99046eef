/** Test support: run the request properties against the mock with one fault, and judge detection, evidence and replay. */
import { expect } from 'vitest';
import { startMockSeller } from '../../../mocks/seller/index.js';
import type { FaultDef } from '../../../mocks/seller/faults.js';
import type { CheckResult } from '../../core/engine/result.js';
import { REQUEST_PROPERTIES } from '../properties/index.js';
import type { FuzzEvidence } from '../report.js';
import { runFuzz } from '../run.js';
import { FUZZ_TASKS } from '../requests.js';
import type { SentCall } from '../wire-log.js';

const AUTH = 'fuzz-kill-token-0123456789';

/**
 * Every request property on every fuzzed task, against the mock with `fault` (on the fault's
 * first transport): the checks that failed, each with its shrunk counterexample, seed, path and
 * replay command, and each replaying (exactly that case, from seed and path) to the same failure.
 */
export async function requestPropertiesFind(fault: FaultDef, runs = 40): Promise<CheckResult[]> {
  const seller = await startMockSeller({ authToken: AUTH, faults: [fault.name], bookingLatencyMs: 0 });
  const transport = fault.transports?.[0] ?? 'mcp';
  const fuzz = (replay?: { checkId: string; path: string; sent?: SentCall[] }) =>
    runFuzz({
      agentUrl: seller.baseUrl,
      transports: [transport],
      token: 'proto',
      authToken: AUTH,
      seed: 7,
      runs,
      // The faults of the four suites act on the media-buy tasks: the other mutating tasks are hunted by kill-rate.test.ts's records test.
      tasks: [...FUZZ_TASKS],
      properties: REQUEST_PROPERTIES,
      reportFile: 'fuzz-report/agent-compliance.json',
      command: 'test',
      ...(replay ? { replay } : {}),
    });
  try {
    const failed = (await fuzz()).checks.filter((c) => c.outcome === 'fail');
    for (const check of failed) {
      const fz = (check.evidence?.actual as FuzzEvidence | undefined)?.fuzz;
      expect(fz?.seed, check.check_id).toBe(7);
      expect(fz?.path, check.check_id).toMatch(/^\d+(:\d+)*$/);
      expect(fz?.counterexample, check.check_id).toBeDefined();
      expect(check.evidence?.notes?.[0]).toMatch(new RegExp(`^replay: npx proto-comply fuzz --replay '.*#${check.check_id}@${transport}'$`));
    }
    if (failed[0]) {
      const first = failed[0];
      const { path, sent } = (first.evidence!.actual as FuzzEvidence).fuzz;
      const again = (await fuzz({ checkId: first.check_id, path, ...(sent ? { sent } : {}) })).checks;
      expect(
        again.map((c) => `${c.check_id} ${c.outcome}`),
        `${fault.name}: --replay`,
      ).toEqual([`${first.check_id} fail`]);
    }
    return failed;
  } finally {
    await seller.close();
  }
}
