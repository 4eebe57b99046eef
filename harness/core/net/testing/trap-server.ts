/**
 * Test-only HTTP servers on a chosen loopback address: a trap that records every TCP connection
 * and request it gets (the proof that nothing was sent to it), and a scripted responder.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestServer {
  host: string;
  port: number;
  /** `http://host:port` (IPv6 in brackets). */
  origin: string;
  /** TCP connections accepted. */
  connections: number;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Listen on host:port (port 0: ephemeral). Answers through `handler`, by default 200 `{"ok":true}`. */
export async function startTestServer(host = '127.0.0.1', port = 0, handler?: Handler): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state: TestServer = {
    host,
    port: 0,
    origin: '',
    connections: 0,
    requests: [],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (handler) handler(req, res, body);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.on('connection', (s: Socket) => {
    state.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://${host.includes(':') ? `[${host}]` : host}:${state.port}`;
  return state;
}

/** A trap: any request it gets is a test failure; `connections` proves not even a socket was opened. */
export function startTrap(host = '127.0.0.1', port = 0): Promise<TestServer> {
  return startTestServer(host, port, (_req, res) => res.writeHead(418).end('trapped'));
}
