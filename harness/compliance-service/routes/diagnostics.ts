/**
 * A run's step diagnostics (digest 6.3, owner only):
 *
 *   GET /api/registry/agents/{encodedUrl}/compliance/diagnostics?run_id&limit (default 500, max 1000)
 *
 * Without run_id, the latest run that has a report. Only the newest runs keep their full report
 * (KEPT_REPORTS): an older run's diagnostics are gone, said so with 410.
 */
import { DEFAULT_DIAGNOSTICS, diagnosticsOf, MAX_DIAGNOSTICS } from '../diagnostics.js';
import { agentOr404 } from '../http/agent-param.js';
import { requireOwner } from '../http/callers.js';
import { HttpError, intParam, send } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { KEPT_REPORTS } from '../sqlite-store.js';
import type { ServiceContext } from './context.js';

export function diagnosticsRoutes(s: ServiceContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/registry/agents/{encodedUrl}/compliance/diagnostics',
      access: 'owner',
      summary: "Each failing step of one of the agent's runs: request, response, error, failed validations",
      handle: async ({ res, params, url, caller }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        requireOwner(caller, agent.owner, agent.url);
        const limit = intParam(url.searchParams, 'limit', DEFAULT_DIAGNOSTICS, MAX_DIAGNOSTICS);
        const raw = url.searchParams.get('run_id');
        let runId: number;
        if (raw !== null) {
          if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, 'run_id must be a run id (a whole number)');
          runId = Number(raw);
        } else {
          const latest = (await s.store.history(agent.url, KEPT_REPORTS + 5)).find((r) => r.state === 'done');
          if (!latest) throw new HttpError(404, `agent ${agent.url} has no finished run yet`);
          runId = latest.id;
        }
        const found = await s.store.runReport(agent.url, runId);
        if (!found) throw new HttpError(404, `agent ${agent.url} has no finished run ${runId}`);
        if (!found.kept) throw new HttpError(410, `run ${runId} is older than the ${KEPT_REPORTS} runs whose full reports are kept: its diagnostics are gone`);
        const diagnostics = diagnosticsOf(found.report, runId, limit);
        send(res, 200, { agent_url: agent.url, run_id: String(runId), count: diagnostics.length, diagnostics });
      },
    },
  ];
}
