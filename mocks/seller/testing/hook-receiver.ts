/** A plain loopback webhook receiver for the mock seller's own tests: records every POST, answers from a per-path script (default 200). */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, any>;
  at: number;
}

export class HookReceiver {
  readonly hits: Hit[] = [];
  readonly scripts = new Map<string, { status: number; www?: string }[]>();
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const path = req.url ?? '/';
        this.hits.push({ path, headers: req.headers, raw, body: JSON.parse(raw.toString()), at: Date.now() });
        const answer = this.scripts.get(path)?.shift() ?? { status: 200 };
        res.writeHead(answer.status, answer.www ? { 'www-authenticate': answer.www } : {}).end('{}');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  /** Waits (bounded) until `path` has at least `n` hits. */
  async waitFor(path: string, n = 1, timeoutMs = 5_000): Promise<Hit[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.at(path);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
