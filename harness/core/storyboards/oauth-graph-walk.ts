/**
 * The walk of an agent's public OAuth discovery graph (the 3.2 oauth-setup runner contract): its
 * RFC 9728 protected-resource metadata, then every authorization server it names, in array order,
 * to that server's RFC 8414 metadata, then the endpoints that metadata advertises (authorization
 * and token endpoints probed passively, the JWKS fetched). Sequential, each exact URL fetched once,
 * redirects followed for documents (at most 3, every hop checked) and never for endpoint probes,
 * within the contract's limits. Each problem is a finding with its diagnostic code; the first by
 * the codes' precedence, then by server order, is the graph's failure. A fetch the run's address
 * policy refuses is a finding (`oauth_fetch_blocked`) when the agent is wrong to advertise it, and
 * a gap otherwise (see `blockedIsGap`). Every URL recorded is shown with its secrets replaced.
 */
import { parseBoundedJson } from '../transport/bounded-json.js';
import { authServerMetadataUrl, protectedResourceUrl } from './oauth-urls.js';
import type { GraphFetch, GraphReply } from './oauth-graph-fetch.js';
import {
  endpointAnswered,
  endpointProblem,
  GRAPH_CODES,
  GRAPH_LIMITS,
  type GraphCode,
  isJsonType,
  isLoopbackName,
  issuerProblem,
  redirectProblem,
  resourceKey,
  serverShape,
  shownText,
  shownUrl,
  type UrlScope,
} from './oauth-graph-rules.js';

export interface GraphFinding {
  code: GraphCode;
  detail: string;
  /** The URL at fault (shown), the issuer concerned, the member at fault, the HTTP status seen. */
  url?: string;
  issuer?: string;
  field?: string;
  httpStatus?: number;
  /** The `authorization_servers` index it concerns. */
  server?: number;
}

export interface GraphWalk {
  /** The protected-resource metadata URL (shown) and what it answered: the step's reply. */
  prmUrl: string;
  prm: GraphReply;
  /** The findings, first the one that decides (precedence, then server order). */
  findings: GraphFinding[];
  /** What could not be followed for want of a fetch the run allows (never the agent's failure). */
  gaps: string[];
  /** Each fetch made: `<kind> GET <url> → <status or failure>`. */
  observations: string[];
  requests: number;
}

export interface WalkOptions {
  agentUrl: string;
  fetch: GraphFetch;
  /** The agent's endpoint resolves to public addresses only (a deployment the contract binds). */
  agentPublic: boolean;
  now?: () => number;
}

type Kind = 'protected_resource_metadata' | 'authorization_server_metadata' | 'authorization_endpoint' | 'token_endpoint' | 'jwks_uri';

interface Fetched {
  /** The final answer (after redirects, for documents). */
  reply: GraphReply;
  /** The URL that answered (shown). */
  url: string;
  /** Why it could not be had, as a finding's code: a refused fetch or a limit. */
  stop?: { code: 'oauth_fetch_blocked' | 'oauth_graph_limit_exceeded'; why: string; gap?: boolean };
}

/**
 * A refused fetch is the agent's failure unless the address is on a local network and the agent
 * itself is not public: a local deployment whose graph the run's address policy does not reach
 * (allow-list the host to judge it). An address nobody may advertise (link-local, metadata,
 * reserved) and any scheme downgrade fail wherever the agent runs.
 */
export const blockedIsGap = (reply: Extract<GraphReply, { kind: 'refused' }>, agentPublic: boolean) => reply.local && !agentPublic;

export async function walkOAuthGraph(o: WalkOptions): Promise<GraphWalk> {
  const now = o.now ?? Date.now;
  const started = now();
  const scope: UrlScope = { agentOnLoopback: isLoopbackName(new URL(o.agentUrl).hostname) };
  const findings: GraphFinding[] = [];
  const gaps: string[] = [];
  const observations: string[] = [];
  const cache = new Map<string, Promise<Fetched>>();
  const urls = new Set<string>();
  let requests = 0;
  let bytes = 0;

  const once = async (url: string, maxBytes: number): Promise<GraphReply | { limit: string }> => {
    if (now() - started > GRAPH_LIMITS.wholeRunMs) return { limit: `the walk took longer than ${GRAPH_LIMITS.wholeRunMs} ms` };
    urls.add(url);
    if (urls.size > GRAPH_LIMITS.uniqueUrls) return { limit: `more than ${GRAPH_LIMITS.uniqueUrls} distinct URLs` };
    if (++requests > GRAPH_LIMITS.requests) return { limit: `more than ${GRAPH_LIMITS.requests} requests` };
    const reply = await o.fetch(url, { maxBytes });
    if (reply.kind === 'response') bytes += reply.body.length;
    if (bytes > GRAPH_LIMITS.totalBytes) return { limit: `more than ${GRAPH_LIMITS.totalBytes} bytes in all` };
    return reply;
  };

  const get = (kind: Kind, start: string, follow: boolean): Promise<Fetched> => {
    const key = `${follow ? 'follow' : 'once'} ${start}`;
    let hit = cache.get(key);
    if (!hit) {
      hit = fetchChain(kind, start, follow);
      cache.set(key, hit);
    }
    return hit;
  };

  const fetchChain = async (kind: Kind, start: string, follow: boolean): Promise<Fetched> => {
    let url = start;
    for (let hop = 0; ; hop++) {
      const got = await once(url, GRAPH_LIMITS.bytesPerResponse);
      const shown = shownUrl(url);
      if ('limit' in got) return { reply: { kind: 'failed', why: got.limit }, url: shown, stop: { code: 'oauth_graph_limit_exceeded', why: got.limit } };
      observations.push(`${kind} GET ${shown} → ${got.kind === 'response' ? got.status : `${got.kind}: ${shownText(got.why)}`}`);
      if (got.kind === 'too_large') return { reply: got, url: shown, stop: { code: 'oauth_graph_limit_exceeded', why: shownText(got.why) } };
      if (got.kind === 'refused')
        return { reply: got, url: shown, stop: { code: 'oauth_fetch_blocked', why: shownText(got.why), gap: blockedIsGap(got, o.agentPublic) } };
      if (got.kind !== 'response' || !follow || ![301, 302, 303, 307, 308].includes(got.status) || !got.headers.location) return { reply: got, url: shown };
      let next: string;
      try {
        next = new URL(got.headers.location, url).href;
      } catch {
        return { reply: got, url: shown, stop: { code: 'oauth_fetch_blocked', why: 'a redirect to something that is not a URL' } };
      }
      const bad = redirectProblem(next, scope);
      if (bad) return { reply: got, url: shown, stop: { code: 'oauth_fetch_blocked', why: `a redirect to ${shownUrl(next)}, which ${bad}` } };
      if (hop + 1 > GRAPH_LIMITS.redirects)
        return { reply: got, url: shown, stop: { code: 'oauth_graph_limit_exceeded', why: `more than ${GRAPH_LIMITS.redirects} redirects` } };
      url = next;
    }
  };

  /** A stopped fetch as a finding, or as a gap; true when it stopped. */
  const stopped = (f: Fetched, server?: number): boolean => {
    if (!f.stop) return false;
    if (f.stop.gap) gaps.push(`${f.url}: ${f.stop.why}`);
    else findings.push({ code: f.stop.code, detail: `${f.url}: ${f.stop.why}`, url: f.url, ...(server !== undefined ? { server } : {}) });
    return true;
  };

  const add = (f: GraphFinding) => findings.push(f);
  const prmUrl = protectedResourceUrl(o.agentUrl);
  const prmFetch = await get('protected_resource_metadata', prmUrl, true);
  const done = (): GraphWalk => ({ prmUrl: shownUrl(prmUrl), prm: prmFetch.reply, findings: sorted(findings), gaps, observations, requests });
  if (stopped(prmFetch)) return done();
  const prm = prmFetch.reply;
  if (prm.kind !== 'response' || prm.status !== 200) {
    const status = prm.kind === 'response' ? prm.status : undefined;
    add({
      code: 'oauth_protected_resource_metadata_unavailable',
      detail: `${prmFetch.url} answered ${status ?? shownText((prm as { why: string }).why)}, not HTTP 200 JSON`,
      url: prmFetch.url,
      ...(status ? { httpStatus: status } : {}),
    });
    return done();
  }
  const doc = jsonObject(prm);
  if (!doc) {
    add({ code: 'oauth_protected_resource_metadata_invalid', detail: `${prmFetch.url} is not an application/json object`, url: prmFetch.url });
    return done();
  }
  const resource = doc.resource;
  if (typeof resource !== 'string' || endpointProblem(resource, scope))
    add({ code: 'oauth_protected_resource_metadata_invalid', detail: 'resource is not an absolute https URI', url: prmFetch.url, field: 'resource' });
  else if (resourceKey(resource) !== resourceKey(o.agentUrl))
    add({
      code: 'oauth_resource_mismatch',
      detail: `resource ${shownUrl(resource)} is not the agent's URL ${shownUrl(o.agentUrl)} (scheme and host without case, default port dropped, the rest exact)`,
      url: prmFetch.url,
      field: 'resource',
    });
  const servers = doc.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0) {
    add({
      code: 'oauth_authorization_servers_empty',
      detail: 'authorization_servers is absent, not a list, or empty',
      url: prmFetch.url,
      field: 'authorization_servers',
    });
    return done();
  }
  if (servers.length > GRAPH_LIMITS.authorizationServers) {
    const detail = `authorization_servers names ${servers.length} servers; the limit is ${GRAPH_LIMITS.authorizationServers}`;
    add({ code: 'oauth_graph_limit_exceeded', detail, url: prmFetch.url, field: 'authorization_servers' });
    return done();
  }
  for (const [i, issuer] of servers.entries()) await walkServer(i, issuer);
  return done();

  async function walkServer(server: number, issuer: unknown): Promise<void> {
    const field = `authorization_servers[${server}]`;
    const bad = issuerProblem(issuer, scope);
    if (bad) {
      const shown = typeof issuer === 'string' ? shownUrl(issuer) : JSON.stringify(issuer)?.slice(0, 80);
      add({
        code: 'oauth_authorization_server_url_invalid',
        detail: `${field} ${shown} ${bad}`,
        field,
        server,
        ...(typeof issuer === 'string' ? { issuer: shown } : {}),
      });
      return;
    }
    const name = issuer as string;
    const meta = await get('authorization_server_metadata', authServerMetadataUrl(name), true);
    if (stopped(meta, server)) return;
    const r = meta.reply;
    if (r.kind !== 'response' || r.status !== 200) {
      const status = r.kind === 'response' ? r.status : undefined;
      const why = status ? `HTTP ${status}` : shownText((r as { why: string }).why);
      add({
        code: 'oauth_authorization_server_metadata_unavailable',
        detail: `${meta.url} answered ${why}`,
        url: meta.url,
        issuer: name,
        server,
        ...(status ? { httpStatus: status } : {}),
      });
      return;
    }
    const as = jsonObject(r);
    if (!as) {
      add({
        code: 'oauth_authorization_server_metadata_invalid',
        detail: `${meta.url} is not an application/json object`,
        url: meta.url,
        issuer: name,
        server,
      });
      return;
    }
    const at = { url: meta.url, issuer: name, server };
    if (issuerProblem(as.issuer, scope))
      add({ code: 'oauth_authorization_server_metadata_invalid', detail: 'issuer is absent or not an issuer URI', field: 'issuer', ...at });
    else if (as.issuer !== name)
      add({
        code: 'oauth_issuer_mismatch',
        detail: `issuer ${shownUrl(String(as.issuer))} is not exactly ${shownUrl(name)}, the issuer named`,
        field: 'issuer',
        ...at,
      });
    const shape = serverShape(as);
    if (!shape.ok) {
      add({ code: 'oauth_authorization_server_metadata_invalid', detail: `${shape.field} ${shape.problem}`, field: shape.field, ...at });
      return;
    }
    const fields = ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'registration_endpoint'] as const;
    const badUrls = fields.filter((f) => as[f] !== undefined && endpointProblem(as[f], scope));
    for (const f of badUrls) add({ code: 'oauth_endpoint_url_invalid', detail: `${f} ${endpointProblem(as[f], scope)}`, field: f, ...at });
    if (badUrls.length > 0) return;
    // registration_endpoint is only checked for shape: no RFC 7591 request is ever sent.
    for (const f of ['authorization_endpoint', 'token_endpoint'] as const) {
      if (f === 'authorization_endpoint' ? !shape.usesAuthorization : !shape.usesToken) continue;
      const probe = await get(f, as[f] as string, false);
      if (stopped(probe, server)) continue;
      const status = probe.reply.kind === 'response' ? probe.reply.status : undefined;
      if (status === undefined || !endpointAnswered(f, status))
        add({
          code: 'oauth_endpoint_unreachable',
          detail: `${f} ${probe.url} answered ${status ?? shownText((probe.reply as { why: string }).why)}`,
          field: f,
          ...at,
          url: probe.url,
          ...(status ? { httpStatus: status } : {}),
        });
    }
    if (as.jwks_uri === undefined) return;
    const jwks = await get('jwks_uri', as.jwks_uri as string, true);
    if (stopped(jwks, server)) return;
    const set = jsonObject(jwks.reply);
    const status = jwks.reply.kind === 'response' ? jwks.reply.status : undefined;
    if (status !== 200 || !set || !Array.isArray(set.keys))
      add({
        code: 'oauth_jwks_unavailable',
        detail: `jwks_uri ${jwks.url} answered ${status ?? shownText((jwks.reply as { why: string }).why)}${status === 200 ? ', not a JSON object with a keys list' : ''}`,
        field: 'jwks_uri',
        ...at,
        url: jwks.url,
        ...(status ? { httpStatus: status } : {}),
      });
  }
}

/** The reply's body as a JSON object, when it is one served as JSON. */
export function jsonObject(reply: GraphReply): Record<string, unknown> | undefined {
  if (reply.kind !== 'response' || !isJsonType(reply.headers['content-type'])) return undefined;
  const parsed = parseBoundedJson(reply.body.toString('utf8'));
  const v = parsed.ok ? parsed.value : undefined;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

const rank = (c: GraphCode) => GRAPH_CODES.indexOf(c);
const sorted = (fs: GraphFinding[]) =>
  fs
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.code) - rank(b.f.code) || (a.f.server ?? -1) - (b.f.server ?? -1) || a.i - b.i)
    .map((x) => x.f);
