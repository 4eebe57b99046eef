/**
 * The harness's sender agents for the agent-URL bootstrap probes (digest 1.11): one https server
 * on loopback, its certificate issued by a test CA made for the run (or kept in a directory the
 * user gives, so a receiver can be told to trust it ahead), serving for each slot (variants.ts):
 *
 *   POST /bootstrap/<slot>               the agent's MCP endpoint: initialize, tools/list and
 *                                        tools/call get_<token>_capabilities (JSON answers)
 *   GET  /bootstrap/<slot>/brand.json    its brand.json (redirect, 404, oversize, duplicate keys…)
 *   GET  /bootstrap/<slot>/jwks.json     its JWKS, every fetch counted (refetch cooldown)
 *   GET  /.well-known/brand.json         the agent host's own brand.json (lists a few agents, so a
 *                                        receiver ignoring the declared brand_json_url is seen)
 *
 * Each slot signs with Ed25519 keys made for the run (kid `bootstrap-<slot>-<alias>-<random>`),
 * published in its JWKS only: a receiver finds them through the discovery chain or not at all.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProtocolIds } from '../../../token.js';
import { publicJwk, signingKeyFromJwk, type Jwk, type SigningKey } from '../../../signing/keys/keys.js';
import { testCa } from './tls.js';
import { BOOTSTRAP_HOSTS, brandJsonOf, capabilitiesOf, HOSTS, JWKS_CAP, slotUrls, variantOf, VARIANTS, WELL_KNOWN_LISTED, type SlotUrls } from './variants.js';

const MAX_REQUEST_BYTES = 64 * 1024;

export interface BootstrapSender {
  readonly port: number;
  /** PEM of the CA the receiver must trust for this server. */
  readonly caPem: string;
  /** Where that PEM is on disk. */
  readonly caCertPath: string;
  /** The host names the receiver must resolve to this server's address (`host`). */
  readonly hosts: readonly string[];
  readonly host: string;
  urls(slot: string): SlotUrls;
  /** The signing key of `alias` in `slot` (made on first use; `k1` is published from the start). */
  key(slot: string, alias: string): SigningKey;
  /** Add the key of `alias` to the slot's JWKS (a key rotation the receiver has not seen). */
  publish(slot: string, alias: string): void;
  /** How many times the slot's JWKS was fetched. */
  jwksFetches(slot: string): number;
  close(): Promise<void>;
}

export interface StartBootstrapSenderOptions {
  ids: ProtocolIds;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Keep the CA here (created when absent, reused when present); default a temporary directory. */
  caDir?: string;
}

interface SlotKeys {
  keys: Map<string, { signing: SigningKey; jwk: Jwk }>;
  published: Set<string>;
  fetches: number;
}

export async function startBootstrapSender(o: StartBootstrapSenderOptions): Promise<BootstrapSender> {
  const tmp = o.caDir === undefined ? mkdtempSync(join(tmpdir(), 'bootstrap-ca-')) : undefined;
  const ca = await testCa(o.caDir ?? tmp!, BOOTSTRAP_HOSTS);
  const host = o.host ?? '127.0.0.1';
  const slots = new Map<string, SlotKeys>();
  const slotOf = (slot: string): SlotKeys => {
    let s = slots.get(slot);
    if (!s) slots.set(slot, (s = { keys: new Map(), published: new Set(['k1']), fetches: 0 }));
    return s;
  };
  const keyOf = (slot: string, alias: string) => {
    const s = slotOf(slot);
    let k = s.keys.get(alias);
    if (!k) {
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwk: Jwk = {
        ...(privateKey.export({ format: 'jwk' }) as Jwk),
        kid: `bootstrap-${slot}-${alias}-${randomBytes(3).toString('hex')}`,
        alg: 'EdDSA',
        use: 'sig',
        key_ops: ['verify'],
        [o.ids.keyUseMember]: 'request-signing',
      };
      k = { signing: signingKeyFromJwk(jwk), jwk: publicJwk(jwk) };
      s.keys.set(alias, k);
    }
    return k;
  };
  let port = 0;

  const jwksOf = (slot: string): Buffer => {
    const s = slotOf(slot);
    const keys = [...s.published].map((a) => keyOf(slot, a).jwk);
    if (variantOf(slot) === 'jwks-oversize') {
      const base = keys[0]!;
      for (let i = 0; keys.length * 200 < JWKS_CAP + 8 * 1024; i++) keys.push({ ...base, kid: `${base.kid}-filler-${i}` });
    }
    return Buffer.from(JSON.stringify({ keys }));
  };

  const send = (res: ServerResponse, status: number, body?: Buffer | string, headers: Record<string, string> = {}) => {
    const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    res.writeHead(status, { ...(bytes ? { 'content-type': 'application/json', 'content-length': String(bytes.length) } : {}), ...headers });
    res.end(bytes);
  };

  const mcp = async (req: IncomingMessage, res: ServerResponse, slot: string) => {
    const variant = variantOf(slot)!;
    const raw = await readBody(req);
    if (variant === 'capabilities-unreachable') return send(res, 503, '{"error":"unavailable"}');
    if (raw === undefined) return send(res, 413, '{"error":"too large"}');
    let msg: { id?: unknown; method?: unknown; params?: { name?: unknown; protocolVersion?: unknown } };
    try {
      msg = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(res, 400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
    }
    const reply = (result: unknown) => send(res, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result }));
    if (typeof msg.method === 'string' && msg.method.startsWith('notifications/')) return send(res, 202);
    if (msg.method === 'initialize') {
      const protocolVersion = typeof msg.params?.protocolVersion === 'string' ? msg.params.protocolVersion : '2025-06-18';
      return reply({ protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'proto-comply bootstrap sender', version: '1' } });
    }
    if (msg.method === 'tools/list') return reply({ tools: [{ name: o.ids.capabilitiesTask, inputSchema: { type: 'object' } }] });
    if (msg.method === 'tools/call' && msg.params?.name === o.ids.capabilitiesTask) {
      const caps = capabilitiesOf(variant, port, slot, o.ids)!;
      return reply({ content: [{ type: 'text', text: JSON.stringify(caps) }], structuredContent: caps });
    }
    return send(res, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'method not found' } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/.well-known/brand.json') {
      const agents = [...slots.keys()]
        .filter((s) => WELL_KNOWN_LISTED.includes(variantOf(s)!))
        .map((s) => ({ type: 'sales', url: slotUrls(port, s).agentUrl, jwks_uri: slotUrls(port, s).jwksUri }));
      return send(res, 200, JSON.stringify({ house: { domain: HOSTS.agent, name: 'proto-comply agent host' }, brands: [], agents }));
    }
    const m = /^\/bootstrap\/([a-z0-9]+-[a-z-]+)(\/[a-z-]+\.json)?$/.exec(path);
    const variant = m ? variantOf(m[1]!) : undefined;
    if (!m || !variant) return send(res, 404, '{"error":"not found"}');
    const slot = m[1]!;
    if (m[2] === undefined) return req.method === 'POST' ? mcp(req, res, slot) : send(res, 405, '{"error":"POST only"}');
    if (req.method !== 'GET') return send(res, 405, '{"error":"GET only"}');
    if (m[2] === '/jwks.json') {
      slotOf(slot).fetches++;
      return send(res, 200, jwksOf(slot));
    }
    if (m[2] === '/brand.json') {
      if (variant === 'brand-unreachable') return send(res, 404, '{"error":"not found"}');
      if (variant === 'brand-redirect') return send(res, 302, undefined, { location: `/bootstrap/${slot}/brand-final.json` });
      return send(res, 200, brandJsonOf(variant, port, slot));
    }
    if (m[2] === '/brand-final.json' && variant === 'brand-redirect') return send(res, 200, brandJsonOf('good', port, slot));
    return send(res, 404, '{"error":"not found"}');
  };

  const server: Server = createServer({ key: ca.serverKeyPem, cert: ca.serverCertPem }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, '{"error":"internal"}');
      else res.destroy();
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  // Every slot of both columns exists from the start (the well-known document lists some).
  for (const column of ['mcp', 'a2a']) for (const v of VARIANTS) slotOf(`${column}-${v}`);

  return {
    port,
    caPem: ca.caPem,
    caCertPath: ca.caCertPath,
    hosts: BOOTSTRAP_HOSTS,
    host,
    urls: (slot) => slotUrls(port, slot),
    key: (slot, alias) => keyOf(slot, alias).signing,
    publish: (slot, alias) => {
      keyOf(slot, alias);
      slotOf(slot).published.add(alias);
    },
    jwksFetches: (slot) => slotOf(slot).fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          if (tmp) rmSync(tmp, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** The request body under MAX_REQUEST_BYTES, or undefined when larger. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}
