/**
 * The passive kill rate of the call rules: every mock-seller fault profile whose targets include a
 * call rule the audit judges is put behind the proxy while `run` drives the seller; the audit
 * alone, with no probing of its own, must flag each such target on the fault's transports, and
 * flag nothing the run does not fail. (Webhook rules: webhook-kill-rate.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listFaults } from '../../mocks/seller/faults.js';
import { AUDITED_CHECKS } from './audit.js';
import { KEYED_SIGNATURE_CHECKS, SIGNATURE_AUDITED_CHECKS } from './signature-audit.js';
import { passiveKillRate } from './testing/through-proxy.js';

const audited = new Set<string>([...AUDITED_CHECKS, ...SIGNATURE_AUDITED_CHECKS, ...KEYED_SIGNATURE_CHECKS]);
const observable = listFaults().filter((f) => f.targets.some((t) => audited.has(t)));

describe('the passive audit against every fault of a call rule', () => {
  it('flags each targeted audited check from traffic alone', async () => {
    const suites = ['setup', 'capabilities', 'errors', 'state-machine', 'idempotency', 'records', 'schemas', 'signatures'];
    const r = await passiveKillRate(observable, audited, { authToken: randomBytes(18).toString('base64url'), suites, relay: false, callerKeys: true });
    console.log(`passive kill rate (calls): ${r.caught}/${observable.length} faults observable in call traffic flagged by the proxy's audit alone`);
    expect({ missed: r.missed, extra: r.extra }).toEqual({ missed: [], extra: [] });
  }, 600_000);
});
