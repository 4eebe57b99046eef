/**
 * `proto-comply run` without --agent: the built-in mock seller (with a fresh bearer token so the
 * auth checks run) and, unless a receiver was named, the built-in mock buyer as the receiver of
 * the webhook-receiver suite, trusting the harness's sender identity, and, unless a registry was
 * named, the built-in mock registry (listing the seller) for the registry suite. Everything on loopback,
 * ephemeral ports, a temporary database; `close()` stops it all.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceiverTarget } from '../core/engine/resources.js';
import type { RegistryTarget } from '../core/registry-face/target.js';
import type { ProtocolLine } from '../core/protocol/lines.js';
import type { StartReferenceSeller } from '../compliance-service/reference-agent.js';

/**
 * Checks calling the agent at once against the built-in mocks, unless --concurrency says otherwise:
 * the harness started them and knows what they take (an agent URL gets DEFAULT_CONCURRENCY, its
 * limits not being known). Their create_media_buy waits 50 ms on a simulated booking call, so four
 * slots left the CPU idle about a quarter of a run (npm run bench -- harness prints both).
 */
export const BUILTIN_MOCK_CONCURRENCY = 8;

export interface BuiltinMocks {
  agentUrl: string;
  authToken: string;
  /** Present when the mock buyer was started. */
  receiver?: ReceiverTarget;
  /** Present when the mock registry was started. */
  registry?: RegistryTarget;
  close(): Promise<void>;
}

export interface BuiltinMockOptions {
  token: string;
  /** The run's target: the mock seller speaks that line (default the default target). */
  target?: ProtocolLine;
  withBuyer: boolean;
  withRegistry: boolean;
  log: (line: string) => void;
}

export async function startBuiltinMocks(o: BuiltinMockOptions): Promise<BuiltinMocks> {
  const { startMockSeller } = await import('../../mocks/seller/index.js');
  const authToken = randomBytes(24).toString('base64url');
  // Loopback only: the seller posts webhooks to the harness's loopback receivers over http.
  const seller = await startMockSeller({ token: o.token, authToken, allowPrivateWebhooks: true, ...(o.target ? { protocolLine: o.target } : {}) });
  o.log(`proto-comply: certifying the built-in mock seller at ${seller.baseUrl}`);
  const closers: Array<() => Promise<void> | void> = [() => seller.close()];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  let registry: RegistryTarget | undefined;
  try {
    if (o.withRegistry) {
      const { startMockRegistry } = await import('../../mocks/registry/index.js');
      const { fetchDiscoveryJson } = await import('../core/discovery/fetch.js');
      const capabilities = ['get_products', 'create_media_buy'];
      // The seller's own public keys: the test brand's key set and the test publisher's pin.
      const jwks = await fetchDiscoveryJson(seller.jwksUrl, { allowInsecureLoopback: true });
      const agentKeys = jwks.ok ? ((jwks.value as { keys?: Array<Record<string, unknown>> }).keys ?? []) : [];
      // The registry lists the seller (its capabilities and a channel), as a registry would after its
      // registration, and its test domains' discovery files name it.
      const r = await startMockRegistry({
        token: o.token,
        seed: [{ domain: new URL(seller.baseUrl).hostname, agent_url: seller.mcpUrl, capabilities, channels: ['display'] }],
        agents: [{ url: seller.mcpUrl, protocol: 'mcp', capabilities }],
        agentKeys,
      });
      closers.push(() => r.close());
      registry = { url: r.baseUrl, apiKey: r.apiKeys[0]!, adagentsUrl: r.adagentsUrl, brandUrl: r.brandUrl };
      o.log(`proto-comply: certifying the built-in mock registry at ${r.baseUrl}`);
    }
    if (!o.withBuyer) return { agentUrl: seller.baseUrl, authToken, ...(registry ? { registry } : {}), close };

    const { startSenderIdentity } = await import('../core/webhooks/receiver-probe/sender.js');
    const { startMockBuyerFor } = await import('../../mocks/buyer/trusting-buyer.js');
    const identity = await startSenderIdentity({ token: o.token });
    closers.push(() => identity.close());
    const dir = mkdtempSync(join(tmpdir(), 'proto-comply-buyer-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const { buyer, receiver } = await startMockBuyerFor(identity, {
      dbPath: join(dir, 'buyer.sqlite'),
      token: o.token,
      bootstrapCaDir: join(dir, 'bootstrap-ca'),
    });
    closers.push(() => buyer.close());
    o.log(`proto-comply: certifying the built-in mock buyer's webhook receiver at ${buyer.url}`);
    return {
      agentUrl: seller.baseUrl,
      authToken,
      receiver,
      ...(registry ? { registry } : {}),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The registry service's built-in reference seller (`registry serve` without `--reference-agent`): the mock seller on loopback. */
export const startReferenceSeller: StartReferenceSeller = async (o) => {
  const { startMockSeller, SELLER_NAME } = await import('../../mocks/seller/index.js');
  // Loopback only; it posts webhooks to the harness's loopback receivers over http.
  const seller = await startMockSeller({
    token: o.token,
    ...(o.authToken ? { authToken: o.authToken } : {}),
    allowPrivateWebhooks: true,
    ...(o.target ? { protocolLine: o.target } : {}),
  });
  return { url: seller.baseUrl, name: SELLER_NAME, close: () => seller.close() };
};
