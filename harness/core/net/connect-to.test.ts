import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { AddressPolicy, findAddressRefusal } from './address-policy.js';
import { ConnectToError, connectTarget, describeConnectTo, parseConnectTo, parseConnectToList } from './connect-to.js';
import { policyAgent } from './pinned-connector.js';

describe('parseConnectTo (curl --connect-to HOST:PORT:CONNECT_HOST:CONNECT_PORT)', () => {
  it('reads the four fields, empty ones as any / unchanged, IPv6 in brackets', () => {
    expect(parseConnectTo('seller.test:80:127.0.0.1:4000')).toEqual({ host: 'seller.test', port: 80, connectHost: '127.0.0.1', connectPort: 4000 });
    expect(parseConnectTo('Seller.Example:443:[::1]:8443')).toEqual({ host: 'seller.example', port: 443, connectHost: '::1', connectPort: 8443 });
    expect(parseConnectTo('::staging.example:')).toEqual({ connectHost: 'staging.example' });
    expect(parseConnectTo('[2001:db8::1]:443::9443')).toEqual({ host: '2001:db8::1', port: 443, connectPort: 9443 });
    expect(describeConnectTo(parseConnectToList(['seller.test:80:[::1]:4000', '::x.example:']))).toBe('seller.test:80:[::1]:4000, ::x.example:');
  });
  it('refuses what is not four fields, a bad port, an unbracketed or unclosed IPv6 address', () => {
    for (const bad of ['seller.test:80:127.0.0.1', 'a:b:c:d', 'seller.test:80:127.0.0.1:70000', 'h:80:::1:4000', 'h:80:[::1:4000', 'h:80:[x]:1', 'h p:80::'])
      expect(() => parseConnectTo(bad), bad).toThrow(ConnectToError);
  });
  it('sends a host and port to the first matching rule, and leaves the others alone', () => {
    const rules = parseConnectToList(['seller.test:80:127.0.0.1:4000', ':443:10.0.0.1:']);
    expect(connectTarget(rules, 'SELLER.TEST', 80)).toEqual({ hostname: '127.0.0.1', port: 4000 });
    expect(connectTarget(rules, 'seller.test', 8080)).toBeUndefined();
    expect(connectTarget(rules, 'other.example', 443)).toEqual({ hostname: '10.0.0.1', port: 443 });
    expect(connectTarget([], 'seller.test', 80)).toBeUndefined();
  });
});

describe('connections under --connect-to', () => {
  let server: Server;
  let port: number;
  const seen: { host?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ host: req.headers.host });
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reach the connect address with the URL and its Host unchanged, pinned or not', async () => {
    for (const denyPrivate of [false, true]) {
      const policy = new AddressPolicy({
        denyPrivate,
        allowHosts: ['127.0.0.1'],
        connectTo: [{ host: 'seller.test', port: 80, connectHost: '127.0.0.1', connectPort: port }],
      });
      const agent = policyAgent(policy);
      const res = await request('http://seller.test/x', { dispatcher: agent });
      expect(await res.body.text()).toBe('ok');
      expect(seen.at(-1)).toEqual({ host: 'seller.test' });
      await agent.close();
    }
  });

  it('are judged by --deny-private at the address connected to, not the name in the URL', async () => {
    const rules = [{ host: 'seller.test', port: 80, connectHost: '127.0.0.1', connectPort: port }];
    const policy = new AddressPolicy({ denyPrivate: true, allowHosts: ['seller.test'], connectTo: rules });
    await expect(policy.checkUrl('http://seller.test/')).rejects.toThrow(/127\.0\.0\.1 is a reserved address/);
    const agent = policyAgent(policy);
    const err = await request('http://seller.test/x', { dispatcher: agent }).catch((e: unknown) => e);
    expect(findAddressRefusal(err)?.address).toBe('127.0.0.1');
    await agent.close();
    // A document fetch (brand.json, JWKS) follows the same rules.
    expect(policy.forDocuments().connectTo).toEqual(rules);
  });
});
