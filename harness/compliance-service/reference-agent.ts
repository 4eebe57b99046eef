/**
 * The reference agent a storyboard is compared against (`POST …/storyboard/{sid}/compare`): the
 * agent the operator named (`registry serve --reference-agent URL [--reference-transport …]`), or,
 * by default, the built-in reference mock seller, started on loopback the first time it is needed
 * by the starter the command line gives (harness/cli/builtin-mocks.ts: the library never starts a
 * mock itself), one per protocol
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

/** Starts the built-in reference seller on loopback (given by the command line, or a test). */
export type StartReferenceSeller = (o: {
  token: string;
  authToken?: string;
  target?: ProtocolLine;
}) => Promise<{ url: string; name: string; close(): Promise<void> }>;

export class ReferenceAgents {
  private readonly started = new Map<string, Promise<{ agent: ReferenceAgent; close(): Promise<void> }>>();
  private closed = false;

  constructor(private readonly o: { named?: NamedReference; target?: ProtocolLine; startBuiltin?: StartReferenceSeller }) {}

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
    if (!this.o.startBuiltin) throw new Error('no reference agent: this service was given neither --reference-agent nor a built-in reference seller');
    const authToken = withToken ? randomBytes(24).toString('base64url') : undefined;
    const seller = await this.o.startBuiltin({ token, ...(authToken ? { authToken } : {}), ...(this.o.target ? { target: this.o.target } : {}) });
    return {
      agent: {
        url: seller.url,
        name: `${seller.name} (built-in reference)`,
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
