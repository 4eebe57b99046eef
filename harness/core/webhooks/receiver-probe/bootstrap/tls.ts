/**
 * A test certificate authority for the bootstrap sender's https server: `dir/certs/ca.pem` and
 * `dir/keys/ca.private.key` (the layout of the proxy's CA), reused when present, else written;
 * one server certificate for the given host names. Keys come from node:crypto (native, off the
 * event loop); node-forge (through http-mitm-proxy) only assembles and signs the certificates.
 * One CA and one server certificate are made per process and CA: certifications running side by
 * side in one process (the self-tests) do not each spend CPU on key generation.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// @ts-expect-error node-forge ships no types (no @types package is installed): `forge` is any, only pki calls are used
import forge from 'node-forge';
const rsaPair = promisify(generateKeyPair);

export interface TestCa {
  caPem: string;
  caCertPath: string;
  serverCertPem: string;
  serverKeyPem: string;
}

async function rsaKeys(): Promise<{ publicPem: string; privatePem: string }> {
  const { publicKey, privateKey } = await rsaPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return { publicPem: publicKey as unknown as string, privatePem: privateKey as unknown as string };
}

const NAME = [
  { name: 'commonName', value: 'proto-comply TEST-ONLY bootstrap CA' },
  { name: 'organizationName', value: 'proto-comply' },
];

async function makeCa(): Promise<{ certPem: string; keyPem: string }> {
  const keys = await rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 5 * 365 * 86_400_000);
  cert.setSubject(NAME);
  cert.setIssuer(NAME);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privatePem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem };
}

async function makeServerCert(ca: { certPem: string; keyPem: string }, hosts: readonly string[]): Promise<{ certPem: string; keyPem: string }> {
  const keys = await rsaKeys();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: hosts[0] }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hosts.map((h) => ({ type: 2, value: h })) },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem };
}

let processCa: Promise<{ certPem: string; keyPem: string }> | undefined;
const serverCerts = new Map<string, Promise<{ certPem: string; keyPem: string }>>();

export async function testCa(dir: string, hosts: readonly string[]): Promise<TestCa> {
  const caCertPath = join(dir, 'certs', 'ca.pem');
  const caKeyPath = join(dir, 'keys', 'ca.private.key');
  let ca: { certPem: string; keyPem: string };
  if (existsSync(caCertPath) && existsSync(caKeyPath)) ca = { certPem: readFileSync(caCertPath, 'utf8'), keyPem: readFileSync(caKeyPath, 'utf8') };
  else {
    processCa ??= makeCa();
    ca = await processCa;
    mkdirSync(join(dir, 'certs'), { recursive: true });
    mkdirSync(join(dir, 'keys'), { recursive: true, mode: 0o700 });
    writeFileSync(caKeyPath, ca.keyPem, { mode: 0o600 });
    writeFileSync(caCertPath, ca.certPem);
  }
  const memo = `${ca.certPem}\u0000${hosts.join(',')}`;
  let server = serverCerts.get(memo);
  if (!server) serverCerts.set(memo, (server = makeServerCert(ca, hosts)));
  const s = await server;
  return { caPem: ca.certPem, caCertPath, serverCertPem: s.certPem, serverKeyPem: s.keyPem };
}
