/** The private-address policy: refusals, the allow-list, one resolution per host, the documents rules. */
import { describe, expect, it } from 'vitest';
import { AddressPolicy, AddressRefusedError, AllowHostError, HostResolver, parseAllowHosts, type LookupFunction } from './address-policy.js';

/** A resolver from a fixed table that counts its lookups (no DNS). */
function table(entries: Record<string, string[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const found = entries[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { calls });
}

async function refusal(p: Promise<unknown>): Promise<AddressRefusedError | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (e instanceof AddressRefusedError) return e;
    throw e;
  }
}

describe('AddressPolicy', () => {
  it('refuses nothing without denyPrivate', async () => {
    const p = new AddressPolicy({ lookup: table({ 'agent.example.com': ['127.0.0.1'] }) });
    expect(await p.resolve('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await p.resolve('agent.example.com')).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('refuses a reserved literal and a public-looking name that resolves to a reserved address', async () => {
    const p = new AddressPolicy({ denyPrivate: true, lookup: table({ 'agent.example.com': ['127.0.0.1'], 'meta.example.com': ['169.254.169.254'] }) });
    expect((await refusal(p.resolve('127.0.0.1')))?.message).toBe('refused: 127.0.0.1 is a reserved address (loopback)');
    expect((await refusal(p.resolve('[::1]')))?.message).toBe('refused: ::1 is a reserved address (loopback)');
    expect((await refusal(p.resolve('agent.example.com')))?.message).toBe('refused: agent.example.com resolves to 127.0.0.1, a reserved address (loopback)');
    expect(await refusal(p.resolve('meta.example.com'))).toMatchObject({ host: 'meta.example.com', address: '169.254.169.254', range: 'linkLocal' });
    expect((await refusal(p.resolve('[::ffff:10.0.0.1]')))?.message).toMatch(/reserved address \(ipv4Mapped of 10\.0\.0\.1, private\)/);
  });

  it('refuses a name when any of its answers is reserved, and lets public answers through', async () => {
    const lookup = table({
      'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
      'public.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
    const p = new AddressPolicy({ denyPrivate: true, lookup });
    expect(await refusal(p.resolve('mixed.example.com'))).toMatchObject({ address: '10.0.0.7' });
    expect((await p.resolve('public.example.com')).map((a) => a.address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('lets allow-listed names, addresses and CIDR blocks through', async () => {
    const lookup = table({ 'agent.example.com': ['127.0.0.1'], 'fleet.internal': ['10.1.2.3'], 'other.internal': ['192.168.1.9'] });
    const p = new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.1', '10.0.0.0/8', 'Other.Internal'], lookup });
    expect(await p.resolve('127.0.0.1')).toHaveLength(1);
    expect(await p.resolve('agent.example.com')).toHaveLength(1);
    expect(await p.resolve('fleet.internal')).toHaveLength(1);
    expect(await p.resolve('other.internal')).toHaveLength(1);
    expect(await refusal(p.resolve('127.0.0.2'))).toBeInstanceOf(AddressRefusedError);
    expect(await refusal(p.resolve('172.16.0.1'))).toBeInstanceOf(AddressRefusedError);
  });

  it('resolves each host once, shares concurrent lookups, and does not cache failures', async () => {
    const lookup = table({ 'agent.example.com': ['93.184.215.14'] });
    const p = new AddressPolicy({ denyPrivate: true, lookup });
    await Promise.all([p.resolve('agent.example.com'), p.resolve('AGENT.example.com.'), p.resolve('agent.example.com')]);
    await p.resolve('agent.example.com');
    expect(lookup.calls).toEqual(['agent.example.com']);

    let attempts = 0;
    const flaky = new AddressPolicy({
      lookup: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('SERVFAIL');
        return [{ address: '93.184.215.14', family: 4 }];
      },
    });
    await expect(flaky.resolve('flaky.example.com')).rejects.toThrow(/cannot resolve flaky\.example\.com: SERVFAIL/);
    expect(await flaky.resolve('flaky.example.com')).toHaveLength(1);
    expect(attempts).toBe(2);
  });

  it('gives up on a lookup that never answers, and on one that answers nothing', async () => {
    const resolver = new HostResolver({ lookup: () => new Promise(() => {}), timeoutMs: 20 });
    await expect(new AddressPolicy({ resolver }).resolve('slow.example.com')).rejects.toThrow(/timed out/);
    await expect(new AddressPolicy({ lookup: async () => [] }).resolve('empty.example.com')).rejects.toThrow(/no address/);
  });

  it('documents rules: reserved refused even when the run allows private, loopback only on request and never under denyPrivate', async () => {
    const open = new AddressPolicy();
    expect(await refusal(open.forDocuments().resolve('127.0.0.1'))).toBeInstanceOf(AddressRefusedError);
    expect(await refusal(open.forDocuments().resolve('10.0.0.1'))).toBeInstanceOf(AddressRefusedError);
    expect(await open.forDocuments({ loopback: true }).resolve('127.0.0.1')).toHaveLength(1);
    expect(await refusal(open.forDocuments({ loopback: true }).resolve('10.0.0.1'))).toBeInstanceOf(AddressRefusedError);

    const strict = new AddressPolicy({ denyPrivate: true, allowHosts: ['127.0.0.1'] });
    expect(await refusal(strict.forDocuments({ loopback: true }).resolve('127.0.0.2'))).toBeInstanceOf(AddressRefusedError);
    expect(await strict.forDocuments({ loopback: true }).resolve('127.0.0.1')).toHaveLength(1);
    expect(strict.forDocuments().resolver).toBe(strict.resolver);
  });

  it('parses the allow-list strictly', () => {
    expect(parseAllowHosts(['localhost', '127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'agent.example.com']).names).toEqual(
      new Set(['localhost', 'agent.example.com']),
    );
    for (const bad of ['10.0.0.0/33', 'http://x', 'a b', '', '127.1', '-bad.example']) {
      expect(() => parseAllowHosts([bad]), bad).toThrow(AllowHostError);
    }
  });
});
