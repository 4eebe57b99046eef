/**
 * The reference agent a storyboard is compared against (`POST …/storyboard/{sid}/compare`): the
 * agent the operator named (`registry serve --reference-agent URL [--reference-transport …]`), or,
 * by default, the built-in reference mock seller, started by the service on loopback the first
 * time it is needed (as `npm start` starts it: harness/cli/builtin-mocks.ts), one per protocol
 * token and per "with a bearer token or not" (so the reference is judged with the same run facts
 * as the agent compared: checks that need a token apply to both or neither), stopped with the
 * service. The reference is exempt from the service's private-address refusal only because the
 * operator named it or the service started it: registered agents never are.
 */
import { randomBytes } from 'node:crypto';
import type { ProtocolLine } from '../core/protocol/lines.js';
import type { AgentTransportKind } from '../core/transport/types.js';
import type { AgentRow } from './types.js';

export interface ReferenceAgent {
  url: string;
  name: string;
  transports: AgentTransportKind[];
  token: string;
  authToken?: string;
  /** Started by the service (the built-in mock seller), not named by the operator. */
  builtin: boolean;
}

export interface NamedReference {
  url: string;
  transports: AgentTransportKind[];
  token?: string;
  authToken?: string;
}

export class ReferenceAgents {
  private readonly started = new Map<string, Promise<{ agent: ReferenceAgent; close(): Promise<void> }>>();
  private closed = false;

  constructor(private readonly o: { named?: NamedReference; target?: ProtocolLine }) {}

  /** The reference to compare `agent` with. */
  async for(agent: Pick<AgentRow, 'token' | 'authToken'>): Promise<ReferenceAgent> {
    const n = this.o.named;
    if (n)
      return {
        url: n.url,
        name: new URL(n.url).host,
        transports: n.transports,
        token: n.token ?? agent.token,
        ...(n.authToken ? { authToken: n.authToken } : {}),
        builtin: false,
      };
    if (this.closed) throw new Error('the service is stopping');
    const withToken = agent.authToken !== undefined;
    const key = `${agent.token}\0${withToken}`;
    let s = this.started.get(key);
    if (!s) {
      s = this.start(agent.token, withToken);
      this.started.set(key, s);
      // A start that failed is tried again next time.
      s.catch(() => this.started.delete(key));
    }
    return (await s).agent;
  }

  private async start(token: string, withToken: boolean): Promise<{ agent: ReferenceAgent; close(): Promise<void> }> {
    const { startMockSeller, SELLER_NAME } = await import('../../mocks/seller/index.js');
    const authToken = withToken ? randomBytes(24).toString('base64url') : undefined;
    // Loopback only; it posts webhooks to the harness's loopback receivers over http.
    const seller = await startMockSeller({
      token,
      ...(authToken ? { authToken } : {}),
      allowPrivateWebhooks: true,
      ...(this.o.target ? { protocolLine: this.o.target } : {}),
    });
    return {
      agent: {
        url: seller.baseUrl,
        name: `${SELLER_NAME} (built-in reference)`,
        transports: ['mcp', 'a2a'],
        token,
        ...(authToken ? { authToken } : {}),
        builtin: true,
      },
      close: () => seller.close(),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.started.values()];
    this.started.clear();
    await Promise.allSettled(all.map(async (s) => (await s).close()));
  }
}
