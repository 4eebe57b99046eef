/**
 * A test certificate authority for the bootstrap sender's https server (the proxy's CA maker,
 * http-mitm-proxy on node-forge): created in `dir` when absent (certs/ca.pem, keys/ca.private.key),
 * reused when present, and one server certificate for the given host names.
 */
import { CA } from 'http-mitm-proxy/dist/lib/ca.js';

export interface TestCa {
  caPem: string;
  caCertPath: string;
  serverCertPem: string;
  serverKeyPem: string;
}

export async function testCa(dir: string, hosts: readonly string[]): Promise<TestCa> {
  const ca = await new Promise<CA>((resolve, reject) => CA.create(dir, (err: Error | null, made: CA) => (err ? reject(err) : resolve(made))));
  const [serverCertPem, serverKeyPem] = await new Promise<[string, string]>((resolve) =>
    ca.generateServerCertificateKeys([...hosts], (cert: string, key: string) => resolve([cert, key])),
  );
  return { caPem: ca.getPem() as string, caCertPath: ca.getCACertPath(), serverCertPem, serverKeyPem };
}
