/**
 * Proof of detection: every fault profile of the mock seller makes exactly the checks it
 * targets fail (plus its declared collateral), on the transports it affects, and nothing else.
 * Prints the mutation score (faults caught / faults).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { listFaults, type FaultDef } from '../mocks/seller/faults.js';
import { certifyMock, findingIds } from './testing/mock-run.js';

type Verdict = { caught: boolean; missed: string[]; unexpected: string[] };

function judgeFault(fault: FaultDef, found: Record<'mcp' | 'a2a', string[]>): Verdict {
  const affected = fault.transports ?? ['mcp', 'a2a'];
  const allowed = new Set([...fault.targets, ...(fault.collateral ?? [])]);
  const missed: string[] = [];
  const unexpected: string[] = [];
  for (const t of ['mcp', 'a2a'] as const) {
    if (affected.includes(t)) {
      for (const target of fault.targets) if (!found[t].includes(target)) missed.push(`${t} ${target}`);
      if (!fault.breaksTransport) unexpected.push(...found[t].filter((id) => !allowed.has(id)).map((id) => `${t} ${id}`));
    } else {
      unexpected.push(...found[t].map((id) => `${t} ${id}`));
    }
  }
  return { caught: missed.length === 0, missed, unexpected };
}

const faults = listFaults();
const results = new Map<string, Verdict>();

describe.concurrent('mock seller fault profiles', () => {
  afterAll(() => {
    const caught = [...results.values()].filter((v) => v.caught).length;
    const exact = [...results.values()].filter((v) => v.caught && v.unexpected.length === 0).length;
    console.log(`mutation score: ${caught}/${faults.length} faults caught by their targeted checks (${exact} exactly, nothing else failing)`);
  });

  it.each(faults.map((f) => [f.name, f] as const))('%s is caught by exactly its targeted checks', async (_name, fault) => {
    const run = await certifyMock({ mock: { faults: [fault.name] } });
    const verdict = judgeFault(fault, { mcp: findingIds(run, 'mcp'), a2a: findingIds(run, 'a2a') });
    results.set(fault.name, verdict);
    expect(run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
    expect({ missed: verdict.missed, unexpected: verdict.unexpected }).toEqual({ missed: [], unexpected: [] });
  });
});
