/** Self-test support: certify a freshly started mock seller (optionally with faults). */
import { randomBytes } from 'node:crypto';
import { certify, type CertifyOptions } from '../../harness/certify.js';
import type { CheckResult, RunResult } from '../../harness/engine/result.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { MockSellerOptions } from '../../mocks/seller/options.js';
import type { FaultDef } from '../../mocks/seller/faults.js';

export interface MockRunOptions extends Omit<CertifyOptions, 'agentUrl' | 'authToken'> {
  mock?: MockSellerOptions;
  /** Give the mock a bearer token and the harness the same one (default true). */
  withAuth?: boolean;
}

export async function certifyMock(o: MockRunOptions = {}): Promise<RunResult> {
  const authToken = o.withAuth === false ? undefined : randomBytes(18).toString('base64url');
  const mock = await startMockSeller({ token: o.token, authToken, allowPrivateWebhooks: true, ...o.mock });
  try {
    return await certify({ ...o, agentUrl: mock.baseUrl, authToken, seed: o.seed ?? '20261122' });
  } finally {
    await mock.close();
  }
}

/** Checks that did not pass and were not merely inapplicable. */
export function findings(run: RunResult): CheckResult[] {
  return run.checks.filter((c) => c.outcome !== 'pass' && c.outcome !== 'not_applicable');
}

export function findingIds(run: RunResult, transport?: string): string[] {
  return [
    ...new Set(
      findings(run)
        .filter((c) => !transport || c.transport === transport)
        .map((c) => c.check_id),
    ),
  ].sort();
}

/** What one fault run showed: targets missed on an affected transport, checks failing beyond targets and collateral. */
export interface FaultVerdict {
  caught: boolean;
  missed: string[];
  unexpected: string[];
}

/**
 * Judges a run of every suite against the mock with one fault: each target must fail (a verdict:
 * fail, warn or info, not blocked) on each transport the fault affects, and nothing outside its
 * targets and declared collateral may be a finding (failed, blocked, a gap, an error)
 * (unless the fault breaks the transport itself); a transport it does not affect must be clean.
 */
export function judgeFault(fault: FaultDef, run: RunResult): FaultVerdict {
  const affected = fault.transports ?? ['mcp', 'a2a'];
  const allowed = new Set([...fault.targets, ...(fault.collateral ?? [])]);
  const missed: string[] = [];
  const unexpected: string[] = [];
  const explain = (t: string, id: string) => {
    const c = run.checks.find((x) => x.transport === t && x.check_id === id);
    return `${t} ${id} (${c?.outcome}: ${c?.message})`;
  };
  for (const t of ['mcp', 'a2a'] as const) {
    // A check blocked by a target (or by a declared collateral check) is the cascade the fault is
    // expected to cause, not a finding of its own.
    const found = findings(run)
      .filter((c) => c.transport === t && !(c.outcome === 'blocked' && c.blocked_by !== undefined && allowed.has(c.blocked_by)))
      .map((c) => c.check_id);
    // A target must fail (fail, warn or info: a verdict against the rule); blocked or a gap is not a detection.
    const failed = new Set(
      run.checks.filter((c) => c.transport === t && (c.outcome === 'fail' || c.outcome === 'warn' || c.outcome === 'info')).map((c) => c.check_id),
    );
    if (affected.includes(t)) {
      for (const target of fault.targets) if (!failed.has(target)) missed.push(explain(t, target));
      if (!fault.breaksTransport) unexpected.push(...found.filter((id) => !allowed.has(id)).map((id) => explain(t, id)));
    } else {
      unexpected.push(...found.map((id) => explain(t, id)));
    }
  }
  return { caught: missed.length === 0, missed, unexpected };
}

/** Checks that errored (a harness or suite defect, never acceptable in a fault run). */
export function erroredChecks(run: RunResult): string[] {
  return run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.transport} ${c.check_id}: ${c.message}`);
}
