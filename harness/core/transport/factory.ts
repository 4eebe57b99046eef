/** Building a transport of either kind from resolved endpoints. */
import { A2aTransport, type A2aOptions } from './a2a.js';
import { TransportConfigError } from './errors.js';
import { McpTransport, type McpOptions } from './mcp.js';
import type { ResolvedEndpoints } from './endpoints.js';
import type { Transport, TransportKind, TransportSettings } from './types.js';

export interface FactoryOptions {
  mcp?: McpOptions;
  a2a?: A2aOptions;
}

export function createTransport(kind: TransportKind, settings: TransportSettings, endpoints: ResolvedEndpoints, options: FactoryOptions = {}): Transport {
  switch (kind) {
    case 'mcp':
      return new McpTransport(settings, endpoints.mcp, options.mcp);
    case 'a2a':
      return new A2aTransport(settings, { agentCard: endpoints.agentCard, ...(endpoints.a2a ? { a2a: endpoints.a2a } : {}) }, options.a2a);
    default:
      throw new TransportConfigError(`unknown transport kind ${JSON.stringify(kind)}: expected mcp or a2a`);
  }
}
