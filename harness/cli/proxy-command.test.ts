/** `proto-comply proxy` as a user runs it: a real process, a buyer call through it, SIGTERM, the report. */
import { spawn, execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller, type RunningMockSeller } from '../../mocks/seller/index.js';
import { validateAgentCompliance } from '../../reports/json.js';
import { createRecorder, createTransport, DEFAULT_TRANSPORT_LIMITS, resolveEndpoints } from '../core/transport/index.js';
import { counterpartyKeys } from '../core/signing/keys/counterparty.js';
import { protocolIds } from '../core/token.js';

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
    [['--upstream', 'http://127.0.0.1:1', '--inject', 'webhook:duplicate'], /webhook faults act on relayed webhooks; give --webhooks-to/],
    [['--upstream', 'http://127.0.0.1:1', '--webhooks-to', 'http://127.0.0.1:9/hooks'], /--webhooks-to must be an origin/],
    [['--upstream', 'http://127.0.0.1:1', '--webhooks-to', 'http://127.0.0.1:9', '--webhook-port', '70000'], /--webhook-port must be an integer/],
    [['--upstream', 'http://127.0.0.1:1', '--inject', 'call:reset', '--seed', 'x1'], /--seed must be an integer/],
    [['--upstream', 'http://127.0.0.1:1', '--allow-host', 'not a host!'], /proxy: --allow-host: /],
    [['--upstream', 'http://127.0.0.1:1', '--mitm'], /--mitm needs --ca-dir DIR/],
    [['--upstream', 'http://127.0.0.1:1', '--ca-dir', '/tmp/x'], /--ca-dir goes with --mitm/],
    [['--upstream', 'http://127.0.0.1:1', '--mitm', '--ca-dir', '/tmp/x', '--inject', 'call:reset'], /call faults .* reverse proxy only/],
    [['--upstream', 'http://127.0.0.1:1', '--mitm', '--ca-dir', '/tmp/x', '--upstream-ca', '/nonexistent.pem'], /--upstream-ca .*ENOENT/],
  ])('%j', async (args, message) => {
    const r = await cli(['proxy', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

describe('proto-comply proxy --caller-jwks: refused before listening when unusable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-jwks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it.each([
    ['not-json.json', 'nope', /is not JSON/],
    ['no-keys.json', '{"keys": []}', /is not a JWKS/],
    ['private.json', '{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "AA", "d": "AA"}]}', /key "k1" carries private material/],
    ['dup.json', '{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "AA"}, {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "AB"}]}', /k1/],
  ])('%s', async (name, text, message) => {
    writeFileSync(join(dir, name), text);
    const r = await cli(['proxy', '--upstream', 'http://127.0.0.1:1', '--caller-jwks', join(dir, name)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
  it('a missing file', async () => {
    const r = await cli(['proxy', '--upstream', 'http://127.0.0.1:1', '--caller-jwks', join(dir, 'absent.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--caller-jwks .*ENOENT/);
  });
});

describe('proto-comply proxy --mitm', () => {
  it('creates its CA, says how to trust it, and writes the report on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-mitm-cli-'));
    const child = spawn(
      process.execPath,
      [BIN, 'proxy', '--mitm', '--ca-dir', join(dir, 'ca'), '--upstream', 'https://127.0.0.1:9', '--out', join(dir, 'report')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    try {
      for (let i = 0; i < 200 && !stderr.includes('NODE_EXTRA_CA_CERTS'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toMatch(/forward proxy listening on http:\/\/127\.0\.0\.1:\d+, auditing https:\/\/127\.0\.0\.1:9/);
      expect(stderr).toContain(`trust ${join(dir, 'ca', 'certs', 'ca.pem')}`);
      expect(existsSync(join(dir, 'ca', 'certs', 'ca.pem'))).toBe(true);
      child.kill('SIGTERM');
      // Nothing observed: every rule a gap, coverage incomplete.
      expect(await exited).toBe(4);
      expect(existsSync(join(dir, 'report', 'agent-compliance.json'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
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

  it('audits a buyer call, relays a webhook, prints the finding, and writes the report on SIGTERM', async () => {
    const out = join(dir, 'report');
    const hooks: string[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hooks.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const jwks = join(dir, 'caller-jwks.json');
    writeFileSync(jwks, JSON.stringify(counterpartyKeys(protocolIds('proto')).jwks));
    const args = [
      'proxy',
      '--upstream',
      seller.baseUrl,
      '--out',
      out,
      '--webhooks-to',
      receiverOrigin,
      '--inject',
      'webhook:duplicate',
      '--seed',
      '5',
      '--caller-jwks',
      jwks,
    ];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      stdout += d;
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
      const relay = /webhook relay on (\S+)/.exec(stderr)?.[1];
      const hook = await request(`${relay}/hooks/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"task_id":"t"}' });
      await hook.body.text();
      expect(hook.statusCode).toBe(200);
      expect(hooks).toEqual(['/hooks/x', '/hooks/x']);
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
      expect(report.injected).toMatchObject({ seed: '5', total: 1, by_rule: { 'webhook:duplicate': 1 } });
      // With the caller's keys, the keyed verifier rules are in the report (gaps here: no signed call was made).
      expect(report.checks.some((c: { check_id: string }) => c.check_id === 'signatures.crypto.bad-signature')).toBe(true);
      // The buyer's report beside it: its get_products arguments judged, the rest gaps; no buyer rule on the agent's report.
      const buyer = JSON.parse(readFileSync(join(out, 'caller', 'agent-compliance.json'), 'utf8'));
      expect(validateAgentCompliance(buyer).valid).toBe(true);
      const schema = buyer.checks.find((c: { check_id: string; transport: string }) => c.check_id === 'caller.request.schema' && c.transport === 'mcp');
      expect(schema.outcome).toBe('pass');
      expect(report.checks.some((c: { check_id: string }) => c.check_id.startsWith('caller.'))).toBe(false);
      expect(stdout).toMatch(/the buyer's requests \(caller report\)/);
    } finally {
      child.kill('SIGKILL');
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 60_000);
});
