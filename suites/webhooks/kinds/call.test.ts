/**
 * `webhook_call` (as `call`, through steps/util.ts refusedPushUrl) against a seller that enforces digest 5.9 (https and public webhook URLs only)
 * while the harness's receiver is on http loopback: the refused registration is a coverage gap
 * naming the receiver, not a failure of the rule under test.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../../harness/certify/index.js';
import { startMockSeller } from '../../../mocks/seller/index.js';

describe('webhook_call', () => {
  it('reports a gap, not a failure, when the seller refuses the harness receiver the policy makes it refuse', async () => {
    const seller = await startMockSeller(); // refuses http and private webhook URLs (digest 5.9)
    try {
      const run = await certify({ agentUrl: seller.baseUrl, transports: ['mcp'], checkGlob: 'webhooks.auth.hmac' });
      const hmac = run.checks.find((c) => c.check_id === 'webhooks.auth.hmac');
      expect(hmac?.outcome).toBe('gap');
      expect(hmac?.message).toMatch(/the seller refused the push URL \(127\.0\.0\.1 is a reserved address; digest 5\.9 lets it\)/);
    } finally {
      await seller.close();
    }
  }, 60_000);
});
