/**
 * Where the MCP endpoint and the A2A agent card live, derived from the URL the user gave:
 *
 * - `…/mcp`                  → MCP endpoint itself; card at `<path minus /mcp>/.well-known/agent-card.json`, then the origin
 * - `…/agent-card.json`      → the card itself; MCP at `<card dir minus /.well-known>/mcp`
 * - `…/a2a`                  → A2A endpoint; card at the origin; MCP at `<path minus /a2a>/mcp`
 * - anything else            → a base: MCP at `<base>/mcp`, card at `<base>/.well-known/agent-card.json`
 */
import { TransportConfigError } from './errors.js';
import { validateHttpUrl } from './http-client.js';

export { TransportConfigError };

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface ResolvedEndpoints {
  /** MCP streamable-HTTP endpoint. */
  mcp: string;
  /** Agent card URLs, tried in order. */
  agentCard: string[];
  /** A2A JSON-RPC endpoint when the user named one (the card's `url` takes precedence). */
  a2a?: string;
}

export interface EndpointOverrides {
  mcpUrl?: string;
  a2aUrl?: string;
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, '');
}

function at(origin: string, path: string): string {
  return new URL(path === '' ? '/' : path, origin).toString();
}

function dedupe(urls: string[]): string[] {
  return [...new Set(urls)];
}

type Classified =
  | { kind: 'mcp'; url: string; dir: string; origin: string }
  | { kind: 'card'; url: string; dir: string; origin: string }
  | { kind: 'a2a'; url: string; dir: string; origin: string }
  | { kind: 'base'; url: string; dir: string; origin: string };

function classify(raw: string, what: string): Classified {
  const u = validateHttpUrl(raw, what);
  const path = trimSlash(u.pathname);
  const url = u.toString();
  const origin = u.origin;
  if (/\/mcp$/i.test(path)) return { kind: 'mcp', url, dir: path.slice(0, -4), origin };
  if (/agent-card\.json$/i.test(path)) {
    const dir = path.replace(/\/[^/]*$/, '').replace(/\/\.well-known$/i, '');
    return { kind: 'card', url, dir, origin };
  }
  if (/\/a2a$/i.test(path)) return { kind: 'a2a', url, dir: path.slice(0, -4), origin };
  return { kind: 'base', url, dir: path, origin };
}

function cardsFor(c: Classified): string[] {
  switch (c.kind) {
    case 'card':
      return [c.url];
    case 'mcp':
      return dedupe([at(c.origin, `${c.dir}${AGENT_CARD_PATH}`), at(c.origin, AGENT_CARD_PATH)]);
    case 'a2a':
      return [at(c.origin, AGENT_CARD_PATH)];
    case 'base':
      return [at(c.origin, `${c.dir}${AGENT_CARD_PATH}`)];
  }
}

function mcpFor(c: Classified): string {
  return c.kind === 'mcp' ? c.url : at(c.origin, `${c.dir}/mcp`);
}

/**
 * The protocol an agent URL names by its path: `mcp` (…/mcp), `a2a` (…/a2a or an agent card), or
 * undefined for a base URL, where both may live. Throws `TransportConfigError` for unusable URLs.
 */
export function protocolNamedBy(agentUrl: string): 'mcp' | 'a2a' | undefined {
  const c = classify(agentUrl, 'agent URL');
  return c.kind === 'mcp' ? 'mcp' : c.kind === 'base' ? undefined : 'a2a';
}

/** Resolve the endpoints of one agent. Throws `TransportConfigError` for unusable URLs. */
export function resolveEndpoints(agentUrl: string, overrides: EndpointOverrides = {}): ResolvedEndpoints {
  const main = classify(agentUrl, 'agent URL');
  const out: ResolvedEndpoints = { mcp: mcpFor(main), agentCard: cardsFor(main) };
  if (main.kind === 'a2a') out.a2a = main.url;

  if (overrides.mcpUrl !== undefined) out.mcp = validateHttpUrl(overrides.mcpUrl, 'MCP URL').toString();
  if (overrides.a2aUrl !== undefined) {
    const a2a = classify(overrides.a2aUrl, 'A2A URL');
    if (a2a.kind === 'card') {
      out.agentCard = [a2a.url];
      delete out.a2a;
    } else {
      out.a2a = a2a.url;
      out.agentCard = a2a.kind === 'base' ? cardsFor(a2a) : [at(a2a.origin, AGENT_CARD_PATH)];
    }
  }
  return out;
}

/**
 * The URLs the user named for one agent (`--agent`, `--mcp-url`, `--a2a-url`): the origins the run's
 * credentials may go to, and the hosts a private-address preflight checks.
 */
export function namedUrls(agentUrl: string, overrides: EndpointOverrides = {}): string[] {
  return [agentUrl, overrides.mcpUrl, overrides.a2aUrl].filter((u): u is string => u !== undefined);
}
