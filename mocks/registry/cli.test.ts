/** `proto-comply mock registry`: starts, prints its URLs, serves the agent's keys as the brand's key set, stops cleanly; bad flags exit 2. */
import { describe, expect, it } from 'vitest';
import { startMockSeller } from '../seller/index.js';
import { mockRegistryCommand } from './cli.js';

async function started(argv: string[]) {
  let out = '';
  let err = '';
  const stop = new AbortController();
  const done = mockRegistryCommand(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), stop: stop.signal });
  for (let i = 0; i < 100 && !/brand /.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  return { out: () => out, err: () => err, stop: async () => (stop.abort(), await done) };
}

describe('proto-comply mock registry', () => {
  it("names the agent in its discovery files with the agent's own public keys", async () => {
    const seller = await startMockSeller({ allowPrivateWebhooks: true, dbPath: ':memory:' });
    try {
      const cli = await started(['--agent', seller.mcpUrl, '--agent-capability', 'get_products,create_media_buy']);
      const brandUrl = /brand\s+(\S+)/.exec(cli.out())![1]!;
      expect(cli.out()).toMatch(/api key\s+\S{20,}/);
      const brand = (await (await fetch(brandUrl)).json()) as { agents: Array<{ url: string; jwks_uri: string }> };
      expect(brand.agents[0]!.url).toBe(seller.mcpUrl);
      const served = (await (await fetch(brand.agents[0]!.jwks_uri)).json()) as { keys: Array<Record<string, unknown>> };
      const own = (await (await fetch(seller.jwksUrl)).json()) as { keys: Array<Record<string, unknown>> };
      expect(served.keys.map((k) => k.kid)).toEqual(own.keys.map((k) => k.kid));
      expect(served.keys.every((k) => !('d' in k))).toBe(true);
      expect(await cli.stop()).toBe(0);
      expect(cli.err()).toContain('mock registry stopped');
    } finally {
      await seller.close();
    }
  });

  it("starts with an empty key set, and says so, when the agent's key set cannot be read", async () => {
    const cli = await started(['--agent', 'http://127.0.0.1:9/mcp']);
    expect(cli.err()).toMatch(/key set could not be read \(http:\/\/127\.0\.0\.1:9\/\.well-known\/jwks\.json: .+\); the brand's key set and the pin are empty/);
    const adagents = /adagents\s+(\S+)/.exec(cli.out())![1]!;
    expect(((await (await fetch(adagents)).json()) as Record<string, unknown>).signing_keys).toBeUndefined();
    expect(await cli.stop()).toBe(0);
  });

  it('lists its faults, and refuses bad flags with exit 2', async () => {
    let out = '';
    expect(await mockRegistryCommand(['--list-faults'], { stdout: (t) => (out += t) })).toBe(0);
    expect(out).toContain('capability-filter-ignored');
    for (const argv of [['--fault', 'nope'], ['--agent', 'ftp://x'], ['--agent-jwks', 'http://x/'], ['--api-key', 'short'], ['--port', '70000'], ['--bogus']]) {
      let err = '';
      expect(await mockRegistryCommand(argv, { stderr: (t) => (err += t) }), argv.join(' ')).toBe(2);
      expect(err).toMatch(/^proto-comply mock registry: /);
    }
  });
});
