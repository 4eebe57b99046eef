/**
 * The fleet routes: statistics, the agent list, the change feed, registering and removing agents.
 *
 *   GET    /api/registry/stats                        agents per status, runs
 *   GET    /api/registry/agents[?capability=&channel=&status=] {agents[], count}: spec 2.4 fields plus status
 *   GET    /api/registry/changes?cursor=&limit=       {changes[], next_cursor}: status transitions after the cursor
 *   POST   /api/me/agents                             register {url | agent_url, transports?, token?, auth_token?, auth_ref?, owner?, capabilities?, channels?}
 *   DELETE /api/me/agents/{encodedUrl}                remove (its owner or the operator)
 */
import { AgentInputError, agentInputOf } from '../agent-input.js';
import { agentOr404 } from '../http/agent-param.js';
import { requireKey, requireOwner } from '../http/callers.js';
import { HttpError, intParam, readJson, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { type AgentRow, DuplicateAgentError } from '../types.js';
import type { ServiceContext } from './context.js';

export const MAX_CHANGES = 1_000;

/** The agent's capabilities: the tasks its latest probe found it listing, else those its registration declared. */
export const capabilitiesOf = (a: AgentRow): string[] => (a.capabilities.length ? a.capabilities : (a.declaredCapabilities ?? []));

/** The list entry: spec 2.4 (domain, agent_url, capabilities, channels) and the agent's standing. */
export function listEntry(a: AgentRow): Record<string, unknown> {
  return {
    domain: new URL(a.url).hostname,
    agent_url: a.url,
    capabilities: capabilitiesOf(a),
    channels: a.channels ?? [],
    transports: a.transports,
    status: a.status,
    lifecycle_stage: a.lifecycleStage ?? 'production',
    ...(a.lastCheckedAt ? { last_checked_at: a.lastCheckedAt } : {}),
    ...(a.headline ? { headline: a.headline } : {}),
    ...(a.problem ? { problem: a.problem } : {}),
    ...(a.owner ? { owner: a.owner } : {}),
    ...(a.authRef ? { auth_ref: a.authRef } : {}),
  };
}

export function fleetRoutes(s: ServiceContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/registry/stats',
      access: 'public',
      summary: 'Agents per status and finished runs',
      handle: async ({ res }) => send(res, 200, await s.store.counts()),
    },
    {
      method: 'GET',
      path: '/api/registry/agents',
      access: 'public',
      summary: 'The registered agents, optionally filtered by capability or status',
      handle: async ({ res, url }) => {
        const capability = url.searchParams.get('capability');
        const channel = url.searchParams.get('channel');
        const status = url.searchParams.get('status');
        const agents = (await s.store.listAgents()).filter(
          (a) =>
            (!capability || capabilitiesOf(a).includes(capability)) && (!channel || (a.channels ?? []).includes(channel)) && (!status || a.status === status),
        );
        send(res, 200, { agents: agents.map(listEntry), count: agents.length });
      },
    },
    {
      method: 'GET',
      path: '/api/registry/changes',
      access: 'public',
      summary: 'Status transitions after a cursor (the change feed)',
      handle: async ({ res, url }) => {
        const cursor = intParam(url.searchParams, 'cursor', 0, Number.MAX_SAFE_INTEGER);
        const limit = intParam(url.searchParams, 'limit', 100, MAX_CHANGES);
        const changes = await s.store.changes(cursor, limit);
        send(res, 200, {
          changes: changes.map((c) => ({ seq: c.seq, agent_url: c.agentUrl, from: c.from, to: c.to, at: c.at, run_id: c.runId })),
          next_cursor: changes.length ? changes[changes.length - 1]!.seq : cursor,
        });
      },
    },
    {
      method: 'POST',
      path: '/api/me/agents',
      access: 'member',
      summary: 'Register an agent for probing',
      handle: async ({ req, res, caller }) => {
        requireKey(caller);
        let input: ReturnType<typeof agentInputOf>;
        try {
          input = agentInputOf(await readJson(req));
        } catch (e) {
          if (e instanceof AgentInputError) throw new HttpError(400, e.message);
          throw e;
        }
        if (caller.kind === 'member') {
          if (input.owner !== undefined && input.owner !== caller.name)
            throw new HttpError(403, `a member registers agents for themselves (owner ${caller.name})`);
          input = { ...input, owner: caller.name };
        }
        try {
          const agent = await s.store.addAgent(input, s.now());
          s.onRegistered?.(agent);
          send(res, 201, listEntry(agent), { location: `/api/registry/agents/${encodeURIComponent(agent.url)}/compliance` });
        } catch (e) {
          if (e instanceof DuplicateAgentError) throw new HttpError(409, e.message);
          throw e;
        }
      },
    },
    {
      method: 'DELETE',
      path: '/api/me/agents/{encodedUrl}',
      access: 'owner',
      summary: 'Remove an agent and its history',
      handle: async ({ res, params, caller }) => {
        requireKey(caller);
        const agent = await agentOr404(s.store, params.encodedUrl!);
        requireOwner(caller, agent.owner, agent.url);
        await s.store.removeAgent(agent.url);
        res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
      },
    },
  ];
}
