/**
 * `webhook_call` against a seller that enforces digest 5.9 (https and public webhook URLs only)
 * while the harness's receiver is on http loopback: the refused registration is a coverage gap
 * naming the receiver, not a failure of the rule under test.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../../harness/certify.js';
import { startMockSeller } from '../../../mocks/seller/index.js';
import { refusableReceiver } from './call.js';

describe('webhook_call', () => {
  it.each([
    ['http://hooks.example.com/x', true],
    ['https://127.0.0.1:8443/x', true],
    ['https://[::1]/x', true],
    ['https://10.1.2.3/x', true],
    ['https://localhost/x', true],
    ['https://hooks.example.com/x', false],
    ['https://93.184.216.34/x', false],
  ])('%s is a receiver a seller must refuse: %s', (url, refusable) => {
    expect(refusableReceiver(url)).toBe(refusable);
  });

  it('reports a gap, not a failure, when the seller refuses the harness receiver the policy makes it refuse', async () => {
    const seller = await startMockSeller(); // refuses http and private webhook URLs (digest 5.9)
    try {
      const run = await certify({ agentUrl: seller.baseUrl, transports: ['mcp'], checkGlob: 'webhooks.auth.hmac' });
      const hmac = run.checks.find((c) => c.check_id === 'webhooks.auth.hmac');
      expect(hmac?.outcome).toBe('gap');
      expect(hmac?.message).toMatch(/refused the registration of the harness's receiver http:\/\/127\.0\.0\.1:\d+\/.*digest 5\.9/);
    } finally {
      await seller.close();
    }
  }, 60_000);
});
