/**
 * The passive kill rate of the webhook rules: every mock-seller fault profile whose targets include
 * a webhook rule the audit judges is put behind the proxy while `run`'s webhooks suite drives the
 * seller, the run's receiver behind the proxy's webhook relay; the audit alone must flag each such
 * target on the fault's transports, and flag nothing the run does not fail.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listFaults } from '../../mocks/seller/faults.js';
import { passiveKillRate } from './testing/through-proxy.js';
import { WEBHOOK_AUDITED_CHECKS } from './webhook-audit.js';

const audited = new Set<string>(WEBHOOK_AUDITED_CHECKS);
const observable = listFaults().filter((f) => f.targets.some((t) => audited.has(t)));

describe('the passive audit against every fault of a webhook rule', () => {
  it('flags each targeted audited check from relayed webhooks alone', async () => {
    const r = await passiveKillRate(observable, audited, {
      authToken: randomBytes(18).toString('base64url'),
      suites: ['setup', 'capabilities', 'webhooks'],
      relay: true,
    });
    console.log(`passive kill rate (webhooks): ${r.caught}/${observable.length} faults observable in relayed webhooks flagged by the proxy's audit alone`);
    expect({ missed: r.missed, extra: r.extra }).toEqual({ missed: [], extra: [] });
  }, 600_000);
});
