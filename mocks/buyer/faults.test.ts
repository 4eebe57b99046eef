/**
 * Proof of detection for the buyer side: every fault profile of the mock buyer makes exactly the
 * webhook-receiver checks it targets fail (plus its declared collateral), on both envelopes, and
 * nothing else. Prints the mutation score (faults caught / faults).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { findingIds } from '../../suites/testing/mock-run.js';
import { listBuyerFaults, type BuyerFaultDef } from './faults.js';
import { certifyMockBuyer } from './testing/certify-buyer.js';
import type { RunResult } from '../../harness/core/engine/result.js';

type Verdict = { caught: boolean; missed: string[]; unexpected: string[] };

function judge(fault: BuyerFaultDef, found: Record<'mcp' | 'a2a', string[]>): Verdict {
  const allowed = new Set([...fault.targets, ...(fault.collateral ?? [])]);
  const missed: string[] = [];
  const unexpected: string[] = [];
  for (const t of ['mcp', 'a2a'] as const) {
    for (const target of fault.targets) if (!found[t].includes(target)) missed.push(`${t} ${target}`);
    unexpected.push(...found[t].filter((id) => !allowed.has(id)).map((id) => `${t} ${id}`));
  }
  return { caught: missed.length === 0, missed, unexpected };
}

/** One whole-suite certification, a few at once on shared cores. */
const RUN_TIMEOUT_MS = 180_000;
/** An unexpected finding with its outcome and message, so a failing matrix says why. */
function explain(run: RunResult, ids: string[]): string[] {
  return ids.map((tid) => {
    const c = run.checks.find((x) => `${x.transport} ${x.check_id}` === tid);
    return c ? `${tid} (${c.outcome}: ${c.message?.slice(0, 200)})` : tid;
  });
}
const faults = listBuyerFaults();
const results = new Map<string, Verdict>();
const groups = new Map<string, BuyerFaultDef[]>();
for (const f of faults) if (f.matrixGroup) groups.set(f.matrixGroup, [...(groups.get(f.matrixGroup) ?? []), f]);
/** The checks a group names: its faults' targets and collateral. */
const groupChecks = (g: BuyerFaultDef[]) => [...new Set(g.flatMap((f) => [...f.targets, ...(f.collateral ?? [])]))];

describe.concurrent('mock buyer fault profiles', () => {
  let identity: SenderIdentity;
  beforeAll(async () => {
    identity = await startSenderIdentity();
  });
  afterAll(async () => {
    await identity?.close();
    const caught = [...results.values()].filter((v) => v.caught).length;
    const exact = [...results.values()].filter((v) => v.caught && v.unexpected.length === 0).length;
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

  // A group runs together once against the whole suite: its targets fail, nothing beyond the group's checks.
  it.each([...groups].map(([name, g]) => [name, g] as const))(
    'the %s group fails only the checks its faults name',
    async (_name, group) => {
      const run = await certifyMockBuyer({ identity, buyer: { faults: group.map((f) => f.name) } });
      expect(run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
      const together: BuyerFaultDef = { name: group[0]!.name, rule: 'group', targets: group.flatMap((f) => f.targets), collateral: groupChecks(group) };
      const verdict = judge(together, { mcp: findingIds(run, 'mcp'), a2a: findingIds(run, 'a2a') });
      expect({ missed: verdict.missed, unexpected: explain(run, verdict.unexpected) }).toEqual({ missed: [], unexpected: [] });
    },
    RUN_TIMEOUT_MS,
  );

  // Each fault alone: against the whole suite, or (in a group) against the checks its group names.
  it.each(faults.map((f) => [f.name, f] as const))(
    '%s is caught by exactly its targeted checks',
    async (_name, fault) => {
      const checkGlob = fault.matrixGroup ? groupChecks(groups.get(fault.matrixGroup)!).join(',') : undefined;
      const run = await certifyMockBuyer({ identity, buyer: { faults: [fault.name] }, ...(checkGlob ? { checkGlob } : {}) });
      expect(run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`)).toEqual([]);
      const verdict = judge(fault, { mcp: findingIds(run, 'mcp'), a2a: findingIds(run, 'a2a') });
      results.set(fault.name, verdict);
      expect({ missed: verdict.missed, unexpected: explain(run, verdict.unexpected) }).toEqual({ missed: [], unexpected: [] });
    },
    RUN_TIMEOUT_MS,
  );
});
