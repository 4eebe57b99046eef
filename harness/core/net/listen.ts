/** Starting the harness's own HTTP servers (mocks, sender identities, capture receivers). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port (0 = ephemeral) and resolves with the bound address; rejects on EADDRINUSE and the like. */
export async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** The base URL of a bound address, with IPv6 in brackets. */
export function baseUrlOf(addr: AddressInfo): string {
  return `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
}

/** A loopback port free right now (for a server another process or library must be told to listen on). */
export async function freeLoopbackPort(): Promise<number> {
  const s = createServer();
  const { port } = await listen(s, 0, '127.0.0.1');
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
