import { describe, expect, it } from 'vitest';
import { protocolIds } from '../core/token.js';
import { keysCommand } from './keys-command.js';

const PROTO_USE = protocolIds('proto').keyUseMember;
const ADCP_USE = protocolIds('adcp').keyUseMember;

async function run(argv: string[], stop?: AbortSignal) {
  let out = '';
  let err = '';
  const code = await keysCommand(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), stop });
  return { code, out, err };
}

describe('proto-comply keys', () => {
  it('prints the public JWKS by default, with the purpose member of the token', async () => {
    const def = await run([]);
    expect(def.code).toBe(0);
    const jwks = JSON.parse(def.out) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(3);
    expect(jwks.keys.every((k) => k.d === undefined && k._private_d_for_test_only === undefined && typeof k[PROTO_USE] === 'string')).toBe(true);
    const adcp = JSON.parse((await run(['--jwks', '--token', 'adcp'])).out) as { keys: Record<string, unknown>[] };
    expect(adcp.keys.every((k) => typeof k[ADCP_USE] === 'string' && k[PROTO_USE] === undefined)).toBe(true);
  });

  it('prints the agent-side configuration', async () => {
    const r = await run(['--agent-config']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ pre_revoked_kids: ['own-revoked-2026'], per_keyid_cap: { requests: 100 } });
  });

  it('refuses bad flags with exit code 2 and one line', async () => {
    for (const argv of [['--jwks', '--serve'], ['--port', '80'], ['--serve', '--port', 'x'], ['--token', 'Bad!'], ['--nope']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('serves brand.json and the JWKS until stopped', async () => {
    const stop = new AbortController();
    let out = '';
    const done = keysCommand(['--serve'], { stdout: (t) => (out += t), stderr: () => {}, stop: stop.signal });
    try {
      for (let i = 0; i < 100 && !out.includes('JWKS'); i++) await new Promise((r) => setTimeout(r, 20));
      const jwksUrl = /JWKS\s+(\S+)/.exec(out)?.[1];
      expect(jwksUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json$/);
      const res = await fetch(jwksUrl!, { signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(200);
    } finally {
      stop.abort();
    }
    expect(await done).toBe(0);
  });
});
