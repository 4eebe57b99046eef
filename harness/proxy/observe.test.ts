/**
 * What the proxy reads from A2A polling: a tasks/get of a task a message/send started is that
 * task's answer, judged on its final result by the reply rules only (never as a new request).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import { createRecorder, createTransport, DEFAULT_TRANSPORT_LIMITS, resolveEndpoints } from '../core/transport/index.js';
import { startAuditingProxy } from './session.js';

describe('A2A tasks/get through the proxy', () => {
  it('judges the polled final answer under the task it completes, and nothing as a replay', async () => {
    const AUTH = randomBytes(18).toString('base64url');
    const seller = await startMockSeller({ authToken: AUTH, bookingLatencyMs: 0 });
    const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto' });
    const a2a = createTransport(
      'a2a',
      { agentUrl: proxy.url, token: 'proto', authToken: AUTH, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder({ secrets: [AUTH] }) },
      resolveEndpoints(proxy.url),
    );
    try {
      const account = { brand: { domain: 'example.com' }, operator: `op-${randomBytes(4).toString('hex')}.example` };
      const control = (scenario: string, params: Record<string, unknown>) =>
        a2a.call('comply_test_controller', { scenario, params, account: { ...account, sandbox: true } });
      const products = await a2a.call('get_products', { buying_mode: 'brief', brief: 'sports video', brand: { domain: 'example.com' }, account });
      const product = (products.payload as { products: Array<{ product_id: string; pricing_options: Array<{ pricing_option_id: string }> }> }).products[0];
      expect((await control('force_create_media_buy_arm', { arm: 'submitted', task_id: 'task-poll-1' })).ok).toBe(true);
      const create = await a2a.call('create_media_buy', {
        idempotency_key: randomBytes(16).toString('hex'),
        account,
        brand: { domain: 'example.com' },
        start_time: 'asap',
        end_time: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        packages: [{ product_id: product.product_id, pricing_option_id: product.pricing_options[0].pricing_option_id, budget: 5000 }],
        context: { trace: 'poll' },
      });
      expect(create.status).toBe('submitted');
      const before = await a2a.getTask(create.taskId ?? '');
      expect(before.status).toBe('submitted');
      const done = await control('force_task_completion', {
        task_id: 'task-poll-1',
        result: { media_buy_id: 'mb_poll_1', status: 'active', revision: 1, valid_actions: ['pause', 'cancel', 'update_budget'] },
      });
      expect(done.ok).toBe(true);
      const after = await a2a.getTask(create.taskId ?? '');
      expect(after.status).toBe('completed');
      const report = proxy.result();
      const check = (id: string) => report.checks.find((c) => c.check_id === id && c.transport === 'a2a');
      // The polled result's valid_actions are judged; nothing is taken for a replay or a changed payload.
      expect(check('state-machine.valid-actions.match-state')?.message).toMatch(/valid_actions/);
      expect(report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => c.check_id)).toEqual([]);
      expect(check('idempotency.replay.flagged')?.outcome).toBe('gap');
    } finally {
      await a2a.close();
      await proxy.close();
      await seller.close();
    }
  }, 60_000);
});
