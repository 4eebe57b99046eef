/**
 * Who may do what on the registry API, over a real loopback server: operator and member keys,
 * a member registering and removing only their own agents, an unknown key refused on writes but
 * only meaning the public view on public reads, and the router's 404 / 405 with `Allow`.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrlOf, listen } from '../../core/net/listen.js';
import { createRegistryHandler } from '../api.js';
import { SqliteRegistryStore } from '../sqlite-store.js';
import { memberKeyOf } from './callers.js';

const OPERATOR = 'operator-key-0123456789';
const ALICE = 'alice-key-0123456789abc';
const BOB = 'bob-key-0123456789abcdef';

let server: Server;
let base: string;
let store: SqliteRegistryStore;

const call = (path: string, key?: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
const register = (url: string, key?: string, extra: Record<string, unknown> = {}) =>
  call('/api/me/agents', key, { method: 'POST', body: JSON.stringify({ url, ...extra }) });
const remove = (url: string, key?: string) => call(`/api/me/agents/${encodeURIComponent(url)}`, key, { method: 'DELETE' });

beforeAll(async () => {
  store = new SqliteRegistryStore(':memory:');
  server = createServer(createRegistryHandler({ store, apiKeys: [OPERATOR], memberKeys: [memberKeyOf(`alice=${ALICE}`), memberKeyOf(`bob=${BOB}`)] }));
  base = baseUrlOf(await listen(server, 0, '127.0.0.1'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await store.close();
});

describe('registry API callers', () => {
  it('lets a member register their own agent (owner set to them) and refuses registering for another owner', async () => {
    const r = await register('https://alice.example/mcp', ALICE);
    expect(r.status).toBe(201);
    expect(((await r.json()) as { owner?: string }).owner).toBe('alice');
    const other = await register('https://alice2.example/mcp', ALICE, { owner: 'bob' });
    expect(other.status).toBe(403);
  });

  it('lets only the owner or the operator remove an agent', async () => {
    await register('https://alice3.example/mcp', ALICE);
    expect((await remove('https://alice3.example/mcp')).status).toBe(401);
    expect((await remove('https://alice3.example/mcp', BOB)).status).toBe(403);
    expect((await remove('https://alice3.example/mcp', ALICE)).status).toBe(204);
    await register('https://bob.example/mcp', BOB);
    expect((await remove('https://bob.example/mcp', OPERATOR)).status).toBe(204);
  });

  it('refuses an unknown key on a write, and gives the public view on a public read', async () => {
    expect((await register('https://x.example/mcp', 'not-a-key-0123456789')).status).toBe(401);
    expect((await call('/api/registry/agents', 'not-a-key-0123456789')).status).toBe(200);
  });

  it('answers 404 for an unknown path and 405 with Allow for a known path and another method', async () => {
    expect((await call('/api/nope')).status).toBe(404);
    const r = await call('/api/registry/stats', undefined, { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(((await r.json()) as { error: string }).error).toMatch(/DELETE is not allowed/);
  });

  it('refuses malformed member keys', () => {
    expect(() => memberKeyOf('alice')).toThrow(/NAME=KEY/);
    expect(() => memberKeyOf('alice=short')).toThrow(/16 characters/);
    expect(() => memberKeyOf('a b=0123456789abcdef')).toThrow(/NAME=KEY/);
  });
});
