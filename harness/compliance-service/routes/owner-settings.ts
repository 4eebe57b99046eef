/**
 * What an agent's owner sets (digest 6.3 writes, owner only; the operator owns every agent):
 *
 *   GET  /api/registry/agents/{encodedUrl}/monitoring/settings  {monitoring_paused, check_interval_hours, monitoring_paused_at}
 *   PUT  /api/registry/agents/{encodedUrl}/monitoring/pause     {paused}
 *   PUT  /api/registry/agents/{encodedUrl}/monitoring/interval  {interval_hours: 6–168}
 *   POST /api/registry/agents/{encodedUrl}/monitoring/requeue   {requeued}: probed at the next opportunity
 *   PUT  /api/registry/agents/{encodedUrl}/lifecycle            {lifecycle_stage} → RegistryMetadata
 *   PUT  /api/registry/agents/{encodedUrl}/compliance/opt-out   {opt_out} → RegistryMetadata; opting out revokes badges at once
 */
import { isLifecycleStage, LIFECYCLE_STAGES } from '../../core/engine/lifecycle.js';
import { agentOr404 } from '../http/agent-param.js';
import { type Caller, requireOwner } from '../http/callers.js';
import { HttpError, readObject, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import type { AgentRow, SettingsPatch } from '../types.js';
import type { ServiceContext } from './context.js';

export const MIN_INTERVAL_HOURS = 6;
export const MAX_INTERVAL_HOURS = 168;

/** The agent's settings as the digest's RegistryMetadata reports them. */
export function registryMetadata(a: AgentRow, serviceIntervalMs: number): Record<string, unknown> {
  return {
    agent_url: a.url,
    lifecycle_stage: a.lifecycleStage ?? null,
    compliance_opt_out: a.optOut,
    badge_requalification_required: a.requalificationRequired,
    monitoring_paused: a.monitoringPaused,
    check_interval_hours: a.checkIntervalHours ?? serviceIntervalMs / 3_600_000,
  };
}

/** The body holds exactly `name` (and nothing else), of the type `check` accepts. */
function only<T>(body: Record<string, unknown>, name: string, check: (v: unknown) => v is T, what: string): T {
  const extra = Object.keys(body).filter((k) => k !== name);
  if (extra.length) throw new HttpError(400, `unknown field(s) ${extra.join(', ')}: the body is {${name}}`);
  if (!(name in body)) throw new HttpError(400, `${name} is required`);
  if (!check(body[name])) throw new HttpError(400, `${name} must be ${what}`);
  return body[name] as T;
}
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isHours = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= MIN_INTERVAL_HOURS && (v as number) <= MAX_INTERVAL_HOURS;

export function ownerSettingsRoutes(s: ServiceContext): Route[] {
  const base = '/api/registry/agents/{encodedUrl}';
  const owned = async (encoded: string, caller: Caller): Promise<AgentRow> => {
    const agent = await agentOr404(s.store, encoded);
    requireOwner(caller, agent.owner, agent.url);
    return agent;
  };
  const apply = async (agent: AgentRow, patch: SettingsPatch): Promise<AgentRow> => {
    const after = await s.store.updateSettings(agent.url, patch, s.now());
    if (!after) throw new HttpError(404, `no agent ${agent.url} is registered`);
    return after;
  };
  const settings = (a: AgentRow) => ({
    monitoring_paused: a.monitoringPaused,
    check_interval_hours: a.checkIntervalHours ?? s.intervalMs / 3_600_000,
    monitoring_paused_at: a.monitoringPausedAt ?? null,
  });
  return [
    {
      method: 'GET',
      path: `${base}/monitoring/settings`,
      access: 'owner',
      summary: "The agent's monitoring settings",
      handle: async ({ res, params, caller }) => send(res, 200, settings(await owned(params.encodedUrl!, caller))),
    },
    {
      method: 'PUT',
      path: `${base}/monitoring/pause`,
      access: 'owner',
      summary: 'Pause or resume scheduled probing of the agent',
      handle: async ({ req, res, params, caller }) => {
        const agent = await owned(params.encodedUrl!, caller);
        const paused = only(await readObject(req), 'paused', isBool, 'true or false');
        send(res, 200, settings(await apply(agent, { monitoringPaused: paused })));
      },
    },
    {
      method: 'PUT',
      path: `${base}/monitoring/interval`,
      access: 'owner',
      summary: 'Set how often the agent is probed (6 to 168 hours)',
      handle: async ({ req, res, params, caller }) => {
        const agent = await owned(params.encodedUrl!, caller);
        const hours = only(await readObject(req), 'interval_hours', isHours, `a whole number of hours from ${MIN_INTERVAL_HOURS} to ${MAX_INTERVAL_HOURS}`);
        send(res, 200, settings(await apply(agent, { checkIntervalHours: hours })));
      },
    },
    {
      method: 'POST',
      path: `${base}/monitoring/requeue`,
      access: 'owner',
      summary: 'Probe the agent at the next opportunity',
      handle: async ({ res, params, caller }) => {
        const agent = await owned(params.encodedUrl!, caller);
        if (agent.monitoringPaused) throw new HttpError(409, `monitoring of ${agent.url} is paused; resume it first`);
        if (agent.optOut) throw new HttpError(409, `${agent.url} is opted out of compliance monitoring`);
        send(res, 200, { requeued: await s.store.requeue(agent.url, s.now()) });
      },
    },
    {
      method: 'PUT',
      path: `${base}/lifecycle`,
      access: 'owner',
      summary: "Declare the agent's lifecycle stage",
      handle: async ({ req, res, params, caller }) => {
        const agent = await owned(params.encodedUrl!, caller);
        const stage = only(await readObject(req), 'lifecycle_stage', isLifecycleStage, `one of ${LIFECYCLE_STAGES.join(', ')}`);
        send(res, 200, registryMetadata(await apply(agent, { lifecycleStage: stage }), s.intervalMs));
      },
    },
    {
      method: 'PUT',
      path: `${base}/compliance/opt-out`,
      access: 'owner',
      summary: 'Opt the agent out of (or back into) compliance monitoring; opting out revokes its badges',
      handle: async ({ req, res, params, caller }) => {
        const agent = await owned(params.encodedUrl!, caller);
        const optOut = only(await readObject(req), 'opt_out', isBool, 'true or false');
        send(res, 200, registryMetadata(await apply(agent, { optOut }), s.intervalMs));
      },
    },
  ];
}
