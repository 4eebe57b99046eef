/**
 * A manual recheck (digest 6.3, owner only):
 *
 *   POST /api/registry/agents/{encodedUrl}/refresh
 *
 * Probes the agent now and answers what was found and the compliance run it recorded. One refresh
 * per agent per 60 s and 30 per caller per hour (429 `{error, retry_after}` with Retry-After);
 * paused monitoring or an opted-out agent → 409; a probe already running → 409 naming it.
 */
import { toComplianceDetail } from '../../../reports/compliance-detail.js';
import type { RunResult } from '../../core/engine/result.js';
import { agentOr404 } from '../http/agent-param.js';
import { requireOwner } from '../http/callers.js';
import { HttpError, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { declaredTasksOf, unreached } from '../run-summary.js';
import { claimedRoles } from '../badges.js';
import type { ServiceContext } from './context.js';
import { takeManualProbe } from './refresh-limit.js';

/** Run overall status → the refresh's `overall_status` (passing | failing | partial | unknown). */
function refreshStatus(run: RunResult): 'passing' | 'failing' | 'partial' | 'unknown' {
  if (run.overall_status === 'passing' || run.overall_status === 'failing' || run.overall_status === 'partial') return run.overall_status;
  return 'unknown';
}

/** The agent type the registry infers from the tasks an agent lists: its first claimed role (badges.ts), `unknown` with none. */
export function inferredType(tasks: readonly string[]): string {
  const role = claimedRoles(tasks)[0];
  return role === undefined ? 'unknown' : role === 'media-buy' ? 'sales' : role;
}

/** `tasksBefore`: what the agent listed before this refresh (its type is promoted when the inference changes). */
export function refreshBody(runId: number, run: RunResult, tasksBefore: readonly string[]): Record<string, unknown> {
  const d = toComplianceDetail(run);
  const tasks = declaredTasksOf(run);
  const online = !unreached(run);
  const problem = run.transport_info.map((t) => t.problem).find((p) => !!p) ?? run.harness_error;
  return {
    online,
    tools_count: tasks.length,
    response_time_ms: Math.round(run.duration_ms),
    inferred_type: inferredType(tasks),
    type_promoted: tasks.length > 0 && inferredType(tasks) !== inferredType(tasksBefore),
    oauth_required: run.overall_status === 'auth_required',
    checked_at: run.finished_at,
    ...(problem ? { error: problem } : {}),
    compliance: {
      ran: true,
      run_id: String(runId),
      requested_compliance_target: d.requested_compliance_target,
      overall_status: refreshStatus(run),
      badge_eligible: run.overall_status === 'passing',
      storyboards_passing: d.storyboards_passing,
      storyboards_total: d.storyboards_total,
    },
  };
}

export function refreshRoutes(s: ServiceContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/registry/agents/{encodedUrl}/refresh',
      access: 'owner',
      summary: 'Probe the agent now (rate limited)',
      handle: async ({ res, params, caller }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        requireOwner(caller, agent.owner, agent.url);
        if (agent.monitoringPaused) throw new HttpError(409, `monitoring of ${agent.url} is paused; resume it before refreshing`);
        if (agent.optOut) throw new HttpError(409, `${agent.url} is opted out of compliance monitoring`);
        if (!s.probeNow) throw new HttpError(503, 'this service does not probe agents itself');
        await takeManualProbe(s, agent, caller);
        const done = await s.probeNow(agent, 'refresh');
        if (!done) throw new HttpError(409, `a probe of ${agent.url} is already running; its result will be in the history`);
        send(res, 200, refreshBody(done.runId, done.result, agent.capabilities));
      },
    },
  ];
}
