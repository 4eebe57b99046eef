/** Test support: a loopback HTTP forwarder that keeps every request body it passes on (to assert on the bytes a client sent). */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Forwarder {
  baseUrl: string;
  /** Every request body received, as UTF-8 text, in order. */
  bodies: string[];
  close(): Promise<void>;
}

export async function startForwarder(target: string): Promise<Forwarder> {
  const to = new URL(target);
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString('utf8'));
      const up = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
