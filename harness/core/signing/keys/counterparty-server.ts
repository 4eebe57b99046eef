/**
 * Serves the harness's test counterparty keys over HTTP for agents that resolve a signer's keys
 * through its brand declaration (digest 1.11): `/.well-known/brand.json` with one `agents[]`
 * entry whose `jwks_uri` is `/.well-known/jwks.json` on the same server. Loopback by default;
 * GET/HEAD only; nothing else is served.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ProtocolIds } from '../../token.js';
import { counterpartyKeys } from './counterparty.js';
import { listen } from '../../net/listen.js';

export const BRAND_JSON_PATH = '/.well-known/brand.json';
export const JWKS_PATH = '/.well-known/jwks.json';
/** The path named as the harness's agent URL in its brand.json (identity only, not an endpoint). */
export const AGENT_PATH = '/agent';

export interface CounterpartyServerOptions {
  ids: ProtocolIds;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
}

export interface RunningCounterpartyServer {
  baseUrl: string;
  brandJsonUrl: string;
  jwksUrl: string;
  /** The `agents[].url` the brand.json declares for the harness. */
  agentUrl: string;
  close(): Promise<void>;
}

/** The brand declaration of the test counterparty, for a server at `baseUrl`. */
export function counterpartyBrandJson(baseUrl: string): Record<string, unknown> {
  return {
    $comment: 'proto-comply TEST counterparty: its keys are public test keys; never trust them in production.',
    house: { domain: 'proto-comply.invalid', name: 'proto-comply test counterparty' },
    brands: [],
    agents: [{ type: 'buying', url: `${baseUrl}${AGENT_PATH}`, jwks_uri: `${baseUrl}${JWKS_PATH}` }],
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startCounterpartyServer(opts: CounterpartyServerOptions): Promise<RunningCounterpartyServer> {
  const jwksText = JSON.stringify(counterpartyKeys(opts.ids).jwks);
  let brandText = '';
  const send = (req: IncomingMessage, res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      ...extra,
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, 405, '{"error":"method_not_allowed"}', { allow: 'GET, HEAD' });
    if (path === JWKS_PATH) return send(req, res, 200, jwksText);
    if (path === BRAND_JSON_PATH) return send(req, res, 200, brandText);
    return send(req, res, 404, '{"error":"not_found"}');
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  const host = opts.host ?? '127.0.0.1';
  const address = await listen(server, opts.port ?? 0, host);
  const baseUrl = `http://${hostForUrl(host)}:${address.port}`;
  brandText = JSON.stringify(counterpartyBrandJson(baseUrl));
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    brandJsonUrl: `${baseUrl}${BRAND_JSON_PATH}`,
    jwksUrl: `${baseUrl}${JWKS_PATH}`,
    agentUrl: `${baseUrl}${AGENT_PATH}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
