/**
 * Storyboard statuses for members (digest 6.3):
 *
 *   GET  /api/registry/agents/{encodedUrl}/storyboard-status  {agent_url, storyboards[], passing_count, total_count}
 *   POST /api/registry/agents/storyboard-status               {agent_urls[≤100]} → {agents: {url: StoryboardStatus[] | {status: "opted_out"}}, invalid_urls?}
 *
 * Members only (403 `{error, members_only}` for anyone else). A status carries its storyboard's
 * first-failure fields only for the agent's owner, never `first_failure_validations`.
 */
import { normalizedUrl } from '../agent-input.js';
import { complianceDetailView } from '../detail-view.js';
import { agentOr404 } from '../http/agent-param.js';
import { type Caller, owns } from '../http/callers.js';
import { HttpError, readObject, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import type { AgentRow } from '../types.js';
import type { ServiceContext } from './context.js';

export const MAX_BULK_URLS = 100;

function requireMember(caller: Caller): void {
  if (caller.kind === 'anonymous') throw new HttpError(403, 'storyboard statuses are for members: give a member or operator key', {}, { members_only: true });
}

export function storyboardStatusRoutes(s: ServiceContext): Route[] {
  const statusesOf = async (agent: AgentRow, caller: Caller): Promise<Record<string, unknown>[] | { status: 'opted_out' }> => {
    if (agent.optOut) return { status: 'opted_out' };
    const [report, recent] = await Promise.all([s.store.latestReport(agent.url), s.store.history(agent.url, 1)]);
    const view = complianceDetailView({ agent, report, recent, owner: owns(caller, agent.owner), now: s.now(), serviceIntervalMs: s.intervalMs });
    const target = view.requested_compliance_target;
    return (view.storyboard_statuses as Record<string, unknown>[]).map(({ first_failure_validations: _, ...st }) => ({
      ...st,
      ...(target ? { requested_compliance_target: target, proto_version: view.proto_version } : {}),
    }));
  };
  return [
    {
      method: 'GET',
      path: '/api/registry/agents/{encodedUrl}/storyboard-status',
      access: 'member',
      summary: "The agent's storyboard statuses (members only)",
      handle: async ({ res, params, caller }) => {
        requireMember(caller);
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const statuses = await statusesOf(agent, caller);
        const list = Array.isArray(statuses) ? statuses : [];
        send(res, 200, {
          agent_url: agent.url,
          ...(Array.isArray(statuses) ? {} : { status: 'opted_out' }),
          storyboards: list,
          passing_count: list.filter((x) => x.status === 'passing').length,
          total_count: list.length,
        });
      },
    },
    {
      method: 'POST',
      path: '/api/registry/agents/storyboard-status',
      access: 'member',
      summary: 'Storyboard statuses of up to 100 agents at once (members only)',
      handle: async ({ req, res, caller }) => {
        requireMember(caller);
        const body = await readObject(req);
        const urls = body.agent_urls;
        if (!Array.isArray(urls) || urls.length === 0) throw new HttpError(400, 'agent_urls must be a non-empty list of agent URLs');
        if (urls.length > MAX_BULK_URLS) throw new HttpError(400, `agent_urls holds ${urls.length} URLs; at most ${MAX_BULK_URLS}`);
        const agents: Record<string, unknown> = {};
        const invalid: unknown[] = [];
        for (const u of urls) {
          const agent =
            typeof u === 'string' && u.length <= 2_048
              ? ((await s.store.getAgent(u)) ?? (URL.canParse(u) ? await s.store.getAgent(normalizedUrl(u)) : undefined))
              : undefined;
          if (!agent) invalid.push(typeof u === 'string' ? u.slice(0, 2_048) : u);
          else agents[u as string] = await statusesOf(agent, caller);
        }
        send(res, 200, { agents, ...(invalid.length ? { invalid_urls: invalid } : {}) });
      },
    },
  ];
}
