/**
 * A test certificate authority for the bootstrap sender's https server: `dir/certs/ca.pem` and
 * `dir/keys/ca.private.key` (the layout of the proxy's CA), reused when present, else written;
 * one server certificate for the given host names.
 *
 * New keys are ECDSA P-256 from node:crypto (made in well under a millisecond, where RSA-2048 took
 * 100-200 ms of CPU each, and each TLS handshake then signs with ECDSA instead of RSA); the
 * certificates are assembled with node-forge's ASN.1 encoder (forge's own certificate builder
 * knows RSA keys only) and signed by node:crypto. A CA kept in a directory from an earlier run
 * may hold an RSA key: it still signs, with sha256WithRSAEncryption.
 * One CA and one server certificate are made per process and CA: certifications running side by
 * side in one process (the self-tests) share them.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// @ts-expect-error node-forge ships no types (no @types package is installed): only its ASN.1 encoder is used
import asn1 from 'node-forge/lib/asn1.js';

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

// biome-ignore lint/suspicious/noExplicitAny: forge's ASN.1 nodes are untyped
type Node = any;
const { Class, Type } = asn1 as { Class: Record<string, number>; Type: Record<string, number> };
const seq = (items: Node[]): Node => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const oid = (dotted: string): Node => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(dotted).getBytes());
const bin = (b: Buffer): string => b.toString('binary');
const der = (node: Node): Buffer => Buffer.from(asn1.toDer(node).getBytes(), 'binary');

const OID = {
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
};

const CA_NAME: Array<[string, string]> = [
  [OID.commonName, 'proto-comply TEST-ONLY bootstrap CA'],
  [OID.organizationName, 'proto-comply'],
];

function name(attrs: Array<[string, string]>): Node {
  return seq(
    attrs.map(([type, value]) =>
      asn1.create(Class.UNIVERSAL, Type.SET, true, [seq([oid(type), asn1.create(Class.UNIVERSAL, Type.UTF8, false, bin(Buffer.from(value, 'utf8')))])]),
    ),
  );
}

function extension(id: string, critical: boolean, value: Node): Node {
  return seq([
    oid(id),
    ...(critical ? [asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, '\xff')] : []),
    asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bin(der(value))),
  ]);
}

/** keyUsage bits (RFC 5280 4.2.1.3) as a DER named BIT STRING: trailing zero bits dropped. */
function keyUsage(bits: number[]): Node {
  const byte = bits.reduce((b, i) => b | (0x80 >> i), 0);
  const unused = Math.min(7, 7 - Math.max(...bits));
  return asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, String.fromCharCode(unused, byte));
}

/** The key identifier of RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyId(spki: Buffer): string {
  const bits = asn1.fromDer(bin(spki)).value[1].value as string; // the BIT STRING: unused-bits byte, then the key
  return bin(
    createHash('sha1')
      .update(Buffer.from(bits.slice(1), 'binary'))
      .digest(),
  );
}

interface CertSpec {
  subject: Array<[string, string]>;
  /** The issuer's Name, as encoded in its own certificate (or to be). */
  issuer: Node;
  subjectKey: KeyObject;
  issuerKey: KeyObject;
  issuerPublic: KeyObject;
  days: number;
  ca: boolean;
  hosts?: readonly string[];
}

/** A v3 certificate for `subjectKey`, signed by `issuerKey` (ECDSA P-256 or RSA, SHA-256), as PEM. */
function certificate(s: CertSpec): string {
  const spki = s.subjectKey.export({ type: 'spki', format: 'der' });
  const rsa = s.issuerKey.asymmetricKeyType === 'rsa';
  const algorithm = seq(rsa ? [oid(OID.sha256WithRsa), asn1.create(Class.UNIVERSAL, Type.NULL, false, '')] : [oid(OID.ecdsaWithSha256)]);
  const time = (d: Date) => asn1.create(Class.UNIVERSAL, Type.UTCTIME, false, asn1.dateToUtcTime(d));
  const extensions = [
    extension(OID.basicConstraints, true, seq(s.ca ? [asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, '\xff')] : [])),
    // CA: keyCertSign (5), cRLSign (6); server: digitalSignature (0).
    extension(OID.keyUsage, true, keyUsage(s.ca ? [5, 6] : [0])),
    ...(s.ca ? [] : [extension(OID.extKeyUsage, false, seq([oid(OID.serverAuth)]))]),
    ...(s.hosts ? [extension(OID.subjectAltName, false, seq(s.hosts.map((h) => asn1.create(Class.CONTEXT_SPECIFIC, 2, false, h))))] : []),
    extension(OID.subjectKeyIdentifier, false, asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, keyId(spki))),
    extension(
      OID.authorityKeyIdentifier,
      false,
      seq([asn1.create(Class.CONTEXT_SPECIFIC, 0, false, keyId(s.issuerPublic.export({ type: 'spki', format: 'der' })))]),
    ),
  ];
  const now = Date.now();
  const tbs = seq([
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(Class.UNIVERSAL, Type.INTEGER, false, '\x02')]), // v3
    asn1.create(Class.UNIVERSAL, Type.INTEGER, false, `\x01${bin(randomBytes(8))}`), // positive
    algorithm,
    s.issuer,
    seq([time(new Date(now - 86_400_000)), time(new Date(now + s.days * 86_400_000))]),
    name(s.subject),
    asn1.fromDer(bin(spki)),
    asn1.create(Class.CONTEXT_SPECIFIC, 3, true, [seq(extensions)]),
  ]);
  const tbsDer = der(tbs);
  const signature = sign('sha256', tbsDer, s.issuerKey);
  const cert = der(seq([asn1.fromDer(bin(tbsDer)), algorithm, asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, `\x00${bin(signature)}`)]));
  return `-----BEGIN CERTIFICATE-----\n${cert
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')
    .trimEnd()}\n-----END CERTIFICATE-----\n`;
}

/** The subject Name of a certificate as it encodes it (a CA kept from an earlier run names itself its own way). */
function subjectOf(cert: X509Certificate): Node {
  const tbs = asn1.fromDer(bin(cert.raw)).value[0].value as Node[];
  // version [0] (v3), serialNumber, signature, issuer, validity, subject
  return tbs[tbs[0].tagClass === Class.CONTEXT_SPECIFIC ? 5 : 4];
}

function ecKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

function makeCa(): Pair {
  const key = ecKey();
  const certPem = certificate({
    subject: CA_NAME,
    issuer: name(CA_NAME),
    subjectKey: createPublicKey(key),
    issuerKey: key,
    issuerPublic: createPublicKey(key),
    days: 5 * 365,
    ca: true,
  });
  return { certPem, keyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string };
}

function makeServerCert(ca: Pair, hosts: readonly string[]): Pair {
  const key = ecKey();
  const caCert = new X509Certificate(ca.certPem);
  const certPem = certificate({
    subject: [[OID.commonName, hosts[0]!]],
    issuer: subjectOf(caCert),
    subjectKey: createPublicKey(key),
    issuerKey: createPrivateKey(ca.keyPem),
    issuerPublic: caCert.publicKey,
    days: 365,
    ca: false,
    hosts,
  });
  return { certPem, keyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string };
}

let processCa: Pair | undefined;
const serverCerts = new Map<string, Pair>();

export async function testCa(dir: string, hosts: readonly string[]): Promise<TestCa> {
  const caCertPath = join(dir, 'certs', 'ca.pem');
  const caKeyPath = join(dir, 'keys', 'ca.private.key');
  let ca: Pair;
  if (existsSync(caCertPath) && existsSync(caKeyPath)) ca = { certPem: readFileSync(caCertPath, 'utf8'), keyPem: readFileSync(caKeyPath, 'utf8') };
  else {
    processCa ??= makeCa();
    ca = processCa;
    mkdirSync(join(dir, 'certs'), { recursive: true });
    mkdirSync(join(dir, 'keys'), { recursive: true, mode: 0o700 });
    writeFileSync(caKeyPath, ca.keyPem, { mode: 0o600 });
    writeFileSync(caCertPath, ca.certPem);
  }
  const memo = `${ca.certPem}\u0000${hosts.join(',')}`;
  let server = serverCerts.get(memo);
  if (!server) serverCerts.set(memo, (server = makeServerCert(ca, hosts)));
  return { caPem: ca.certPem, caCertPath, serverCertPem: server.certPem, serverKeyPem: server.keyPem };
}
