/**
 * The registry's REST API (JSON; errors are `{error}` as digest 6.3 says). Reads are public (CORS
 * open), writes need an API key (`Authorization: Bearer <key>` or `X-API-Key`):
 *
 *   GET    /api/registry/stats                                   agents per status, runs
 *   GET    /api/registry/agents[?capability=&status=]            {agents[], count}: spec 2.4 fields plus status
 *   POST   /api/me/agents                                        register {url, transports?, token?, auth_token?, auth_ref?, owner?}
 *   DELETE /api/me/agents/{encodedUrl}                           remove
 *   GET    /api/registry/agents/{encodedUrl}/compliance          AgentComplianceDetail (digest 6.3) + previous status, failing checks
 *   GET    /api/registry/agents/{encodedUrl}/compliance/history?limit   {agent_url, runs[], count}
 *   GET    /api/registry/agents/{encodedUrl}/compliance/report   the latest full agent-compliance report
 *   GET    /api/registry/agents/{encodedUrl}/badge.svg           status badge
 *   GET    /api/registry/changes?cursor=&limit=                  {changes[], next_cursor}: status transitions after the cursor
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toComplianceDetail } from '../../reports/compliance-detail.js';
import { renderAgentComplianceJson } from '../../reports/json.js';
import { AgentInputError, agentInputOf, normalizedUrl } from './agent-input.js';
import { badgeSvg } from './badge.js';
import { type AgentRow, DuplicateAgentError, type RegistryStore } from './types.js';

export const MAX_BODY_BYTES = 64 * 1024;
const MAX_HISTORY = 100;
const MAX_CHANGES = 1_000;

export interface ApiOptions {
  store: RegistryStore;
  /** Keys that may register and remove agents; none: writes are refused. */
  apiKeys: readonly string[];
  now?: () => number;
  /** Called after a registration (the scheduler looks for due agents at once). */
  onRegistered?: (agent: AgentRow) => void;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
    ...headers,
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type)) throw new HttpError(415, 'the body must be application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not valid JSON');
  }
}

function keyMatches(given: string, keys: readonly string[]): boolean {
  const g = Buffer.from(given);
  return keys.some((k) => {
    const b = Buffer.from(k);
    return b.length === g.length && timingSafeEqual(b, g);
  });
}

function requireKey(req: IncomingMessage, keys: readonly string[]): void {
  const auth = req.headers.authorization;
  const given = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : auth && /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  const challenge = { 'www-authenticate': 'Bearer realm="proto-comply registry"' };
  if (!given) throw new HttpError(401, 'an API key is required (Authorization: Bearer <key> or X-API-Key)', challenge);
  if (!keys.length || !keyMatches(given, keys)) throw new HttpError(401, 'the API key is not valid', challenge);
}

function intParam(q: URLSearchParams, name: string, dflt: number, max: number): number {
  const raw = q.get(name);
  if (raw === null) return dflt;
  if (!/^\d{1,9}$/.test(raw)) throw new HttpError(400, `${name} must be a non-negative integer`);
  return Math.min(Number(raw), max);
}

/** The list entry: spec 2.4 (domain, agent_url, capabilities, channels) and the agent's standing. */
function listEntry(a: AgentRow): Record<string, unknown> {
  return {
    domain: new URL(a.url).hostname,
    agent_url: a.url,
    capabilities: a.capabilities,
    channels: [],
    transports: a.transports,
    status: a.status,
    lifecycle_stage: 'production',
    ...(a.lastCheckedAt ? { last_checked_at: a.lastCheckedAt } : {}),
    ...(a.headline ? { headline: a.headline } : {}),
    ...(a.problem ? { problem: a.problem } : {}),
    ...(a.owner ? { owner: a.owner } : {}),
    ...(a.authRef ? { auth_ref: a.authRef } : {}),
  };
}

export function createRegistryHandler(o: ApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const now = o.now ?? Date.now;

  const agentOr404 = async (encoded: string): Promise<AgentRow> => {
    let url: string;
    try {
      url = decodeURIComponent(encoded);
    } catch {
      throw new HttpError(400, 'the agent URL in the path is not URL-encoded correctly');
    }
    const agent = (await o.store.getAgent(url)) ?? (URL.canParse(url) ? await o.store.getAgent(normalizedUrl(url)) : undefined);
    if (!agent) throw new HttpError(404, `no agent ${url} is registered`);
    return agent;
  };

  const detail = async (agent: AgentRow): Promise<Record<string, unknown>> => {
    const report = await o.store.latestReport(agent.url);
    const recent = await o.store.history(agent.url, 5);
    const last = recent[0];
    const lastDone = recent.find((r) => r.state === 'done');
    const base = report
      ? toComplianceDetail(report)
      : {
          lifecycle_stage: 'production',
          headline: agent.problem ?? 'not probed yet',
          tracks: {},
          track_details: [],
          storyboards_passing: 0,
          storyboards_total: 0,
          storyboard_statuses: [],
        };
    return {
      ...base,
      agent_url: agent.url,
      status: agent.status,
      ...(agent.previousStatus ? { previous_status: agent.previousStatus } : {}),
      ...(agent.statusChangedAt ? { status_changed_at: agent.statusChangedAt } : {}),
      ...(agent.lastCheckedAt ? { last_checked_at: agent.lastCheckedAt } : {}),
      ...(last ? { last_run: { id: last.id, state: last.state, started_at: last.startedAt, overall_status: last.overallStatus ?? null } } : {}),
      failing_checks: lastDone?.failingChecks ?? [],
      ...(agent.problem ? { problem: agent.problem } : {}),
      next_probe_at: new Date(agent.nextDueAt).toISOString(),
      probing: agent.runningRunId !== undefined,
    };
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://registry.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers': 'authorization, content-type, x-api-key',
      });
      res.end();
      return;
    }
    if (path === '/api/registry/stats' && method === 'GET') return send(res, 200, await o.store.counts());
    if (path === '/api/registry/agents' && method === 'GET') {
      const capability = url.searchParams.get('capability');
      const status = url.searchParams.get('status');
      const agents = (await o.store.listAgents()).filter((a) => (!capability || a.capabilities.includes(capability)) && (!status || a.status === status));
      return send(res, 200, { agents: agents.map(listEntry), count: agents.length });
    }
    if (path === '/api/registry/changes' && method === 'GET') {
      const cursor = intParam(url.searchParams, 'cursor', 0, Number.MAX_SAFE_INTEGER);
      const limit = intParam(url.searchParams, 'limit', 100, MAX_CHANGES);
      const changes = await o.store.changes(cursor, limit);
      return send(res, 200, {
        changes: changes.map((c) => ({ seq: c.seq, agent_url: c.agentUrl, from: c.from, to: c.to, at: c.at, run_id: c.runId })),
        next_cursor: changes.length ? changes[changes.length - 1]!.seq : cursor,
      });
    }
    if (path === '/api/me/agents' && method === 'POST') {
      requireKey(req, o.apiKeys);
      let input: ReturnType<typeof agentInputOf>;
      try {
        input = agentInputOf(await readJson(req));
      } catch (e) {
        if (e instanceof AgentInputError) throw new HttpError(400, e.message);
        throw e;
      }
      try {
        const agent = await o.store.addAgent(input, now());
        o.onRegistered?.(agent);
        return send(res, 201, listEntry(agent), { location: `/api/registry/agents/${encodeURIComponent(agent.url)}/compliance` });
      } catch (e) {
        if (e instanceof DuplicateAgentError) throw new HttpError(409, e.message);
        throw e;
      }
    }
    const mine = /^\/api\/me\/agents\/([^/]+)$/.exec(path);
    if (mine && method === 'DELETE') {
      requireKey(req, o.apiKeys);
      const agent = await agentOr404(mine[1]!);
      await o.store.removeAgent(agent.url);
      res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
      return;
    }
    const m = /^\/api\/registry\/agents\/([^/]+)\/(compliance|compliance\/history|compliance\/report|badge\.svg)$/.exec(path);
    if (m && method === 'GET') {
      const agent = await agentOr404(m[1]!);
      if (m[2] === 'compliance') return send(res, 200, await detail(agent));
      if (m[2] === 'compliance/history') {
        const limit = intParam(url.searchParams, 'limit', 30, MAX_HISTORY);
        const runs = await o.store.history(agent.url, limit);
        return send(res, 200, {
          agent_url: agent.url,
          runs: runs.map((r) => ({
            id: r.id,
            state: r.state,
            overall_status: r.overallStatus ?? null,
            status: r.status ?? null,
            headline: r.headline ?? null,
            failing_checks: r.failingChecks,
            total_duration_ms: r.durationMs ?? null,
            triggered_by: r.triggeredBy,
            tested_at: r.startedAt,
            ...(r.finishedAt ? { finished_at: r.finishedAt } : {}),
          })),
          count: runs.length,
        });
      }
      if (m[2] === 'compliance/report') {
        const report = await o.store.latestReport(agent.url);
        if (!report) throw new HttpError(404, `agent ${agent.url} has no finished run yet`);
        // The document `run` writes as agent-compliance.json (the run and its compliance detail).
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          'access-control-allow-origin': '*',
          'x-content-type-options': 'nosniff',
        });
        res.end(renderAgentComplianceJson(report));
        return;
      }
      res.writeHead(200, {
        'content-type': 'image/svg+xml',
        'cache-control': 'no-cache',
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
      });
      res.end(badgeSvg(agent.status));
      return;
    }
    const known =
      path === '/api/registry/stats' || path === '/api/registry/agents' || path === '/api/registry/changes' || path === '/api/me/agents' || mine || m;
    throw known ? new HttpError(405, `${method} is not allowed on ${path}`) : new HttpError(404, `no such endpoint: ${method} ${path}`);
  };

  return (req, res) => {
    route(req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof HttpError) send(res, e.status, { error: e.message }, e.headers);
      else send(res, 500, { error: 'internal error' });
    });
  };
}
