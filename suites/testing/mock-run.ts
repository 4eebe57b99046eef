/** Self-test support: certify a freshly started mock seller (optionally with faults). */
import { randomBytes } from 'node:crypto';
import { certify, type CertifyOptions } from '../../harness/certify.js';
import type { CheckResult, RunResult } from '../../harness/engine/result.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { MockSellerOptions } from '../../mocks/seller/options.js';

export interface MockRunOptions extends Omit<CertifyOptions, 'agentUrl' | 'authToken'> {
  mock?: MockSellerOptions;
  /** Give the mock a bearer token and the harness the same one (default true). */
  withAuth?: boolean;
}

export async function certifyMock(o: MockRunOptions = {}): Promise<RunResult> {
  const authToken = o.withAuth === false ? undefined : randomBytes(18).toString('base64url');
  const mock = await startMockSeller({ token: o.token, authToken, ...o.mock });
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
  return [...new Set(findings(run).filter((c) => !transport || c.transport === transport).map((c) => c.check_id))].sort();
}
