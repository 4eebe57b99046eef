/** One exchange through undici's dispatch handler API, against raw node:http servers on loopback. */
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startExchange, type ExchangeSpec } from './exchange.js';
import { closedPort, startRawServer, type RawServer } from './testing/raw-server.js';

const servers: RawServer[] = [];
const agents: Agent[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) await a.destroy();
  for (const s of servers.splice(0)) await s.close();
});

async function server(handler: Parameters<typeof startRawServer>[0]): Promise<RawServer> {
  const s = await startRawServer(handler);
  servers.push(s);
  return s;
}

function agent(): Agent {
  const a = new Agent();
  agents.push(a);
  return a;
}

const spec = (url: string, extra: Partial<ExchangeSpec> = {}): ExchangeSpec => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{}'),
  cap: 1024,
  drainMs: 1_000,
  ...extra,
});

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

describe('startExchange', () => {
  it('reads a body to its end, headers lower-cased and repeated fields joined', async () => {
    const s = await server((_req, res) => {
      res.setHeader('X-Twice', ['a', 'b']);
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.write('{"a":');
      res.end('1}');
    });
    const out = await startExchange(agent(), spec(`${s.url}/mcp?x=1#frag`)).done;
    expect(out).toMatchObject({ end: 'complete', status: 201, size: 7 });
    expect(text(out.chunks)).toBe('{"a":1}');
    expect(out.headers?.['x-twice']).toBe('a, b');
    // The path and query are sent, the fragment is not.
    expect(s.requests[0]?.url).toBe('/mcp?x=1');
  });

  it('skips an informational response and reads the final one', async () => {
    const s = await server((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const out = await startExchange(agent(), spec(s.url)).done;
    expect(out).toMatchObject({ end: 'complete', status: 200 });
  });

  it('keeps exactly the cap of an oversized body', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(Buffer.alloc(600, 'a'));
      res.end(Buffer.alloc(600, 'b'));
    });
    const out = await startExchange(agent(), spec(s.url)).done;
    expect(out.end).toBe('too_large');
    expect(out.size).toBe(1024);
    expect(text(out.chunks)).toBe(`${'a'.repeat(600)}${'b'.repeat(424)}`);
  });

  it('reads nothing of a redirect or of a declared length above the cap', async () => {
    const s = await server((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/elsewhere' });
        res.end('moved');
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 5000 });
        res.end(Buffer.alloc(5000, 'x'));
      }
    });
    const a = agent();
    const moved = await startExchange(a, spec(`${s.url}/moved`)).done;
    expect(moved).toMatchObject({ end: 'redirect', status: 302, size: 0 });
    const big = await startExchange(a, spec(`${s.url}/big`)).done;
    expect(big).toMatchObject({ end: 'declared_too_large', status: 200, size: 0 });
  });

  it('answers once the sink stops, then drops a stream that stays open after the drain time', async () => {
    let closed!: () => void;
    const socketClosed = new Promise<void>((resolve) => (closed = resolve));
    const s = await server((_req, res) => {
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: answer\n\n');
      // never ended
    });
    const t0 = performance.now();
    const out = await startExchange(agent(), spec(s.url, { drainMs: 100, consumer: () => (chunk) => chunk.toString().includes('answer') })).done;
    expect(out.end).toBe('stopped');
    expect(text(out.chunks)).toBe('data: answer\n\n');
    await socketClosed;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
  });

  it('reuses the connection when the server ends the stream promptly after the answer', async () => {
    const ports = new Set<number>();
    const s = await server((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: answer\n\n');
      setTimeout(() => res.end('data: late\n\n'), 20);
    });
    const a = agent();
    const sink = () => (chunk: Buffer) => chunk.toString().includes('answer');
    expect((await startExchange(a, spec(s.url, { consumer: sink })).done).end).toBe('stopped');
    await new Promise((r) => setTimeout(r, 100));
    expect((await startExchange(a, spec(s.url, { consumer: sink })).done).end).toBe('stopped');
    expect(ports.size).toBe(1);
  });

  it('aborts before the request was started and while the body is read', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      // never ended
    });
    const a = agent();
    const early = startExchange(a, spec(s.url));
    early.abort(new Error('gave up'));
    expect(await early.done).toMatchObject({ end: 'error', error: { message: 'gave up' } });

    const late = startExchange(a, spec(s.url));
    setTimeout(() => late.abort(new Error('timed out')), 100);
    const out = await late.done;
    expect(out).toMatchObject({ end: 'error', status: 200, error: { message: 'timed out' } });
    expect(text(out.chunks)).toBe('{"partial":');
  });

  it('reports a refused connection as an error without a status', async () => {
    const out = await startExchange(agent(), spec(`http://127.0.0.1:${await closedPort()}/`)).done;
    expect(out.end).toBe('error');
    expect(out.status).toBeUndefined();
  });
});
