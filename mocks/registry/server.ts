/**
 * The mock registry's REST face (interface spec 4.1, 5): public statistics and agent search,
 * registration and organization creation behind an API key (`Authorization: Bearer <key>`: the
 * spec does not show the header, so the mock takes the bearer form), JSON errors
 * `{error: {code, message}}`, CORS for the public JSON API, a body cap; the Agent Compliance
 * operations of digest 6.3 (compliance-ops.ts); and the discovery files of its test domains
 * (discovery.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createComplianceOperations } from './compliance-ops.js';
import { type DiscoveryFiles, WELL_KNOWN } from './discovery.js';
import { HttpError } from './http-error.js';
import type { MockRegistryStore, RegistryAgent } from './store.js';
import { CHANNELS } from './vocabulary.js';

/** Largest request body read (registration and organization bodies are small). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface RegistryHandlerOptions {
  store: MockRegistryStore;
  discovery: DiscoveryFiles;
  faults: ReadonlySet<string>;
  capabilities: ReadonlySet<string>;
  now?: () => number;
}

const CHANNEL_SET: ReadonlySet<string> = new Set(CHANNELS);

export function createMockRegistryHandler(o: RegistryHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const now = o.now ?? Date.now;
  const cors = !o.faults.has('no-cors');

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
    const text = type.endsWith('json') ? JSON.stringify(body) : String(body);
    const headers: Record<string, string> = { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' };
    if (cors) headers['access-control-allow-origin'] = '*';
    res.writeHead(status, headers).end(text);
  };

  /** The caller's API key: undefined without credentials; throws 401 for a key the registry does not know. */
  const apiKey = (req: IncomingMessage, required: boolean, skip: boolean): string | undefined => {
    const auth = req.headers.authorization;
    const m = auth === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) {
      if (required && !skip) throw new HttpError(401, 'unauthorized', 'this operation needs an organization API key (Authorization: Bearer <key>)');
      return undefined;
    }
    if (o.store.keyOrg(m[1]!) === undefined) {
      if (skip || o.faults.has('wrong-key-accepted')) return undefined;
      throw new HttpError(401, 'unauthorized', 'unknown API key');
    }
    return m[1]!;
  };

  const readJson = async (req: IncomingMessage, oversized500: boolean): Promise<Record<string, unknown>> => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () =>
      oversized500 ? new HttpError(500, 'internal_error', 'internal error') : new HttpError(413, 'body_too_large', `the body is above ${MAX_BODY_BYTES} bytes`);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      req.resume();
      throw tooLarge();
    }
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        req.resume();
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new HttpError(400, 'invalid_json', 'the body is not JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'invalid_body', 'the body must be a JSON object');
    return body as Record<string, unknown>;
  };

  const names = (value: unknown, field: string, known: ReadonlySet<string>): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new HttpError(400, 'invalid_body', `${field} must be an array of strings`);
    const unknown = value.filter((v) => !known.has(v));
    if (unknown.length) throw new HttpError(400, `unknown_${field.replace(/s$/, '')}`, `unknown ${field}: ${unknown.slice(0, 5).join(', ')}`);
    return [...new Set(value as string[])];
  };

  const agentUrl = (value: unknown, bad500: boolean): URL => {
    let u: URL | undefined;
    try {
      u = typeof value === 'string' ? new URL(value) : undefined;
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) {
      if (bad500) throw new HttpError(500, 'internal_error', 'internal error');
      throw new HttpError(400, 'invalid_agent_url', 'agent_url must be an http(s) URL without credentials');
    }
    return u;
  };

  const entry = (a: RegistryAgent): Record<string, unknown> => {
    if (!o.faults.has('search-missing-fields')) return { ...a };
    const { channels: _dropped, ...rest } = a;
    return rest;
  };

  const compliance = createComplianceOperations({ store: o.store, faults: o.faults, now, send, apiKey, readJson });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://registry.invalid');
    const method = req.method ?? 'GET';
    const path = url.pathname;

    const file = /^\/domains\/([^/]+)(\/\.well-known\/[a-z]+\.json)$/.exec(path);
    if (file && method === 'GET') {
      const body = o.discovery.file(decodeURIComponent(file[1]!), file[2]!);
      if (!body) throw new HttpError(404, 'not_found', `no ${file[2]} for ${decodeURIComponent(file[1]!)}`);
      return send(res, 200, body, file[2] === WELL_KNOWN.jwks ? 'application/jwk-set+json' : 'application/json');
    }
    if (!path.startsWith('/api/')) throw new HttpError(404, 'not_found', `no route ${path}`);
    if (method === 'OPTIONS') {
      const headers: Record<string, string> = {};
      if (cors) {
        headers['access-control-allow-origin'] = '*';
        headers['access-control-allow-methods'] = 'GET, POST, PUT, OPTIONS';
        headers['access-control-allow-headers'] = 'authorization, content-type';
        headers['access-control-max-age'] = '600';
      }
      res.writeHead(204, headers).end();
      return;
    }
    if (path === '/api/registry/stats' && method === 'GET') {
      if (o.faults.has('stats-behind-auth')) apiKey(req, true, false);
      const counts = o.store.counts();
      const byCapability: Record<string, number> = {};
      for (const a of o.store.agents()) for (const c of a.capabilities) byCapability[c] = (byCapability[c] ?? 0) + 1;
      const stats = { agents: counts.agents, organizations: counts.organizations, capabilities: byCapability };
      return o.faults.has('stats-not-json') ? send(res, 200, JSON.stringify(stats), 'text/plain') : send(res, 200, stats);
    }
    if (path === '/api/registry/agents' && method === 'GET') {
      const capability = url.searchParams.get('capability');
      const channel = url.searchParams.get('channel');
      if (capability !== null && !o.capabilities.has(capability)) {
        if (o.faults.has('unknown-capability-500')) throw new HttpError(500, 'internal_error', 'internal error');
        throw new HttpError(400, 'unknown_capability', `unknown capability ${JSON.stringify(capability.slice(0, 100))}: a task name`);
      }
      if (channel !== null && !CHANNEL_SET.has(channel))
        throw new HttpError(400, 'unknown_channel', `unknown channel ${JSON.stringify(channel.slice(0, 100))}`);
      const agents = o.store
        .agents()
        .filter((a) => capability === null || o.faults.has('capability-filter-ignored') || a.capabilities.includes(capability))
        .filter((a) => channel === null || o.faults.has('channel-filter-ignored') || a.channels.includes(channel));
      return send(res, 200, { agents: agents.map(entry) });
    }
    if (path === '/api/me/agents' && method === 'POST') {
      const key = apiKey(req, true, o.faults.has('registration-without-auth'));
      const body = await readJson(req, o.faults.has('oversized-body-500'));
      const u = agentUrl(body.agent_url, o.faults.has('bad-url-500'));
      const agent: RegistryAgent = {
        domain: u.hostname,
        agent_url: u.href,
        capabilities: names(body.capabilities, 'capabilities', o.capabilities),
        channels: names(body.channels, 'channels', CHANNEL_SET),
      };
      const t = now();
      const outcome = o.store.putAgent(agent, o.store.orgFor(key, t), t, !o.faults.has('registered-not-findable'));
      return send(res, outcome === 'created' ? 201 : 200, { agent });
    }
    if (path === '/api/organizations' && method === 'POST') {
      const key = apiKey(req, true, o.faults.has('organizations-without-auth'));
      const body = await readJson(req, false);
      if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 200)
        throw new HttpError(400, 'invalid_body', 'name must be a string of 1 to 200 characters');
      for (const f of ['company_type', 'revenue_tier'] as const)
        if (body[f] !== undefined && typeof body[f] !== 'string') throw new HttpError(400, 'invalid_body', `${f} must be a string`);
      const org = o.store.createOrganization(
        key,
        {
          name: body.name,
          ...(body.company_type ? { company_type: body.company_type as string } : {}),
          ...(body.revenue_tier ? { revenue_tier: body.revenue_tier as string } : {}),
        },
        now(),
      );
      return send(res, 201, { organization: org });
    }
    if (await compliance(req, res, url, method)) return;
    const known = ['/api/registry/stats', '/api/registry/agents', '/api/me/agents', '/api/organizations'].includes(path);
    throw new HttpError(known ? 405 : 404, known ? 'method_not_allowed' : 'not_found', `${method} ${path} is not served`);
  };

  return (req, res) => {
    route(req, res).catch((e: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (e instanceof HttpError) return send(res, e.status, { error: { code: e.code, message: e.message }, ...e.extra });
      send(res, 500, { error: { code: 'internal_error', message: 'internal error' } });
    });
  };
}
