/** Test support: a FuzzContext against a freshly started reference mock seller (optionally with faults). */
import { randomBytes, randomUUID } from 'node:crypto';
import { probeDistinctKeys } from '../../core/fixtures/accounts.js';
import { startMockSeller } from '../../../mocks/seller/index.js';
import type { MockSellerOptions, RunningMockSeller } from '../../../mocks/seller/options.js';
import { createRecorder } from '../../core/transport/capture.js';
import { resolveEndpoints } from '../../core/transport/endpoints.js';
import { createTransport } from '../../core/transport/factory.js';
import { DEFAULT_TRANSPORT_LIMITS, type Transport, type TransportKind } from '../../core/transport/types.js';
import type { FuzzContext } from '../property.js';

export interface MockContext {
  ctx: FuzzContext;
  mock: RunningMockSeller;
  /** A fresh natural-key account (the mock accepts any new {brand, operator}). */
  freshAccount(): Record<string, unknown>;
  close(): Promise<void>;
}

export async function openMockContext(mockOptions: MockSellerOptions = {}, kind: TransportKind = 'mcp'): Promise<MockContext> {
  const authToken = randomBytes(18).toString('base64url');
  const mock = await startMockSeller({ bookingLatencyMs: 0, allowPrivateWebhooks: true, authToken, ...mockOptions });
  let transport: Transport | undefined;
  try {
    transport = createTransport(
      kind,
      { agentUrl: mock.baseUrl, token: mock.token, authToken, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder() },
      resolveEndpoints(mock.baseUrl),
    );
    await transport.open();
    const freshAccount = () => ({ brand: { domain: 'example.com' }, operator: `op-${randomBytes(4).toString('hex')}.example` });
    const account = freshAccount();
    const products = await transport.call('get_products', { brief: 'any inventory', account });
    const product = firstPricedProduct(products.payload);
    // The mock shows that two natural keys are two accounts, as a run's setup would find out.
    const t0 = transport;
    const distinct = await probeDistinctKeys(
      (task, args) => t0.call(task, args),
      (await t0.listTasks()).names,
      'example.com',
      () => randomBytes(6).toString('hex'),
      randomUUID(),
    );
    const ctx: FuzzContext = {
      transport,
      token: mock.token,
      account,
      signal: new AbortController().signal,
      ...(product ? { product } : {}),
      ...(distinct.shown ? { distinctKeys: true } : {}),
    };
    const t = transport;
    return {
      ctx,
      mock,
      freshAccount,
      async close() {
        await t.close();
        await mock.close();
      },
    };
  } catch (e) {
    await transport?.close();
    await mock.close();
    throw e;
  }
}

function firstPricedProduct(payload: unknown): FuzzContext['product'] {
  const products = (payload as { products?: unknown[] } | undefined)?.products ?? [];
  for (const p of products as Record<string, unknown>[]) {
    const options = Array.isArray(p.pricing_options) ? (p.pricing_options as Record<string, unknown>[]) : [];
    const option = options.find((o) => typeof o.pricing_option_id === 'string');
    if (typeof p.product_id === 'string' && option) {
      return {
        product_id: p.product_id,
        pricing_option_id: option.pricing_option_id as string,
        ...(typeof option.currency === 'string' ? { currency: option.currency } : {}),
        ...(typeof option.min_spend_per_package === 'number' ? { min_budget: option.min_spend_per_package } : {}),
      };
    }
  }
  return undefined;
}
