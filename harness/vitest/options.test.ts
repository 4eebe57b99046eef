import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComplianceOptionsError, resolveOptions } from './options.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pc-vitest-options-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveOptions (the vitest entry point configuration)', () => {
  it('reads the agent and the selection from the environment', async () => {
    const baseline = join(dir, 'b.yaml');
    await writeFile(baseline, 'version: 1\nexpected_failures:\n  - check: errors.auth.wrong-bearer\n    transport: a2a\n    reason: x\n');
    const o = resolveOptions({
      env: {
        PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/mcp',
        PROTO_COMPLY_AUTH_TOKEN: 'secret',
        PROTO_COMPLY_TRANSPORT: 'a2a',
        PROTO_COMPLY_SUITES: 'errors, capabilities',
        PROTO_COMPLY_CHECK: 'errors.*',
        PROTO_COMPLY_SEED: '17',
        PROTO_COMPLY_STRICT: 'true',
        PROTO_COMPLY_BASELINE: baseline,
        PROTO_COMPLY_BUDGET_S: '60',
      },
    });
    expect(o).toMatchObject({
      agentUrl: 'http://127.0.0.1:9/mcp',
      authToken: 'secret',
      transports: ['a2a'],
      transportExplicit: true,
      suites: ['errors', 'capabilities'],
      checkGlob: 'errors.*',
      token: 'proto',
      seed: '17',
      strict: true,
      budgetS: 60,
      baseline: { file: baseline, entries: [{ check_id: 'errors.auth.wrong-bearer', transport: 'a2a', reason: 'x' }] },
    });
    expect(resolveOptions({ env: { PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/' } })).toMatchObject({
      transports: ['mcp', 'a2a'],
      transportExplicit: false,
      strict: false,
    });
  });

  it('options passed in code win over the environment', () => {
    const o = resolveOptions({
      agentUrl: 'http://127.0.0.1:1/',
      transports: ['mcp'],
      env: { PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_TRANSPORT: 'a2a' },
    });
    expect(o.agentUrl).toBe('http://127.0.0.1:1/');
    expect(o.transports).toEqual(['mcp']);
  });

  it.each([
    [{}, /set PROTO_COMPLY_AGENT/],
    [{ PROTO_COMPLY_AGENT: 'file:///etc/passwd' }, /http or https/],
    [{ PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_TRANSPORT: 'smtp' }, /PROTO_COMPLY_TRANSPORT must be mcp, a2a or both/],
    [{ PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_SEED: 'abc' }, /seed must be/],
    [{ PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_TOKEN: 'Bad Token' }, /token/],
    [{ PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_BUDGET_S: '-3' }, /budget must be a positive number/],
    [{ PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_BASELINE: '/nonexistent/b.yaml' }, /baseline \/nonexistent\/b\.yaml: cannot read: ENOENT/],
  ])('rejects %j at collection time with one clear line', (env, message) => {
    expect(() => resolveOptions({ env })).toThrow(ComplianceOptionsError);
    expect(() => resolveOptions({ env })).toThrow(message);
  });

  it('rejects a baseline naming an unknown check', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'version: 1\nexpected_failures:\n  - check: nope.nope\n    reason: x\n');
    expect(() => resolveOptions({ env: { PROTO_COMPLY_AGENT: 'http://127.0.0.1:9/', PROTO_COMPLY_BASELINE: bad } })).toThrow(/unknown check id "nope\.nope"/);
  });
});
