/** A run the harness breaks in still ends as a valid report with status error and exit 5. */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockSeller } from '../../mocks/seller/index.js';
import { certify, pickSuites } from '../certify/index.js';
import { EXIT, exitCodeFor } from '../core/engine/summarize.js';
import { renderAgentComplianceJson } from '../../reports/json.js';
import { writeReportsSafely } from './run-failure.js';
import { errorRun, type RunFrame } from '../core/engine/error-run.js';
import { buildRunFixture } from '../../reports/testing/run-result.js';

function frame(): RunFrame {
  return {
    agentUrl: 'http://127.0.0.1:1/mcp',
    token: 'proto',
    transports: ['mcp', 'a2a'],
    seed: '1',
    command: 'npx proto-comply run',
    suites: pickSuites(['capabilities']),
    strict: false,
    startedAt: new Date(),
    target: { requested_compliance_target: '3.1', explicit: false },
  };
}

describe('harness errors end as reports', () => {
  it('an error run is a valid document with status error, the cause, and exit 5', () => {
    const run = errorRun(frame(), 'RangeError: Maximum call stack size exceeded', []);
    expect(run.overall_status).toBe('error');
    expect(run.harness_error).toMatch(/RangeError/);
    expect(() => renderAgentComplianceJson(run)).not.toThrow();
    expect(exitCodeFor(run)).toBe(EXIT.error);
  });

  it('a report that cannot be rendered is replaced by an error report naming why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-fail-'));
    try {
      const broken = { ...buildRunFixture(), counts: { ...buildRunFixture().counts, pass: -1 } };
      const saved = await writeReportsSafely(broken, frame(), { dir });
      expect(saved.writeError).toMatch(/could not be written/);
      const doc = JSON.parse(readFileSync(join(dir, 'agent-compliance.json'), 'utf8')) as { overall_status: string; harness_error: string };
      expect(doc.overall_status).toBe('error');
      expect(doc.harness_error).toMatch(/could not be written/);
      expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a throw in the middle of a run keeps every check finished so far and names the cause', async () => {
    const seller = await startMockSeller({ allowPrivateWebhooks: true });
    try {
      let seen = 0;
      const run = await certify({
        agentUrl: seller.baseUrl,
        suites: ['capabilities'],
        transports: ['mcp'],
        onCheck: () => {
          seen += 1;
          if (seen === 2) throw new Error('boom in a callback');
        },
      });
      expect(run.overall_status).toBe('error');
      expect(run.harness_error).toBe('Error: boom in a callback');
      expect(run.checks.length).toBeGreaterThanOrEqual(2);
      expect(run.headline).toMatch(/^harness error: Error: boom in a callback \(\d+ of \d+ check runs finished/);
      expect(() => renderAgentComplianceJson(run)).not.toThrow();
      expect(exitCodeFor(run)).toBe(EXIT.error);
    } finally {
      await seller.close();
    }
  });
});
