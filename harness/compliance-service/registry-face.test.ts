/**
 * Our registry service under the registry face suite, as `proto-comply run --registry` certifies
 * any registry: the interface spec's registration body (`agent_url`, `capabilities`, `channels`),
 * search by declared capability and channel, organizations behind a key; and the Agent Compliance
 * operations (digest 6.3, the `registry-compliance` suite) of an agent it lists. The real CLI is
 * spawned against the real service on loopback and must pass both suites (exit 0). The service
 * signs badge tokens, as a deployment issuing badges does: without a key file its JWKS is 503.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberKeyOf } from './http/callers.js';
import { startRegistryService, type RunningRegistryService } from './service.js';
import { SqliteRegistryStore } from './sqlite-store.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const ALICE = 'registry-face-alice-key-0123';
const OPERATOR = 'registry-face-operator-key-01';

let dir: string;
let store: SqliteRegistryStore;
let svc: RunningRegistryService;

const post = (path: string, body: unknown, key?: string) =>
  fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registry-face-'));
  store = new SqliteRegistryStore(join(dir, 'registry.sqlite'));
  // No probing: the registered agents are names nobody serves.
  svc = await startRegistryService({
    store,
    apiKeys: [OPERATOR],
    memberKeys: [memberKeyOf(`alice=${ALICE}`)],
    workers: 0,
    perHost: 1,
    badgeKeysPath: join(dir, 'badge-keys.json'),
    settings: { budgetS: 10, denyPrivate: true, allowHosts: [] },
  });
});
afterAll(async () => {
  await svc?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('our registry service under the registry face suite', () => {
  it("takes the interface spec's registration body and finds the agent by its declared capability and channel", async () => {
    const r = await post(
      '/api/me/agents',
      { agent_url: 'https://seller.example/mcp', capabilities: ['get_products', 'create_media_buy'], channels: ['display', 'ctv'] },
      ALICE,
    );
    expect(r.status).toBe(201);
    expect(await r.json()).toMatchObject({
      agent_url: 'https://seller.example/mcp',
      capabilities: ['get_products', 'create_media_buy'],
      channels: ['display', 'ctv'],
      owner: 'alice',
    });
    const byCap = (await (await fetch(`${svc.url}/api/registry/agents?capability=create_media_buy`)).json()) as { count: number };
    const byChannel = (await (await fetch(`${svc.url}/api/registry/agents?channel=ctv`)).json()) as { count: number };
    const none = (await (await fetch(`${svc.url}/api/registry/agents?channel=audio`)).json()) as { count: number };
    expect([byCap.count, byChannel.count, none.count]).toEqual([1, 1, 0]);
    expect((await post('/api/me/agents', { url: 'https://a.example/mcp', agent_url: 'https://b.example/mcp' }, ALICE)).status).toBe(400);
    expect((await post('/api/me/agents', { agent_url: 'https://c.example/mcp', capabilities: 'get_products' }, ALICE)).status).toBe(400);
  });

  it('keeps organizations behind a key: 401 without, 201 for a member, 400 for the operator', async () => {
    expect((await post('/api/organizations', { name: 'Acme' })).status).toBe(401);
    const made = await post('/api/organizations', { name: 'Acme Media', company_type: 'publisher' }, ALICE);
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ member: 'alice', name: 'Acme Media', company_type: 'publisher', revenue_tier: null });
    expect((await post('/api/organizations', { name: 'Ops' }, OPERATOR)).status).toBe(400);
    expect((await post('/api/organizations', { name: '' }, ALICE)).status).toBe(400);
  });

  it('passes `proto-comply run --registry` (exit 0)', async () => {
    const out = join(dir, 'report');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'run', '--registry', svc.url, '--api-key', ALICE, '--out', out],
        { encoding: 'utf8', timeout: 120_000 },
        (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout, stderr }),
      ),
    );
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/Overall: PASSING/);
    expect(r.stdout).toMatch(/^registry\s+passing \(12 pass\)$/m);
    expect(r.stdout).toMatch(/^registry-compliance\s+passing \(17 pass\)$/m);
    expect(`${r.stdout}${r.stderr}`).not.toContain(ALICE);
  }, 150_000);
});
