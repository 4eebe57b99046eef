/**
 * A test certificate authority for the bootstrap sender's https server: `dir/certs/ca.pem` and
 * `dir/keys/ca.private.key` (the layout of the proxy's CA), reused when present, else written;
 * one server certificate for the given host names.
 *
 * New keys are ECDSA P-256 (made in well under a millisecond, where RSA-2048 took 100-200 ms of
 * CPU each, and each TLS handshake then signs with ECDSA instead of RSA); the certificates are
 * built and signed by @peculiar/x509 over node's WebCrypto. A CA kept in a directory from an
 * earlier run may hold an RSA key: it still signs, with sha256WithRSAEncryption.
 * One CA and one server certificate are made per process and CA: certifications running side by
 * side in one process (the self-tests) share them.
 */
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

// Node's WebCrypto is the standard one; the project compiles without the DOM library's names for it.
x509.cryptoProvider.set(webcrypto as never);
const { subtle } = webcrypto;
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface TestCa {
  caPem: string;
  caCertPath: string;
  serverCertPem: string;
  serverKeyPem: string;
}

interface Pair {
  certPem: string;
  keyPem: string;
}

const EC: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const RSA: webcrypto.RsaHashedImportParams = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const CA_NAME = 'CN=proto-comply TEST-ONLY bootstrap CA, O=proto-comply';
const DAY = 86_400_000;

/** A positive serial number, hex. */
const serial = (): string => `01${randomBytes(8).toString('hex')}`;

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')
    .trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function ecPair(): Promise<CryptoKeyPair> {
  return subtle.generateKey(EC, true, ['sign', 'verify']);
}

async function makeCa(): Promise<Pair> {
  const keys = await ecPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: CA_NAME,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 5 * 365 * DAY),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/** The CA's private key for signing, whatever PEM form an earlier run left (PKCS#1 RSA, PKCS#8 EC or RSA). */
async function signingKey(pem: string): Promise<{ key: CryptoKey; algorithm: webcrypto.Algorithm }> {
  const object = createPrivateKey(pem);
  const pkcs8 = object.export({ type: 'pkcs8', format: 'der' });
  const algorithm = object.asymmetricKeyType === 'rsa' ? RSA : EC;
  return { key: await subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']), algorithm };
}

async function makeServerCert(ca: Pair, hosts: readonly string[]): Promise<Pair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const { key, algorithm } = await signingKey(ca.keyPem);
  const keys = await ecPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    signingAlgorithm: algorithm,
    publicKey: keys.publicKey,
    signingKey: key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: 'dns' as const, value }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(await caCert.publicKey.export()),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

let processCa: Promise<Pair> | undefined;
const serverCerts = new Map<string, Promise<Pair>>();

export async function testCa(dir: string, hosts: readonly string[]): Promise<TestCa> {
  const caCertPath = join(dir, 'certs', 'ca.pem');
  const caKeyPath = join(dir, 'keys', 'ca.private.key');
  let ca: Pair;
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
