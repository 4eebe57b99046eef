/**
 * The mock buyer's admin API when it is exposed: a bearer token is required (given, or generated
 * and printed), unauthenticated calls get 401 and change nothing; the endpoint count is bounded.
 * Everything binds 127.0.0.1: exposure through a proxy (`publicBaseUrl`) stands for a public bind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { mockBuyerCommand } from './cli.js';
import { adminApiExposed, startMockBuyer, type MockBuyerOptions, type RunningMockBuyer } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'buyer-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const options = (more: Partial<MockBuyerOptions> = {}): MockBuyerOptions => ({ dbPath: join(dir, `b${n++}.sqlite`), trust: { senders: [] }, ...more });

async function call(buyer: RunningMockBuyer, method: 'GET' | 'POST', path: string, token?: string, body?: unknown) {
  const res = await request(`${buyer.baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as Record<string, unknown> };
}

describe('mock buyer admin API', () => {
  it('is exposed when bound beyond loopback or published through a non-loopback URL', () => {
    expect(adminApiExposed({})).toBe(false);
    expect(adminApiExposed({ host: '127.0.0.1' })).toBe(false);
    expect(adminApiExposed({ host: '::1' })).toBe(false);
    expect(adminApiExposed({ host: 'localhost' })).toBe(false);
    expect(adminApiExposed({ host: '127.0.0.1', publicBaseUrl: 'http://127.0.0.1:9000' })).toBe(false);
    expect(adminApiExposed({ host: '0.0.0.0' })).toBe(true);
    expect(adminApiExposed({ host: '::' })).toBe(true);
    expect(adminApiExposed({ host: '192.168.1.5' })).toBe(true);
    expect(adminApiExposed({ host: 'buyer.internal' })).toBe(true);
    expect(adminApiExposed({ host: '127.0.0.1', publicBaseUrl: 'https://buyer.example.com' })).toBe(true);
  });

  it('exposed without a token: generates one; calls without it get 401 and register nothing', async () => {
    const buyer = await startMockBuyer(options({ publicBaseUrl: 'https://buyer.example.com' }));
    try {
      expect(buyer.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      for (const [method, path] of [
        ['GET', '/_admin/state'],
        ['GET', '/_admin/health'],
        ['GET', '/_admin/endpoints'],
        ['POST', '/_admin/endpoints'],
      ] as const) {
        const r = await call(buyer, method, path, undefined, method === 'POST' ? { id: 'sneaky' } : undefined);
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.headers['www-authenticate']).toBe('Bearer');
      }
      expect((await call(buyer, 'GET', '/_admin/state', 'wrong-token-123')).status).toBe(401);
      const listed = await call(buyer, 'GET', '/_admin/endpoints', buyer.adminToken);
      expect(listed.status).toBe(200);
      expect((listed.body.endpoints as { id: string }[]).map((e) => e.id)).toEqual(['default']);
    } finally {
      await buyer.close();
    }
  });

  it('a given token is used (not replaced); on plain loopback the API stays open', async () => {
    const given = await startMockBuyer(options({ adminToken: 'admin-token-given-0123456789' }));
    const open = await startMockBuyer(options());
    try {
      expect(given.adminToken).toBe('admin-token-given-0123456789');
      expect((await call(given, 'GET', '/_admin/health')).status).toBe(401);
      expect((await call(given, 'GET', '/_admin/health', 'admin-token-given-0123456789')).status).toBe(200);
      expect(open.adminToken).toBeUndefined();
      expect((await call(open, 'GET', '/_admin/health')).status).toBe(200);
    } finally {
      await given.close();
      await open.close();
    }
  });

  it('bounds the endpoints: one more is refused with 409, replacing one by id still works', async () => {
    const buyer = await startMockBuyer(options({ maxEndpoints: 2 }));
    try {
      expect((await call(buyer, 'POST', '/_admin/endpoints', undefined, { id: 'second' })).status).toBe(201);
      const refused = await call(buyer, 'POST', '/_admin/endpoints', undefined, { id: 'third' });
      expect(refused).toMatchObject({ status: 409, body: { error: 'endpoint_limit' } });
      expect(String(refused.body.message)).toMatch(/holds 2 endpoints already/);
      expect((await call(buyer, 'POST', '/_admin/endpoints', undefined, { id: 'second', path: '/webhooks/moved' })).status).toBe(201);
      expect(buyer.endpoints()).toHaveLength(2);
    } finally {
      await buyer.close();
    }
  });

  it('the command prints the generated token', async () => {
    const out: string[] = [];
    const stop = new AbortController();
    const done = mockBuyerCommand(['--db', join(dir, 'cli.sqlite'), '--public-url', 'https://buyer.example.com'], {
      stdout: (t) => {
        out.push(t);
        if (t.startsWith('admin-token')) stop.abort();
      },
      stderr: () => {},
      stop: stop.signal,
    });
    expect(await done).toBe(0);
    expect(out.join('')).toMatch(/^admin-token [A-Za-z0-9_-]{32}$/m);
  });
});
