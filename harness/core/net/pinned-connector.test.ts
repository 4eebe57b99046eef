/**
 * Pinned connections on loopback: a refused address is never connected to, and DNS rebinding (a
 * name that answers an allowed address first and a private one later) never reaches the private
 * address. 127.0.0.2 stands in for a public address (allow-listed); 127.0.0.1 is the private
 * target, a trap on the same port.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { AddressPolicy, AddressRefusedError, findAddressRefusal, HostResolver, type LookupFunction } from './address-policy.js';
import { policyAgent } from './pinned-connector.js';
import { startTestServer, startTrap, type TestServer } from './testing/trap-server.js';

/** A name that answers 127.0.0.2 ("public") on its first lookup and 127.0.0.1 (private) after. */
function rebinding(): LookupFunction & { calls: number } {
  const fn = async () => {
    fn.calls += 1;
    return [{ address: fn.calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 as const }];
  };
  fn.calls = 0;
  return fn;
}

/** A server on 127.0.0.2 and a trap on 127.0.0.1 at the same port (bounded retries for a free one). */
async function pair(): Promise<{ good: TestServer; trap: TestServer }> {
  for (let i = 0; i < 10; i++) {
    const good = await startTestServer('127.0.0.2');
    try {
      return { good, trap: await startTrap('127.0.0.1', good.port) };
    } catch {
      await good.close();
    }
  }
  throw new Error('no port free on both 127.0.0.1 and 127.0.0.2');
}

async function get(url: string, dispatcher: ReturnType<typeof policyAgent>, reset = false): Promise<number> {
  const res = await request(url, { dispatcher, reset });
  await res.body.text();
  return res.statusCode;
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('pinned connections', () => {
  it('never opens a socket to a refused address', async () => {
    const trap = await startTrap();
    closers.push(() => trap.close());
    const agent = policyAgent(new AddressPolicy({ denyPrivate: true }));
    closers.push(() => agent.close());
    const err = await get(`${trap.origin}/x`, agent).catch((e: unknown) => e);
    expect(findAddressRefusal(err)).toBeInstanceOf(AddressRefusedError);
    expect(trap.connections).toBe(0);
  });

  it('connects to exactly the checked address, for the first socket and every later one of the pool', async () => {
    const { good, trap } = await pair();
    closers.push(
      () => good.close(),
      () => trap.close(),
    );
    const lookup = rebinding();
    const agent = policyAgent(new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.2'], lookup }), { connectTimeoutMs: 2_000 });
    closers.push(() => agent.close());
    const url = `http://rebind.example:${good.port}/`;
    // New sockets each time (reset), plus keep-alive reuse in between.
    for (const reset of [true, false, false, true, true]) expect(await get(url, agent, reset)).toBe(200);
    expect(good.requests).toHaveLength(5);
    expect(good.connections).toBeGreaterThanOrEqual(3);
    expect(trap.connections).toBe(0);
    // Resolved once: the rebinding answer was never asked for.
    expect(lookup.calls).toBe(1);
  });

  it('checks every new resolution: a rebinding answer after the cache expires is refused, not connected to', async () => {
    const { good, trap } = await pair();
    closers.push(
      () => good.close(),
      () => trap.close(),
    );
    const lookup = rebinding();
    const resolver = new HostResolver({ lookup, ttlMs: 0 });
    const agent = policyAgent(new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.2'], resolver }));
    closers.push(() => agent.close());
    const url = `http://rebind.example:${good.port}/`;
    expect(await get(url, agent, true)).toBe(200);
    const err = await get(url, agent, true).catch((e: unknown) => e);
    expect(findAddressRefusal(err)?.message).toBe('refused: rebind.example resolves to 127.0.0.1, a reserved address (loopback)');
    expect(lookup.calls).toBe(2);
    expect(good.requests).toHaveLength(1);
    expect(trap.connections).toBe(0);
  });

  it('is a plain agent when the policy refuses nothing', async () => {
    const server = await startTestServer();
    closers.push(() => server.close());
    const agent = policyAgent(new AddressPolicy(), { connectTimeoutMs: 2_000 });
    closers.push(() => agent.close());
    expect(await get(`${server.origin}/`, agent)).toBe(200);
  });
});
