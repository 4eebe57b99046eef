/**
 * The passive kill rate: every mock-seller fault profile whose targets include a check the audit
 * judges (a rule observable in traffic) is put behind the proxy while `run` drives the seller; the
 * audit alone, with no probing of its own, must flag each such target on the fault's transports,
 * and flag nothing the run does not fail.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certify } from '../certify.js';
import type { RunResult } from '../engine/result.js';
import { listFaults } from '../../mocks/seller/faults.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import { AUDITED_CHECKS } from './audit.js';
import { startAuditingProxy } from './session.js';

const AUTH = randomBytes(18).toString('base64url');
const SUITES = ['setup', 'capabilities', 'errors', 'state-machine', 'idempotency', 'schemas'];
const audited = new Set(AUDITED_CHECKS);
const observable = listFaults().filter((f) => f.targets.some((t) => audited.has(t)));
const broken = (run: RunResult) => run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => `${c.transport} ${c.check_id}`);

describe('the passive audit against every fault observable in traffic', () => {
  it('flags each targeted audited check from traffic alone', async () => {
    const missed: string[] = [];
    const extra: string[] = [];
    for (const fault of observable) {
      const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH, faults: [fault.name] });
      const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto' });
      try {
        const run = await certify({ agentUrl: proxy.url, authToken: AUTH, suites: SUITES });
        const audit = proxy.result();
        const found = broken(audit);
        const expected = fault.targets.filter((t) => audited.has(t)).flatMap((t) => (fault.transports ?? ['mcp', 'a2a']).map((tr) => `${tr} ${t}`));
        const miss = expected.filter((e) => !found.includes(e));
        if (miss.length) missed.push(`${fault.name}: ${miss.join(', ')}`);
        const runBroken = broken(run);
        const beyond = found.filter((x) => !runBroken.includes(x));
        if (beyond.length) extra.push(`${fault.name}: ${beyond.join(', ')}`);
      } finally {
        await proxy.close();
        await seller.close();
      }
    }
    const caught = observable.length - missed.length;
    console.log(`passive kill rate: ${caught}/${observable.length} faults observable in traffic flagged by the proxy's audit alone`);
    expect({ missed, extra }).toEqual({ missed: [], extra: [] });
  }, 600_000);
});
