/**
 * The OAuth metadata probes against real documents on a loopback server: the RFC 9728 and RFC 8414
 * well-known URLs, the document as the step's reply, resource_equals_agent_url on it, a 404 as the
 * reply's status, no credentials sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { CheckContext } from '../engine/kinds/types.js';
import { baseUrlOf, listen } from '../net/listen.js';
import { authServerMetadataUrl, probe, probeUrl, protectedResourceUrl } from './oauth-probes.js';
import { judgeValidation } from './validations.js';

let server: Server;
let base: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (req.url === '/.well-known/oauth-protected-resource/mcp') return json({ resource: `${base}/mcp`, authorization_servers: [`${base}/tenant`] });
    if (req.url === '/.well-known/oauth-protected-resource/wrong') return json({ resource: base, authorization_servers: [] });
    if (req.url === '/.well-known/oauth-authorization-server/tenant') return json({ issuer: `${base}/tenant`, token_endpoint: `${base}/tenant/token` });
    res.writeHead(404).end();
  });
  base = baseUrlOf(await listen(server, 0, '127.0.0.1'));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ctxFor = (endpoint: string) => ({ transport: { endpoint }, run: { seed: '1' }, notes: [] as string[] }) as unknown as CheckContext;

describe('OAuth metadata probes', () => {
  it('put the well-known segment between the host and the path (RFC 9728 3.1, RFC 8414 3.1)', () => {
    expect(protectedResourceUrl('https://agent.example/mcp')).toBe('https://agent.example/.well-known/oauth-protected-resource/mcp');
    expect(protectedResourceUrl('https://agent.example/')).toBe('https://agent.example/.well-known/oauth-protected-resource');
    expect(authServerMetadataUrl('https://auth.example/tenant/')).toBe('https://auth.example/.well-known/oauth-authorization-server/tenant');
    expect(probeUrl('oauth_auth_server_metadata', 'https://agent.example/mcp', [{ authorization_servers: ['https://auth.example'] }])).toBe(
      'https://auth.example/.well-known/oauth-authorization-server',
    );
    expect(probeUrl('oauth_auth_server_metadata', 'https://agent.example/mcp', [])).toEqual({
      unmet: 'no protected-resource metadata of this storyboard named an authorization server (authorization_servers[0])',
    });
  });

  it('fetch the documents without credentials, and judge the resource against the URL called', async () => {
    const ctx = ctxFor(`${base}/mcp`);
    const prm = await probe(ctx, probeUrl('protected_resource_metadata', `${base}/mcp`, []) as string);
    expect(prm).toMatchObject({ ok: true, httpStatus: 200, payload: { resource: `${base}/mcp` } });
    const resource = { check: 'resource_equals_agent_url', raw: { check: 'resource_equals_agent_url' } };
    expect(judgeValidation(resource, prm as never, { context: new Map(), agentUrl: `${base.toUpperCase().replace('HTTP://', 'http://')}/mcp/` }).outcome).toBe(
      'passed',
    );
    const as = await probe(ctx, probeUrl('oauth_auth_server_metadata', `${base}/mcp`, [(prm as { payload: unknown }).payload]) as string);
    expect(as).toMatchObject({ ok: true, payload: { token_endpoint: `${base}/tenant/token` } });
    expect(seen.every((h) => h.authorization === undefined && h.cookie === undefined)).toBe(true);
  });

  it("fail resource_equals_agent_url on the auth server's origin, and give a 404 as the reply's status", async () => {
    const wrong = await probe(ctxFor(`${base}/wrong`), protectedResourceUrl(`${base}/wrong`));
    const r = judgeValidation({ check: 'resource_equals_agent_url', raw: {} }, wrong as never, { context: new Map(), agentUrl: `${base}/wrong` });
    expect(r).toMatchObject({ outcome: 'failed', message: `the metadata's resource ${base} is not the URL called, ${base}/wrong`, pointer: '/resource' });
    expect(await probe(ctxFor(`${base}/none`), protectedResourceUrl(`${base}/none`))).toEqual({ ok: false, payload: {}, httpStatus: 404 });
  });

  it('refuse plain http off loopback: a gap naming the rule, nothing fetched', async () => {
    const got = await probe(ctxFor(`${base}/mcp`), 'http://auth.invalid/.well-known/oauth-authorization-server');
    expect(got).toMatchObject({ status: 'gap', gap: 'an OAuth metadata host the run may fetch' });
  });
});
