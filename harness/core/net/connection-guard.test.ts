/**
 * The connection cap drops the cheapest connection instead of refusing a newcomer: a server held
 * by slow clients at its cap still answers a well-behaved one, and a request it is working on is
 * never dropped for a newcomer.
 */
import { createServer, get, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardConnections } from './connection-guard.js';
import { baseUrlOf, listen } from './listen.js';

let server: Server | undefined;
const held: Socket[] = [];

afterEach(async () => {
  for (const s of held.splice(0)) s.destroy();
  if (server) await new Promise<void>((r) => server!.close(() => r()));
  server?.closeAllConnections();
  server = undefined;
});

const open = (url: URL, first: string): Promise<Socket> =>
  new Promise((resolve) => {
    const s = connect(Number(url.port), url.hostname, () => {
      if (first) s.write(first);
      resolve(s);
    });
    s.on('error', () => {});
    held.push(s);
  });

const getStatus = (url: string): Promise<number> =>
  new Promise((resolve, reject) => {
    get(url, { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    })
      .once('error', reject)
      .once('timeout', () => reject(new Error('no answer in 5 s')));
  });

const closed = (s: Socket): Promise<boolean> =>
  new Promise((resolve) => {
    if (s.destroyed) return resolve(true);
    s.once('close', () => resolve(true));
    setTimeout(() => resolve(s.destroyed), 1000);
  });

describe('guardConnections', () => {
  it('answers a newcomer while slow clients hold every connection, dropping the oldest slow one', async () => {
    server = createServer((_req, res) => res.end('ok'));
    const guard = guardConnections(server, 4);
    const url = new URL(baseUrlOf(await listen(server, 0, '127.0.0.1')));
    const slow = [];
    for (let i = 0; i < 4; i++) slow.push(await open(url, `GET / HTTP/1.1\r\nHost: x\r\n`));
    await new Promise((r) => setTimeout(r, 50));
    expect(guard.size).toBe(4);
    expect(await getStatus(url.href)).toBe(200);
    expect(await closed(slow[0]!)).toBe(true);
    expect(guard.dropped).toBeGreaterThanOrEqual(1);
  });

  it('never drops a request being worked on: with all of them busy, the newcomer is refused', async () => {
    const release: Array<() => void> = [];
    server = createServer((_req, res) => void release.push(() => res.end('done')));
    guardConnections(server, 2);
    const url = new URL(baseUrlOf(await listen(server, 0, '127.0.0.1')));
    const answers: string[] = [];
    const busy = [];
    for (let i = 0; i < 2; i++) {
      const s = await open(url, `GET / HTTP/1.1\r\nHost: x\r\n\r\n`);
      s.on('data', (d) => answers.push(d.toString()));
      busy.push(s);
    }
    while (release.length < 2) await new Promise((r) => setTimeout(r, 10));
    await expect(getStatus(url.href)).rejects.toThrow();
    for (const r of release) r();
    await new Promise((r) => setTimeout(r, 100));
    expect(answers.filter((a) => a.includes('done'))).toHaveLength(2);
  });

  it('drops idle kept-alive connections before slow ones still sending', async () => {
    server = createServer((_req, res) => res.end('ok'));
    guardConnections(server, 2);
    const url = new URL(baseUrlOf(await listen(server, 0, '127.0.0.1')));
    const slow = await open(url, `GET / HTTP/1.1\r\nHost: x\r\n`);
    const idle = await open(url, `GET / HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise<void>((r) => idle.once('data', () => r()));
    expect(await getStatus(url.href)).toBe(200);
    expect(await closed(idle)).toBe(true);
    expect(slow.destroyed).toBe(false);
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => guardConnections(createServer(), 0)).toThrow(RangeError);
  });
});
