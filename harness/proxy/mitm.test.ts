/**
 * `proxy --mitm`: a buyer using the proxy as its HTTPS proxy and trusting the CA the proxy
 * generated reaches an agent served over TLS (its own test CA), and the proxy reads and audits
 * the exchange: the same verdicts as the reverse proxy, with the CA's private key kept private.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA } from 'http-mitm-proxy/dist/lib/ca.js';
import { getGlobalDispatcher, ProxyAgent, request, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { McpTestClient } from '../../mocks/seller/testing/wire-client.js';
import { startAuditingProxy } from './session.js';

const dir = mkdtempSync(join(tmpdir(), 'mitm-'));
let seller: RunningMockSeller;
let tls: Server;
let agentUrl: string;
let agentCa: string;

/** A CA of the agent's own and a certificate for 127.0.0.1 signed by it. */
function agentCertificate(): Promise<{ ca: string; cert: string; key: string }> {
  return new Promise((resolve, reject) => {
    CA.create(join(dir, 'agent-ca'), (err: Error | null, ca: CA) => {
      if (err) return reject(err);
      ca.generateServerCertificateKeys(['127.0.0.1'], (cert: string, key: string) => resolve({ ca: readFileSync(ca.getCACertPath(), 'utf8'), cert, key }));
    });
  });
}

beforeAll(async () => {
  seller = await startMockSeller({ faults: ['context-not-echoed'] });
  const { ca, cert, key } = await agentCertificate();
  agentCa = ca;
  // The agent over TLS: a terminator in front of the mock seller.
  tls = createHttpsServer({ cert, key }, (req, res) => {
    const up = httpRequest(
      new URL(req.url ?? '/', seller.baseUrl),
      { method: req.method, headers: { ...req.headers, host: new URL(seller.baseUrl).host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
  agentUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  tls.closeAllConnections();
  await new Promise<void>((r) => tls.close(() => r()));
  await seller.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('proxy --mitm', () => {
  it('intercepts HTTPS for a client trusting its CA and audits the exchange', async () => {
    const proxy = await startAuditingProxy({ upstream: agentUrl, token: 'proto', mitm: { caDir: join(dir, 'proxy-ca'), upstreamCa: agentCa } });
    const before = getGlobalDispatcher();
    try {
      expect(proxy.caCertPath).toBe(join(dir, 'proxy-ca', 'certs', 'ca.pem'));
      expect(statSync(join(dir, 'proxy-ca', 'keys')).mode & 0o077).toBe(0);
      // The buyer: every request through the proxy, trusting only the proxy's CA.
      setGlobalDispatcher(new ProxyAgent({ uri: proxy.url, requestTls: { ca: readFileSync(proxy.caCertPath ?? '', 'utf8') } }));
      const client = new McpTestClient(`${agentUrl}/mcp`);
      await client.initialize();
      const answer = await client.call('get_products', {
        buying_mode: 'brief',
        brief: 'sports video',
        brand: { domain: 'example.com' },
        context: { trace: 'm1' },
      });
      expect(answer.isError).toBe(false);
      await proxy.settle();
      const report = proxy.result();
      const check = (id: string) => report.checks.find((c) => c.check_id === id && c.transport === 'mcp');
      expect(check('schemas.context.echoed')?.outcome).toBe('fail');
      expect(check('schemas.response.get_products')?.outcome).toBe('pass');
      expect(proxy.stats().calls).toBe(1);
    } finally {
      setGlobalDispatcher(before);
      await proxy.close();
    }
  }, 60_000);

  it('passes an event stream through as it comes, event by event', async () => {
    const { cert, key } = await new Promise<{ cert: string; key: string }>((resolve, reject) => {
      CA.create(join(dir, 'agent-ca'), (err: Error | null, ca: CA) => {
        if (err) return reject(err);
        ca.generateServerCertificateKeys(['127.0.0.1'], (c: string, k: string) => resolve({ cert: c, key: k }));
      });
    });
    let release: () => void = () => {};
    const second = new Promise<void>((r) => {
      release = r;
    });
    const sse = createHttpsServer({ cert, key }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      void second.then(() => res.end('data: two\n\n'));
    });
    await new Promise<void>((r) => sse.listen(0, '127.0.0.1', () => r()));
    const origin = `https://127.0.0.1:${(sse.address() as AddressInfo).port}`;
    const proxy = await startAuditingProxy({ upstream: origin, token: 'proto', mitm: { caDir: join(dir, 'proxy-ca'), upstreamCa: agentCa } });
    const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: readFileSync(proxy.caCertPath ?? '', 'utf8') } });
    try {
      const res = await request(`${origin}/events`, { dispatcher });
      const reader = res.body[Symbol.asyncIterator]();
      // The first event arrives while the agent still holds the second back.
      const first = await reader.next();
      expect(String(first.value)).toContain('data: one');
      release();
      let rest = '';
      for (let n = await reader.next(); !n.done; n = await reader.next()) rest += String(n.value);
      expect(rest).toContain('data: two');
    } finally {
      release();
      await dispatcher.close();
      await proxy.close();
      sse.closeAllConnections();
      await new Promise<void>((r) => sse.close(() => r()));
    }
  }, 60_000);

  it('is refused by a client that does not trust its CA', async () => {
    const proxy = await startAuditingProxy({ upstream: agentUrl, token: 'proto', mitm: { caDir: join(dir, 'proxy-ca'), upstreamCa: agentCa } });
    const before = getGlobalDispatcher();
    try {
      setGlobalDispatcher(new ProxyAgent({ uri: proxy.url }));
      await expect(new McpTestClient(`${agentUrl}/mcp`).initialize()).rejects.toThrow();
      expect(proxy.stats().exchanges).toBe(0);
    } finally {
      setGlobalDispatcher(before);
      await proxy.close();
    }
  }, 60_000);
});
