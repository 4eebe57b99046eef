/** `proto-comply proxy` as a user runs it: a real process, a buyer call through it, SIGTERM, the report. */
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { createRecorder, createTransport, DEFAULT_TRANSPORT_LIMITS, resolveEndpoints } from '../transport/index.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const AUTH = 'proxy-cli-token-0123456789abcdef';

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('proto-comply proxy: usage errors exit 2 with one line', () => {
  it.each([
    [[], /--upstream URL is required/],
    [['--upstream', 'not a url'], /is not an absolute URL/],
    [['--upstream', 'ftp://example.com'], /must be http or https/],
    [['--upstream', 'http://u:p@example.com'], /must not carry credentials/],
    [['--upstream', 'http://127.0.0.1:1', '--port', '70000'], /--port must be an integer/],
    [['--upstream', 'http://127.0.0.1:1', '--report-every-s', '0'], /--report-every-s must be an integer/],
    [['--upstream', 'http://127.0.0.1:1', '--inject', 'call:explode'], /unknown rule/],
    [['--upstream', 'http://127.0.0.1:1', '--inject', 'webhook:duplicate'], /webhook faults need the webhook relay/],
    [['--upstream', 'http://127.0.0.1:1', '--inject', 'call:reset', '--seed', 'x1'], /--seed must be an integer/],
  ])('%j', async (args, message) => {
    const r = await cli(['proxy', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

describe('proto-comply proxy in front of the mock seller', () => {
  let seller: RunningMockSeller;
  let dir: string;
  beforeAll(async () => {
    seller = await startMockSeller({ authToken: AUTH, faults: ['context-not-echoed'] });
    dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'));
  });
  afterAll(async () => {
    await seller.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('audits a buyer call, prints the finding, and writes the report on SIGTERM', async () => {
    const out = join(dir, 'report');
    const child = spawn(process.execPath, [BIN, 'proxy', '--upstream', seller.baseUrl, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 20_000);
        child.stderr.on('data', () => {
          const m = /proxy listening on (\S+)/.exec(stderr);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const transport = createTransport(
        'mcp',
        { agentUrl: url, token: 'proto', authToken: AUTH, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder({ secrets: [AUTH] }) },
        resolveEndpoints(url),
      );
      const reply = await transport.call('get_products', {
        buying_mode: 'brief',
        brief: 'sports drink video',
        brand: { domain: 'example.com' },
        context: { trace: 'abc' },
      });
      await transport.close();
      expect(reply.ok).toBe(true);
      // The finding line comes as the exchange ends; then SIGTERM.
      for (let i = 0; i < 50 && !stderr.includes('finding:'); i++) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      const code = await exited;
      expect(stderr).toMatch(/finding: schemas\.context\.echoed: get_products: context not echoed verbatim/);
      expect(code).toBe(1);
      const path = join(out, 'agent-compliance.json');
      expect(existsSync(path)).toBe(true);
      const report = JSON.parse(readFileSync(path, 'utf8'));
      expect(validateAgentCompliance(report).valid).toBe(true);
      const check = report.checks.find((c: { check_id: string; transport: string }) => c.check_id === 'schemas.context.echoed' && c.transport === 'mcp');
      expect(check.outcome).toBe('fail');
      expect(JSON.stringify(report)).not.toContain(AUTH);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
