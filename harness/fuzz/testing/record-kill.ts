/** Test support: fuzz.errors.near-valid-refused on the other mutating tasks of spec 4.3, against one mock with several faults. */
import { startMockSeller } from '../../../mocks/seller/index.js';
import { nearValidRefused } from '../properties/near-valid-refused.js';
import { MUTATING_RECORD_TASKS } from '../requests.js';
import { runFuzz } from '../run.js';

/** The ids of the checks that failed (each fault acts on its own task, so one mock serves them all). */
export async function recordTasksFind(faults: string[], runs = 100): Promise<string[]> {
  const seller = await startMockSeller({ authToken: 'fuzz-record-kill-token-0123', faults, bookingLatencyMs: 0 });
  try {
    const run = await runFuzz({
      agentUrl: seller.baseUrl,
      transports: ['mcp'],
      token: 'proto',
      authToken: 'fuzz-record-kill-token-0123',
      seed: 7,
      runs,
      tasks: [...MUTATING_RECORD_TASKS],
      properties: [nearValidRefused],
      reportFile: 'fuzz-report/agent-compliance.json',
      command: 'test',
    });
    return run.checks.filter((c) => c.outcome === 'fail').map((c) => c.check_id);
  } finally {
    await seller.close();
  }
}
