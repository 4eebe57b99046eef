/**
 * The auditing proxy between `run` and the reference mock seller (the run's webhook receiver
 * behind its relay): the run's verdicts do not change, the audit finds nothing on the clean mock
 * and flags the targeted check on faulty ones, and an SSE answer reaches the client before the
 * upstream ends it.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certify } from '../certify/index.js';
import type { RunResult } from '../core/engine/result.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import { findings } from '../../suites/testing/mock-run.js';
import { broken, throughProxy } from './testing/through-proxy.js';
import { WEBHOOK_AUDITED_CHECKS } from './webhook-audit.js';
import { KEYED_SIGNATURE_CHECKS, SIGNATURE_AUDITED_CHECKS } from './signature-audit.js';
import { startReverseProxy } from './reverse.js';
import { DEFAULT_TARGET, inLines } from '../core/protocol/lines.js';
import { builtinSuites } from '../../suites/index.js';

const CHECK_LINES = new Map(builtinSuites().suites.flatMap((s) => s.checks.map((c) => [c.id, c.lines] as const)));

const AUTH = randomBytes(18).toString('base64url');
const verdicts = (run: RunResult) => run.checks.map((c) => `${c.transport} ${c.check_id} ${c.outcome}`);
const CALL_SUITES = ['setup', 'capabilities', 'errors', 'state-machine', 'idempotency', 'schemas'];
// The clean run is the full run, its webhook receiver behind the proxy's relay; fault runs drive the call suites.
const through = (faults: string[] = [], checkGlob?: string) =>
  throughProxy({ authToken: AUTH, faults, suites: faults.length ? CALL_SUITES : undefined, checkGlob, relay: !faults.length, callerKeys: true });

describe('the proxy between run and the reference mock seller', () => {
  let direct: RunResult;
  let via: { run: RunResult; audit: RunResult };
  beforeAll(async () => {
    const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken: AUTH });
    try {
      direct = await certify({ agentUrl: seller.baseUrl, authToken: AUTH });
    } finally {
      await seller.close();
    }
    via = await through();
  }, 120_000);

  it('leaves every verdict of the run as it is without the proxy', () => {
    expect(findings(via.run)).toEqual([]);
    expect(via.run.overall_status).toBe('passing');
    expect(verdicts(via.run)).toEqual(verdicts(direct));
  });

  it('audits the traffic with no finding, and exercises the rules the run drives on both transports', () => {
    expect(broken(via.audit)).toEqual([]);
    const passed = new Set(via.audit.checks.filter((c) => c.outcome === 'pass').map((c) => `${c.transport} ${c.check_id}`));
    for (const t of ['mcp', 'a2a'])
      for (const id of [
        'errors.error-text.json',
        'schemas.response.create_media_buy',
        'schemas.context.echoed',
        'idempotency.replay.flagged',
        'idempotency.replay.identical-body',
        'idempotency.conflict.changed-payload',
        'idempotency.key.missing-rejected',
        'state-machine.valid-actions.match-state',
        'state-machine.terminal.pause-rejected',
        'state-machine.terminal.resume-rejected',
        'state-machine.terminal.update-rejected',
        'state-machine.create.initial-state',
        'state-machine.revision.increments',
        'state-machine.revision.read-stable',
        'state-machine.revision.not-on-replay',
        // Every webhook rule the audit judges at the default line: the run's webhooks suite exercises each through the relay.
        ...WEBHOOK_AUDITED_CHECKS.filter((id) => inLines(DEFAULT_TARGET, CHECK_LINES.get(id))),
        // Every verifier rule it judges: the run's signatures suite sends each defect through the proxy.
        // (the mock does not declare covers_content_digest forbidden: that check is not applicable to it)
        ...SIGNATURE_AUDITED_CHECKS.filter((id) => id !== 'signatures.digest.forbidden-enforced'),
        // and, with the caller's keys given, the steps from the key lookup to the crypto.
        ...KEYED_SIGNATURE_CHECKS,
      ])
        expect(passed).toContain(`${t} ${id}`);
    // What the traffic did not exercise is a gap, never a pass.
    const gaps = via.audit.checks.filter((c) => c.outcome === 'gap');
    expect(gaps.every((c) => c.gap === 'observed traffic' && c.message.includes('exercised'))).toBe(true);
    expect(via.audit.overall_status).toBe(gaps.length ? 'partial' : 'passing');
  });
});

describe('the passive audit on faulty sellers', () => {
  it.each([
    ['context-not-echoed', 'schemas.context.echoed', ['mcp', 'a2a']],
    ['replay-not-flagged', 'idempotency.replay.flagged', ['mcp', 'a2a']],
    // The fault spoils MCP's content text; A2A errors travel in data parts and stay well-formed.
    ['error-text-not-json', 'errors.error-text.json', ['mcp']],
    ['valid-actions-stale-after-pause', 'state-machine.valid-actions.match-state', ['mcp', 'a2a']],
    ['missing-key-accepted', 'idempotency.key.missing-rejected', ['mcp', 'a2a']],
    ['pause-terminal-accepted', 'state-machine.terminal.pause-rejected', ['mcp', 'a2a']],
    ['replay-body-differs', 'idempotency.replay.identical-body', ['mcp', 'a2a']],
    ['conflict-answered-with-replay', 'idempotency.conflict.changed-payload', ['mcp', 'a2a']],
    // A refusal of the changed payload under another code than run accepts (IDEMPOTENCY_CONFLICT).
    ['conflict-wrong-code', 'idempotency.conflict.changed-payload', ['mcp', 'a2a']],
  ] as const)(
    'flags %s under %s, from traffic alone',
    async (fault, checkId, transports) => {
      // The run drives the suite of the targeted check (and the set-up it builds on).
      const { run, audit } = await through([fault], `setup.*,${checkId.split('.')[0]}.*`);
      // The audit flags exactly where the run itself fails the check, and nothing the run does not fail.
      expect(broken(audit).filter((x) => !broken(run).includes(x))).toEqual([]);
      expect(broken(audit).filter((x) => x.endsWith(` ${checkId}`))).toEqual(transports.map((t) => `${t} ${checkId}`));
      expect(broken(run).filter((x) => x.endsWith(` ${checkId}`))).toEqual(transports.map((t) => `${t} ${checkId}`));
      const check = audit.checks.find((c) => c.check_id === checkId && c.transport === 'mcp');
      expect(check?.evidence?.exchanges.length).toBeGreaterThan(0);
    },
    120_000,
  );
});

describe('the passive audit on a fault of a rule it does not judge', () => {
  it('flags nothing when a cancel of a canceled buy is accepted (the cancel rule is not audited)', async () => {
    const { run, audit } = await through(['cancel-canceled-accepted'], 'setup.*,state-machine.*');
    expect(broken(run)).toContain('mcp state-machine.cancel.twice-not-cancellable');
    expect(broken(audit)).toEqual([]);
  }, 120_000);
});

describe('the reverse proxy', () => {
  let upstream: ReturnType<typeof createServer>;
  let release: () => void = () => {};
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.url === '/headers') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
        return;
      }
      if (req.url === '/big' || req.url === '/.well-known/brand.json') {
        const { port } = upstream.address() as AddressInfo;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"url":"http://127.0.0.1:${port}/a2a","pad":"`);
        res.end(`${'x'.repeat(3 * 1024 * 1024)}"}`);
        return;
      }
      if (req.url === '/.well-known/agent-card.json') {
        const { port } = upstream.address() as AddressInfo;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `http://127.0.0.1:${port}/a2a` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"first":true}\n\n');
      // The stream ends only once the client has seen the first event through the proxy.
      const end = setTimeout(() => res.end('data: {"late":true}\n\n'), 10_000);
      release = () => {
        clearTimeout(end);
        res.end('data: {"second":true}\n\n');
      };
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

  it('streams an SSE answer event by event and hands the audit the whole of it', async () => {
    const seen: string[] = [];
    const { port } = upstream.address() as AddressInfo;
    const proxy = await startReverseProxy({ upstream: `http://127.0.0.1:${port}`, onExchange: (x) => seen.push(x.response?.body ?? '') });
    try {
      const res = await request(`${proxy.url}/mcp`, { method: 'POST', body: '{}' });
      const it = res.body[Symbol.asyncIterator]();
      const first = String((await it.next()).value);
      expect(first).toContain('"first"');
      release();
      let rest = '';
      for (let c = await it.next(); !c.done; c = await it.next()) rest += String(c.value);
      expect(rest).toContain('"second"');
      await new Promise((r) => setTimeout(r, 50));
      expect(seen[0]).toContain('"first"');
      expect(seen[0]).toContain('"second"');
    } finally {
      await proxy.close();
    }
  });

  it('points the agent card at the proxy, so an A2A client keeps calling through it', async () => {
    const { port } = upstream.address() as AddressInfo;
    const proxy = await startReverseProxy({ upstream: `http://127.0.0.1:${port}`, onExchange: () => {} });
    try {
      const card = (await (await request(`${proxy.url}/.well-known/agent-card.json`)).body.json()) as { url: string };
      expect(card.url).toBe(`${proxy.url}/a2a`);
    } finally {
      await proxy.close();
    }
  });

  it('passes a body above the audit cap whole to the client, the audit keeping the cap (a large discovery document unchanged)', async () => {
    const { port } = upstream.address() as AddressInfo;
    const seen: Array<{ length: number; truncated?: true }> = [];
    const proxy = await startReverseProxy({
      upstream: `http://127.0.0.1:${port}`,
      maxAuditBytes: 64 * 1024,
      onExchange: (x) => seen.push({ length: x.response?.body.length ?? 0, truncated: x.response?.body_truncated }),
    });
    try {
      for (const path of ['/big', '/.well-known/brand.json']) {
        const text = await (await request(`${proxy.url}${path}`)).body.text();
        expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
        expect(text).toContain(`http://127.0.0.1:${port}/a2a`);
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual([
        { length: 64 * 1024, truncated: true },
        { length: 64 * 1024, truncated: true },
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('forwards the client headers but asks the agent for an unencoded answer, and keeps the client Host', async () => {
    const { port } = upstream.address() as AddressInfo;
    const proxy = await startReverseProxy({ upstream: `http://127.0.0.1:${port}`, onExchange: () => {} });
    try {
      const headers = (await (await request(`${proxy.url}/headers`, { headers: { 'accept-encoding': 'gzip', 'x-trace': 'abc' } })).body.json()) as Record<
        string,
        string
      >;
      expect(headers['x-trace']).toBe('abc');
      expect(headers['accept-encoding']).toBeUndefined();
      expect(headers.host).toBe(new URL(proxy.url).host);
    } finally {
      await proxy.close();
    }
  });

  it('answers 502 when the upstream cannot be reached, and records why', async () => {
    const seen: Array<string | undefined> = [];
    const proxy = await startReverseProxy({ upstream: 'http://127.0.0.1:1', onExchange: (x) => seen.push(x.error) });
    try {
      const res = await request(`${proxy.url}/mcp`, { method: 'POST', body: '{}' });
      expect(res.statusCode).toBe(502);
      await res.body.text();
      expect(seen[0]).toMatch(/not reached/);
    } finally {
      await proxy.close();
    }
  });
});
