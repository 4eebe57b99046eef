import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import { renderAgentComplianceJson, validateAgentCompliance } from '../../reports/json.js';
import { renderHtml } from '../../reports/html.js';
import { createRecorder, createTransport, DEFAULT_TRANSPORT_LIMITS, resolveEndpoints } from '../core/transport/index.js';
import { Injector, InjectRuleError, parseInjectRules } from './inject.js';
import { startAuditingProxy } from './session.js';

describe('--inject rules', () => {
  it('parses each rule, comma-separated or repeated, with its probability', () => {
    const rules = parseInjectRules(['call:delay:500ms,call:reset:0.05', 'call:status:503:0.1', 'call:delay:2s:1', 'webhook:duplicate:0.2', 'webhook:reorder']);
    expect(rules.map((r) => [r.text, r.p])).toEqual([
      ['call:delay:500ms', 1],
      ['call:reset:0.05', 0.05],
      ['call:status:503:0.1', 0.1],
      ['call:delay:2s:1', 1],
      ['webhook:duplicate:0.2', 0.2],
      ['webhook:reorder', 1],
    ]);
    expect(rules[0]).toMatchObject({ kind: 'delay', ms: 500 });
    expect(rules[3]).toMatchObject({ kind: 'delay', ms: 2000 });
    expect(rules[2]).toMatchObject({ kind: 'status', status: 503 });
  });

  it.each([
    ['call:delay', /call:delay:<N>ms/],
    ['call:delay:0ms', /from 1 ms to 60 s/],
    ['call:delay:61s', /from 1 ms to 60 s/],
    ['call:status:200', /400-599/],
    ['call:reset:0', /probability must be a number in \(0, 1\]/],
    ['call:reset:1.5', /probability/],
    ['call:reset:abc', /probability/],
    ['call:explode', /unknown rule/],
    ['webhook:reorder:0.5:9', /too many fields/],
  ])('refuses %s', (rule, message) => {
    expect(() => parseInjectRules([rule])).toThrow(InjectRuleError);
    expect(() => parseInjectRules([rule])).toThrow(message);
  });

  it('fires each rule with its probability, the same way for the same seed and exchange numbers', () => {
    const rules = parseInjectRules(['call:reset:0.3']);
    const fired = (seed: string) => Array.from({ length: 2000 }, (_, i) => new Injector(rules, seed).firing('call', i + 1).length > 0);
    const a = fired('42');
    expect(fired('42')).toEqual(a);
    expect(fired('43')).not.toEqual(a);
    const rate = a.filter(Boolean).length / a.length;
    expect(rate).toBeGreaterThan(0.25);
    expect(rate).toBeLessThan(0.35);
    expect(new Injector(rules, '42').firing('webhook', 1)).toEqual([]);
  });
});

describe('call faults injected by the proxy', () => {
  it('answers, resets and delays task calls as the rules say, records each, and audits only what the agent answered', async () => {
    const AUTH = randomBytes(18).toString('base64url');
    const seller = await startMockSeller({ authToken: AUTH });
    const inject = new Injector(parseInjectRules(['call:status:503:0.3', 'call:reset:0.2', 'call:delay:30ms:0.2']), '7');
    const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto', inject });
    const transport = createTransport(
      'mcp',
      { agentUrl: proxy.url, token: 'proto', authToken: AUTH, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder({ secrets: [AUTH] }) },
      resolveEndpoints(proxy.url),
    );
    try {
      const seen = { ok: 0, status503: 0, network: 0, other: 0 };
      for (let i = 0; i < 60; i++) {
        const r = await transport.call('get_products', { buying_mode: 'brief', brief: 'sports drink video', brand: { domain: 'example.com' } });
        if (r.ok) seen.ok++;
        else if (r.failure?.httpStatus === 503) seen.status503++;
        else if (r.failure?.kind === 'network') seen.network++;
        else seen.other++;
      }
      const summary = inject.summary();
      expect(seen.other).toBe(0);
      expect(seen.status503).toBe(summary.by_rule['call:status:503:0.3']);
      expect(seen.network).toBe(summary.by_rule['call:reset:0.2']);
      expect(seen.status503).toBeGreaterThan(5);
      expect(seen.network).toBeGreaterThan(3);
      expect(summary.by_rule['call:delay:30ms:0.2']).toBeGreaterThan(3);
      expect(summary.faults.every((f) => f.seq > 0 && f.what.length > 0)).toBe(true);
      const report = proxy.result();
      expect(report.injected).toMatchObject({ seed: '7', total: summary.total, rules: ['call:status:503:0.3', 'call:reset:0.2', 'call:delay:30ms:0.2'] });
      expect(report.seed).toBe('7');
      expect(validateAgentCompliance(JSON.parse(renderAgentComplianceJson(report))).errors).toEqual([]);
      const page = renderHtml(report);
      expect(page).toContain('<section id="injected">');
      expect(page).toContain(`<code>call:status:503:0.3</code></td><td>${seen.status503}</td>`);
      // The proxy's own 503s are not the agent's answers; the reset calls' answers are, and are sound.
      expect(report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn')).toEqual([]);
      const judged = report.checks.find((c) => c.check_id === 'schemas.response.get_products' && c.transport === 'mcp');
      expect(judged?.message).toMatch(new RegExp(`^${seen.ok + seen.network} observed answer`));
    } finally {
      await transport.close();
      await proxy.close();
      await seller.close();
    }
  }, 60_000);
});
