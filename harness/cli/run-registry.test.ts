/**
 * `proto-comply run --registry URL [--api-key K]` as a user runs it: a registry-only run against
 * the mock registry (real process, real exit codes, the key in no output), a failing registry
 * (exit 1, the failing check named), and the usage errors of the registry flags (exit 2).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockRegistry, startMockRegistry } from '../../mocks/registry/index.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const SEED = [{ domain: 'seller.example', agent_url: 'https://seller.example/mcp', capabilities: ['get_products'], channels: ['display'] }];

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('proto-comply run --registry', () => {
  let clean: RunningMockRegistry;
  let faulty: RunningMockRegistry;
  const out = mkdtempSync(join(tmpdir(), 'pc-registry-'));
  beforeAll(async () => {
    [clean, faulty] = await Promise.all([startMockRegistry({ seed: SEED }), startMockRegistry({ seed: SEED, faults: ['registration-without-auth'] })]);
  });
  afterAll(async () => {
    await Promise.all([clean.close(), faulty.close()]);
    rmSync(out, { recursive: true, force: true });
  });

  it('certifies a registry on its own: exit 0, the rest column only, the API key nowhere', async () => {
    const key = clean.apiKeys[0]!;
    const r = await cli(['run', '--registry', clean.baseUrl, '--out', join(out, 'clean')], { PROTO_COMPLY_REGISTRY_API_KEY: key });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^registry\s+passing \(12 pass\)$/m);
    expect(r.stdout).toMatch(/--registry \S+ --api-key "\$PROTO_COMPLY_REGISTRY_API_KEY"/);
    const doc = readFileSync(join(out, 'clean', 'agent-compliance.json'), 'utf8');
    expect(JSON.parse(doc).transports).toEqual(['rest']);
    for (const text of [doc, r.stdout, r.stderr, readFileSync(join(out, 'clean', 'junit.xml'), 'utf8')]) expect(text).not.toContain(key);
  });

  it('takes --publisher and --brand as a base URL (or a domain): the discovery suite fetches <base>/.well-known/<file>.json', async () => {
    const domains = `${clean.baseUrl}/domains`;
    const r = await cli(['run', '--publisher', `${domains}/publisher.test`, '--brand', `${domains}/brand.test/`, '--out', join(out, 'files')]);
    expect(r.stdout).toMatch(/^discovery\s+/m);
    expect(r.stdout).toMatch(/^registry\s+not applicable \(12 not applicable\)$/m);
    const doc = JSON.parse(readFileSync(join(out, 'files', 'agent-compliance.json'), 'utf8'));
    const schema = doc.checks.filter((c: { check_id: string }) => c.check_id.endsWith('.schema'));
    expect(schema.map((c: { outcome: string }) => c.outcome)).toEqual(['pass', 'pass']);
    const urls = JSON.stringify(doc);
    expect(urls).toContain(`${domains}/publisher.test/.well-known/adagents.json`);
    expect(urls).toContain(`${domains}/brand.test/.well-known/brand.json`);
  });

  it('fails a registry that registers agents without credentials (exit 1), naming the check', async () => {
    const r = await cli(['run', '--registry', faulty.baseUrl, '--api-key', faulty.apiKeys[0]!, '--out', join(out, 'faulty')]);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toContain('registry.auth.register-requires-credentials');
    expect(r.stdout).not.toContain(faulty.apiKeys[0]!);
  });

  it.each([
    [['run', '--api-key', 'k'.repeat(20)], /--api-key\) needs a registry URL/],
    [['run', '--registry', 'ftp://registry.example'], /registry URL/],
    [
      ['run', '--registry', 'https://registry.example', '--suite', 'capabilities'],
      /registry-face run .* runs only the registry, registry-compliance and discovery suites/,
    ],
    [['run', '--agent', 'http://127.0.0.1:9/mcp', '--suite', 'registry'], /certifies the registry face: give --registry URL/],
    [['run', '--publisher', 'example.com/adagents.json'], /publisher \(adagents\.json\) "example\.com\/adagents\.json" is neither a domain/],
    [['run', '--brand', 'https://brand.example/?x=1'], /brand \(brand\.json\) URL .* must carry no query/],
    [['run', '--publisher', 'a.example', '--adagents', 'https://a.example/x.json'], /--publisher and --adagents name the same file/],
  ])('usage error %j exits 2 with one line', async (args, message) => {
    const r = await cli(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
