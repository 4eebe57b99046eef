/**
 * `proto-comply run` without --agent: the built-in mock seller (with a fresh bearer token so the
 * auth checks run) and, unless a receiver was named, the built-in mock buyer as the receiver of
 * the webhook-receiver suite, trusting the harness's sender identity. Everything on loopback,
 * ephemeral ports, a temporary database; `close()` stops it all.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceiverTarget } from '../engine/resources.js';

export interface BuiltinMocks {
  agentUrl: string;
  authToken: string;
  /** Present when the mock buyer was started. */
  receiver?: ReceiverTarget;
  close(): Promise<void>;
}

export async function startBuiltinMocks(o: { token: string; withBuyer: boolean; log: (line: string) => void }): Promise<BuiltinMocks> {
  const { startMockSeller } = await import('../../mocks/seller/index.js');
  const authToken = randomBytes(24).toString('base64url');
  // Loopback only: the seller posts webhooks to the harness's loopback receivers over http.
  const seller = await startMockSeller({ token: o.token, authToken, allowPrivateWebhooks: true });
  o.log(`proto-comply: certifying the built-in mock seller at ${seller.baseUrl}`);
  if (!o.withBuyer) return { agentUrl: seller.baseUrl, authToken, close: () => seller.close() };

  const closers: Array<() => Promise<void> | void> = [() => seller.close()];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    const { startSenderIdentity } = await import('../webhooks/receiver-probe/sender.js');
    const { startMockBuyerFor } = await import('../../mocks/buyer/suite-run.js');
    const identity = await startSenderIdentity({ token: o.token });
    closers.push(() => identity.close());
    const dir = mkdtempSync(join(tmpdir(), 'proto-comply-buyer-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const { buyer, receiver } = await startMockBuyerFor(identity, { dbPath: join(dir, 'buyer.sqlite'), token: o.token });
    closers.push(() => buyer.close());
    o.log(`proto-comply: certifying the built-in mock buyer's webhook receiver at ${buyer.url}`);
    return {
      agentUrl: seller.baseUrl,
      authToken,
      receiver,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
