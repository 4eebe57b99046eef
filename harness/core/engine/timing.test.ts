import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startMockSeller } from '../../../mocks/seller/index.js';
import { startAuditingProxy } from '../../proxy/session.js';
import { Injector, parseInjectRules } from '../../proxy/inject.js';
import { certify } from '../../certify/index.js';
import { renderAgentComplianceJson } from '../../../reports/json.js';
import { renderSummary } from '../../../reports/console.js';
import { runTiming, timingLine, unionLength } from './timing.js';

describe('run timing', () => {
  it('counts overlapping exchanges once in the busy time', () => {
    expect(unionLength([])).toBe(0);
    expect(
      unionLength([
        { start: 0, end: 10 },
        { start: 5, end: 15 },
        { start: 20, end: 30 },
        { start: 21, end: 22 },
      ]),
    ).toBe(25);
  });

  it('splits the wall time into waiting on the agent and the rest', () => {
    const t = runTiming({
      wallMs: 1000,
      concurrency: 4,
      exchanges: [
        { start: 0, end: 400 },
        { start: 100, end: 500 },
        { start: 800, end: 900 },
      ],
      cpuMicros: 250_000,
    });
    expect(t).toEqual({
      wall_ms: 1000,
      concurrency: 4,
      agent_calls: 3,
      agent_wait_ms: 900,
      agent_busy_ms: 600,
      no_call_ms: 400,
      mean_in_flight: 0.9,
      ideal_ms: 225,
      harness_cpu_ms: 250,
    });
    expect(timingLine(t)).toBe(
      'Time: 1.0 s wall; waiting on the agent 0.9 s over 3 calls, 0.9 in flight on average of 4; no call in flight 0.4 s (harness work and deliberate waits); harness CPU 0.3 s; floor at concurrency 4: 0.2 s (4.44×)',
    );
  });

  it('a run against an agent answering slowly says the time went to waiting on it, in the JSON report and the summary', async () => {
    const authToken = randomBytes(18).toString('base64url');
    const seller = await startMockSeller({ authToken });
    const inject = new Injector(parseInjectRules(['call:delay:150ms']), '1');
    const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto', inject });
    try {
      const run = await certify({ agentUrl: proxy.url, authToken, transports: ['mcp'], suites: ['setup', 'products'], concurrency: 2 });
      const t = run.timing!;
      const delayed = inject.summary().total;
      expect(delayed).toBeGreaterThan(0);
      expect(t.wall_ms).toBe(run.duration_ms);
      expect(t.concurrency).toBe(2);
      expect(t.agent_calls).toBeGreaterThanOrEqual(delayed);
      // Every delayed call waited at least the delay (exchange times are whole milliseconds).
      expect(t.agent_wait_ms).toBeGreaterThanOrEqual(delayed * 149);
      expect(t.agent_busy_ms).toBeLessThanOrEqual(t.wall_ms);
      expect(t.agent_busy_ms).toBeLessThanOrEqual(t.agent_wait_ms);
      expect(t.agent_busy_ms + t.no_call_ms).toBe(t.wall_ms);
      expect(t.ideal_ms).toBe(Math.round(t.agent_wait_ms / 2));
      const doc = JSON.parse(renderAgentComplianceJson(run));
      expect(doc.timing).toEqual(t);
      expect(Object.keys(doc).indexOf('timing')).toBe(Object.keys(doc).indexOf('duration_ms') + 1);
      expect(renderSummary(run)).toContain(`\n${timingLine(t)}\n`);
    } finally {
      await proxy.close();
      await seller.close();
    }
  }, 60_000);
});
