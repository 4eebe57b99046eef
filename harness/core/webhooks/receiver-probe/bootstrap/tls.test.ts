/**
 * The bootstrap sender's test CA: its certificates parse and chain (CA flag, key usages, the host
 * names), an https server with them is trusted through `policyAgent`'s extra CA and refused
 * without it, and a CA kept in the directory from an earlier run (an RSA key, as node-forge wrote
 * it) still issues the server certificate.
 */
import { generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../../../net/address-policy.js';
import { policyAgent } from '../../../net/pinned-connector.js';
import { testCa } from './tls.js';
import { BOOTSTRAP_HOSTS } from './variants.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'bootstrap-ca-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function expectChain(caPem: string, serverPem: string) {
  const ca = new X509Certificate(caPem);
  const server = new X509Certificate(serverPem);
  expect(ca.ca).toBe(true);
  expect(server.ca).toBe(false);
  expect(server.checkIssued(ca)).toBe(true);
  expect(server.verify(ca.publicKey)).toBe(true);
  for (const h of BOOTSTRAP_HOSTS) expect(server.checkHost(h)).toBe(h);
  expect(server.checkHost('elsewhere.test')).toBeUndefined();
  expect(server.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
}

/** GET / on an https server holding the test certificate, through the document policy (test host names answered with loopback). */
async function fetchThrough(ca: { serverCertPem: string; serverKeyPem: string }, trust: string | undefined): Promise<number> {
  const server = createServer({ cert: ca.serverCertPem, key: ca.serverKeyPem }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const policy = new AddressPolicy({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] }).forDocuments({ loopback: true });
  const agent = policyAgent(policy, trust ? { ca: trust } : {});
  try {
    const res = await request(`https://${BOOTSTRAP_HOSTS[0]}:${(server.address() as AddressInfo).port}/`, { dispatcher: agent });
    await res.body.text();
    return res.statusCode;
  } finally {
    await agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('bootstrap test CA', () => {
  it('makes an ECDSA CA and a server certificate for the bootstrap host names, written where a receiver is told to look', async () => {
    const dir = tempDir();
    const ca = await testCa(dir, BOOTSTRAP_HOSTS);
    expectChain(ca.caPem, ca.serverCertPem);
    expect(new X509Certificate(ca.caPem).publicKey.asymmetricKeyType).toBe('ec');
    expect(ca.caCertPath).toBe(join(dir, 'certs', 'ca.pem'));
  });

  it('is trusted through the extra CA of policyAgent (a context reused across connections), and refused without it', async () => {
    const ca = await testCa(tempDir(), BOOTSTRAP_HOSTS);
    expect(await fetchThrough(ca, ca.caPem)).toBe(200);
    expect(await fetchThrough(ca, ca.caPem)).toBe(200);
    await expect(fetchThrough(ca, undefined)).rejects.toThrow(/certificate|issuer/i);
  });

  it('issues the server certificate under an RSA CA kept in the directory from an earlier run', async () => {
    const dir = tempDir();
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const keys = {
      publicKey: await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), rsa, true, ['verify']),
      privateKey: await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), rsa, true, ['sign']),
    };
    x509.cryptoProvider.set(webcrypto as never);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=proto-comply TEST-ONLY bootstrap CA',
      notBefore: new Date(Date.now() - 86_400_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: rsa,
      keys: keys as never,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
    });
    mkdirSync(join(dir, 'certs'), { recursive: true });
    mkdirSync(join(dir, 'keys'), { recursive: true });
    writeFileSync(join(dir, 'certs', 'ca.pem'), cert.toString('pem'));
    // An earlier run's key, in the PKCS#1 form node-forge wrote.
    writeFileSync(join(dir, 'keys', 'ca.private.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
    const ca = await testCa(dir, BOOTSTRAP_HOSTS);
    expectChain(ca.caPem, ca.serverCertPem);
    expect(await fetchThrough(ca, ca.caPem)).toBe(200);
  });
});
