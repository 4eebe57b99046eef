/**
 * An agent's compliance: its detail, its run history, its latest full report and its status badge.
 *
 *   GET /api/registry/agents/{encodedUrl}/compliance          AgentComplianceDetail (digest 6.3, detail-view.ts) + previous status, failing checks
 *   GET /api/registry/agents/{encodedUrl}/compliance/history  ?limit (default 30, max 100): {agent_url, runs[], count}
 *   GET /api/registry/agents/{encodedUrl}/compliance/report   the latest full agent-compliance report (owner only)
 *   GET /api/registry/agents/{encodedUrl}/badge.svg           status badge
 */
import { renderAgentComplianceJson } from '../../../reports/json.js';
import { badgeSvg } from '../badge.js';
import { agentOr404 } from '../http/agent-param.js';
import { HttpError, intParam, send, sendRaw } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { complianceDetailView } from '../detail-view.js';
import type { RunRow } from '../types.js';
import { flipsOf } from '../history-flips.js';

/** Runs read past the page so its oldest entry still finds the full run before it. */
const HISTORY_LOOKBACK = 10;
import { owns, requireOwner } from '../http/callers.js';
import type { ServiceContext } from './context.js';

export const MAX_HISTORY = 100;

/** A history entry: the digest's `ComplianceRun` (from the run's kept summary) and our state, status and failing check ids. */
function complianceRun(r: RunRow): Record<string, unknown> {
  const tracks = Object.values(r.summary?.tracks ?? {});
  const count = (status: string) => tracks.filter((t) => t === status).length;
  return {
    id: r.id,
    ...(r.summary ? { requested_compliance_target: r.summary.requested_compliance_target, proto_version: r.summary.proto_version } : {}),
    state: r.state,
    overall_status: r.overallStatus ?? null,
    status: r.status ?? null,
    headline: r.headline ?? null,
    tracks_passed: count('pass'),
    tracks_failed: count('fail'),
    tracks_skipped: count('skip'),
    tracks_partial: count('partial'),
    tracks_json: r.summary?.tracks ?? {},
    failing_checks: r.failingChecks,
    total_duration_ms: r.durationMs ?? null,
    triggered_by: r.triggeredBy,
    tested_at: r.startedAt,
    ...(r.finishedAt ? { finished_at: r.finishedAt } : {}),
  };
}

export function complianceRoutes(s: ServiceContext): Route[] {
  const base = '/api/registry/agents/{encodedUrl}';
  return [
    {
      method: 'GET',
      path: `${base}/compliance`,
      access: 'public',
      summary: "The agent's compliance detail (AgentComplianceDetail)",
      handle: async ({ res, params, caller }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const [report, recent] = await Promise.all([s.store.latestReport(agent.url), s.store.history(agent.url, 5)]);
        send(res, 200, complianceDetailView({ agent, report, recent, owner: owns(caller, agent.owner), now: s.now(), serviceIntervalMs: s.intervalMs }));
      },
    },
    {
      method: 'GET',
      path: `${base}/compliance/history`,
      access: 'public',
      summary: "The agent's runs, newest first",
      handle: async ({ res, params, url }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const limit = intParam(url.searchParams, 'limit', 30, MAX_HISTORY);
        // A few runs more than shown: the last one shown is compared with the full run before it.
        const fetched = await s.store.history(agent.url, limit + HISTORY_LOOKBACK);
        const flips = flipsOf(fetched);
        const runs = fetched.slice(0, limit);
        send(res, 200, {
          agent_url: agent.url,
          runs: runs.map((r) => ({ ...complianceRun(r), changes_since_previous: flips.get(r.id) ?? null })),
          count: runs.length,
        });
      },
    },
    {
      method: 'GET',
      path: `${base}/compliance/report`,
      access: 'owner',
      summary: "The agent's latest full agent-compliance report (owner only: it holds the requests and responses)",
      handle: async ({ res, params, caller }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        requireOwner(caller, agent.owner, agent.url);
        const report = await s.store.latestReport(agent.url);
        if (!report) throw new HttpError(404, `agent ${agent.url} has no finished run yet`);
        // The document `run` writes as agent-compliance.json (the run and its compliance detail).
        sendRaw(res, 200, 'application/json; charset=utf-8', renderAgentComplianceJson(report));
      },
    },
    {
      method: 'GET',
      path: `${base}/badge.svg`,
      access: 'public',
      summary: "The agent's status badge",
      handle: async ({ res, params }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        sendRaw(res, 200, 'image/svg+xml', badgeSvg(agent.status), { 'cache-control': 'no-cache' });
      },
    },
  ];
}
