/**
 * The load-and-abuse battery: every server the project ships keeps answering a well-behaved
 * client while abusive clients hold it (idle and slow connections, slow bodies, floods of small
 * requests, oversized headers; harness/testing/abuse.ts), and what it accepted meanwhile is kept.
 * Loopback only; every abuser is stopped before the next. The latency bound is a hang detector
 * (seconds against a few milliseconds unabused), not a speed target: speed lives in `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockBuyer } from '../../mocks/buyer/index.js';
import { startMockRegistry } from '../../mocks/registry/index.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import { startRegistryService } from '../compliance-service/service.js';
import { SqliteRegistryStore } from '../compliance-service/sqlite-store.js';
import { CaptureReceiver } from '../core/webhooks/emission/receiver.js';
import { protocolIds } from '../core/token.js';
import { startAuditingProxy } from '../proxy/session.js';
import { ABUSES, type AbuseName, type LegitRequest, legitOnce, legitRound } from './abuse.js';

/** Worst latency a legitimate request may see under abuse: far above normal, far below "stuck". */
const WORST_MS = 2_500;

interface ServerUnderTest {
  name: string;
  /** Where the abusers aim (a path the server serves). */
  target: URL;
  legit: LegitRequest;
  /** After the battery: what the server accepted meanwhile is still there. */
  kept?: () => Promise<void>;
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'abuse-'));
const servers: ServerUnderTest[] = [];
const KEY = 'abuse-battery-operator-key-0123';

beforeAll(async () => {
  const seller = await startMockSeller();
  servers.push({ name: 'mock seller', target: new URL(seller.mcpUrl), legit: { url: new URL(seller.agentCardUrl) }, close: () => seller.close() });

  const buyer = await startMockBuyer({ dbPath: join(dir, 'buyer.sqlite'), trust: { allowInsecureLoopback: true, senders: [] } });
  servers.push({
    name: 'mock buyer',
    target: new URL(`${buyer.baseUrl}/_admin/health`),
    legit: { url: new URL(`${buyer.baseUrl}/_admin/health`) },
    close: () => buyer.close(),
  });

  const registry = await startMockRegistry({ apiKeys: [KEY] });
  const registered: string[] = [];
  servers.push({
    name: 'mock registry',
    target: new URL(`${registry.baseUrl}/api/me/agents`),
    legit: {
      url: new URL(`${registry.baseUrl}/api/me/agents`),
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      get body() {
        const url = `https://abuse-${registered.length}.example/mcp`;
        registered.push(url);
        return JSON.stringify({ agent_url: url, capabilities: ['get_products'] });
      },
    },
    kept: async () => {
      const listed = (await (await fetch(`${registry.baseUrl}/api/registry/agents`)).json()) as { agents: Array<{ agent_url: string }> };
      const urls = new Set(listed.agents.map((a) => a.agent_url));
      expect(registered.filter((u) => !urls.has(u))).toEqual([]);
    },
    close: () => registry.close(),
  });

  const service = await startRegistryService({
    store: new SqliteRegistryStore(join(dir, 'registry.sqlite')),
    apiKeys: [KEY],
    workers: 0,
    perHost: 1,
    settings: { budgetS: 10, denyPrivate: true, allowHosts: [] },
  });
  servers.push({
    name: 'registry serve',
    target: new URL(`${service.url}/api/registry/stats`),
    legit: { url: new URL(`${service.url}/api/registry/stats`) },
    close: () => service.close(),
  });

  const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto' });
  servers.push({
    name: 'proxy',
    target: new URL(`${proxy.url}/mcp`),
    legit: { url: new URL(`${proxy.url}/.well-known/agent-card.json`) },
    close: () => proxy.close(),
  });

  // The forward proxy: the abusers name the proxy itself (origin-form), which it must refuse
  // rather than forward to itself; the well-behaved client asks it for the seller's card.
  const mitm = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto', mitm: { caDir: join(dir, 'mitm-ca') } });
  servers.push({
    name: 'forward proxy',
    target: new URL(`${mitm.url}/mcp`),
    legit: { url: new URL(seller.agentCardUrl), via: new URL(mitm.url) },
    close: () => mitm.close(),
  });

  const receiver = await CaptureReceiver.open({ listenHost: '127.0.0.1', listenPort: 0 }, protocolIds());
  const capture = receiver.create({ answers: [], mode: 'hmac', secret: 'abuse-battery-secret-0123456789' });
  let sent = 0;
  servers.push({
    name: 'webhook receiver',
    target: new URL(capture.url),
    legit: {
      url: new URL(capture.url),
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      get body() {
        return JSON.stringify({ task_id: `t-${sent++}`, status: 'completed' });
      },
    },
    kept: async () => expect(capture.deliveries.length).toBe(sent),
    close: () => receiver.close(),
  });
}, 60_000);

afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const KINDS = Object.keys(ABUSES) as AbuseName[];
const NAMES = ['mock seller', 'mock buyer', 'mock registry', 'registry serve', 'proxy', 'forward proxy', 'webhook receiver'];

describe.each(NAMES)('%s under abuse', (name) => {
  const server = () => servers.find((s) => s.name === name)!;

  it.each(KINDS)('answers a well-behaved client promptly while %s hold it', async (kind) => {
    const s = server();
    const abuser = ABUSES[kind](s.target);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const round = await legitRound(s.legit);
      expect(round.failures, `${name} under ${kind}`).toEqual([]);
      expect(round.worstMs, `${name} under ${kind}: worst latency`).toBeLessThan(WORST_MS);
    } finally {
      abuser.stop();
    }
  });

  it('still answers after the battery, and kept what it accepted during it', async () => {
    const s = server();
    const after = await legitOnce(s.legit);
    expect(after).toHaveProperty('ms');
    await s.kept?.();
  });
});
