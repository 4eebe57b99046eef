/**
 * `oauth_metadata_graph` on the harness's own vectors (testing/oauth-graph-vectors.ts), served by
 * two loopback servers (the agent's origin and another): each graph that holds passes, each broken
 * one fails with its diagnostic code and pointer, a local refusal for a local agent is a gap; no
 * request carries a credential, and no URL secret reaches any output. Then the rules alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { baseUrlOf, listen } from '../net/listen.js';
import { GRAPH_CODES, resourceKey, shownText, shownUrl } from './oauth-graph-rules.js';
import { safeGraphFetch, type GraphFetch } from './oauth-graph-fetch.js';
import { walkOAuthGraph } from './oauth-graph-walk.js';
import { GRAPH_EXPECTED } from './oauth-metadata-graph.js';
import { judgeValidation } from './validations.js';
import { GRAPH_VECTORS, type GraphVector, type VectorReply } from './testing/oauth-graph-vectors.js';

const servers: Server[] = [];
const origins: Record<'A' | 'B', string> = { A: '', B: '' };
let routes: Record<string, VectorReply> = {};
const requested: { at: string; headers: IncomingHttpHeaders }[] = [];

const fill = (v: unknown): unknown =>
  typeof v === 'string'
    ? v.replaceAll('{A}', origins.A).replaceAll('{B}', origins.B)
    : Array.isArray(v)
      ? v.map(fill)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
        : v;

async function serve(name: 'A' | 'B'): Promise<void> {
  const server = createServer((req, res) => {
    const at = `${name} ${req.url}`;
    requested.push({ at, headers: req.headers });
    const r = routes[at];
    if (!r) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    const body = r.bytes ? JSON.stringify({ pad: 'x'.repeat(r.bytes) }) : r.json !== undefined ? JSON.stringify(fill(r.json)) : (r.body ?? '');
    const type = r.type ?? (r.json !== undefined || r.bytes ? 'application/json' : 'text/plain');
    res.writeHead(r.status, { 'content-type': type, ...(r.location ? { location: fill(r.location) as string } : {}) }).end(body);
  });
  servers.push(server);
  origins[name] = baseUrlOf(await listen(server, 0, '127.0.0.1'));
}

beforeAll(async () => {
  await serve('A');
  await serve('B');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

const judge = (walk: Awaited<ReturnType<typeof walkOAuthGraph>>) =>
  judgeValidation({ check: 'oauth_metadata_graph', raw: {} }, { ok: true, payload: {} }, { context: new Map(), oauthGraph: walk });

async function walkVector(v: GraphVector, fetch?: GraphFetch) {
  routes = v.routes;
  requested.length = 0;
  const agentUrl = `${origins.A}/mcp`;
  return walkOAuthGraph({ agentUrl, fetch: fetch ?? safeGraphFetch(agentUrl), agentPublic: false });
}

describe('oauth_metadata_graph on the harness vectors (loopback)', () => {
  it.each(GRAPH_VECTORS.map((v) => [v.id, v] as const))('%s', async (_id, v) => {
    const walk = await walkVector(v);
    const judged = judge(walk);
    if ('pass' in v.expect) {
      expect(walk.findings).toEqual([]);
      expect([judged.outcome, walk.gaps]).toEqual(['passed', []]);
    } else if ('gap' in v.expect) {
      expect(walk.findings).toEqual([]);
      expect(walk.gaps).toHaveLength(1);
      expect(judged.outcome).toBe('not_applicable');
    } else {
      expect(judged).toMatchObject({ outcome: 'failed', pointer: v.expect.pointer, expected: GRAPH_EXPECTED, actual: { code: v.expect.code } });
      expect(judged.message?.startsWith(`${v.expect.code}: `)).toBe(true);
    }
    for (const never of v.neverRequested ?? []) expect(requested.map((r) => r.at)).not.toContain(never);
  });

  it('covers every diagnostic code of the contract', () => {
    const covered = new Set(GRAPH_VECTORS.flatMap((v) => ('code' in v.expect ? [v.expect.code] : [])));
    expect(GRAPH_CODES.filter((c) => !covered.has(c))).toEqual([]);
  });

  it('sends no credential or cookie to any metadata or endpoint origin', async () => {
    await walkVector(GRAPH_VECTORS[0]!);
    expect(requested.length).toBe(5);
    for (const r of requested) expect([r.headers.authorization, r.headers.cookie, r.headers['proxy-authorization']]).toEqual([undefined, undefined, undefined]);
  });

  it('shows no URL secret (userinfo, query value) in the findings, observations or the validation', async () => {
    for (const id of ['issuer with a secret in its query', 'issuer with userinfo']) {
      const walk = await walkVector(GRAPH_VECTORS.find((v) => v.id === id)!);
      const text = JSON.stringify([walk, judge(walk)]);
      expect(text).not.toMatch(/issuer-secret-7731|userinfo-secret-5512/);
      expect(text).toMatch(/REDACTED/);
    }
  });

  it("fails a public agent's graph on a private issuer (oauth_fetch_blocked), where a local agent's is a gap", async () => {
    const refused: GraphFetch = async (url) =>
      url.includes('/.well-known/oauth-protected-resource')
        ? {
            kind: 'response',
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ resource: 'https://agent.example/mcp', authorization_servers: ['https://10.1.2.3'] })),
          }
        : { kind: 'refused', why: 'refused: 10.1.2.3 is a reserved address (private)', local: true };
    const walk = (agentPublic: boolean) => walkOAuthGraph({ agentUrl: 'https://agent.example/mcp', fetch: refused, agentPublic });
    expect((await walk(true)).findings.map((f) => f.code)).toEqual(['oauth_fetch_blocked']);
    expect(await walk(false)).toMatchObject({
      findings: [],
      gaps: [expect.stringMatching(/^https:\/\/10\.1\.2\.3\/\.well-known\/oauth-authorization-server: refused/)],
    });
  });

  it('stops at the whole-run limit rather than fetching on', async () => {
    let t = 0;
    const slow: GraphFetch = async () => {
      t += 61_000;
      return {
        kind: 'response',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"resource":"https://a.example/mcp","authorization_servers":["https://b.example"]}'),
      };
    };
    const walk = await walkOAuthGraph({ agentUrl: 'https://a.example/mcp', fetch: slow, agentPublic: true, now: () => t });
    expect(walk.findings[0]).toMatchObject({ code: 'oauth_graph_limit_exceeded', server: 0 });
  });
});

describe('the graph rules', () => {
  it('compare the resource with scheme and host without case and the default port dropped, the rest exact', () => {
    expect(resourceKey('HTTPS://Agent.Example:443/mcp')).toBe(resourceKey('https://agent.example/mcp'));
    expect(resourceKey('http://agent.example:80/mcp')).toBe('http://agent.example/mcp');
    expect(resourceKey('https://agent.example/mcp/')).not.toBe(resourceKey('https://agent.example/mcp'));
    expect(resourceKey('https://agent.example/MCP')).not.toBe(resourceKey('https://agent.example/mcp'));
    expect(resourceKey('https://agent.example:8443/mcp')).toBe('https://agent.example:8443/mcp');
    expect(resourceKey('not a url')).toBeUndefined();
  });

  it('show a URL with its userinfo and query values replaced and no fragment', () => {
    expect(shownUrl('https://u:p@auth.example/x?token=abc&code=1#frag')).toBe('https://REDACTED:REDACTED@auth.example/x?token=REDACTED&code=REDACTED');
    expect(shownText('see https://auth.example/?k=v, then')).toBe('see https://auth.example/?k=REDACTED, then');
  });
});
