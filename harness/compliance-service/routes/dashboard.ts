/**
 * The operator dashboard (HTML, public; the owner's parts are fetched by its script with a key):
 *
 *   GET /                          the fleet
 *   GET /agents/{encodedUrl}       one agent: standing, badges, history with what flipped
 *   GET /dashboard.css, /dashboard.js   its stylesheet and script
 *
 * Every page has a CSP allowing only this origin's stylesheet, script and API (dashboard/pages.ts).
 */
import type { ServerResponse } from 'node:http';
import { badgesOf } from '../badges.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from '../dashboard/assets.js';
import { agentPage, DASHBOARD_CSP, type FleetRow, fleetPage } from '../dashboard/pages.js';
import { complianceDetailView } from '../detail-view.js';
import { flipsOf } from '../history-flips.js';
import { agentOr404 } from '../http/agent-param.js';
import { sendRaw } from '../http/respond.js';
import type { Route } from '../http/router.js';
import { streakDays } from '../standing.js';
import type { AgentRow } from '../types.js';
import type { ServiceContext } from './context.js';

/** Rows of the fleet page (a larger fleet is cut, and the page says so through its counts). */
export const MAX_FLEET_ROWS = 2_000;
const HISTORY_SHOWN = 30;

const htmlPage = (res: ServerResponse, body: string) =>
  sendRaw(res, 200, 'text/html; charset=utf-8', body, {
    'content-security-policy': DASHBOARD_CSP,
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  });

export function dashboardRoutes(s: ServiceContext): Route[] {
  const badges = async (agent: AgentRow) => {
    const passed = await s.store.lastPassingRun(agent.url);
    const versions = passed?.summary ? { line: passed.summary.requested_compliance_target, version: passed.summary.proto_version } : undefined;
    return badgesOf(agent, versions, s.now(), s.badgePolicy);
  };
  return [
    {
      method: 'GET',
      path: '/',
      access: 'public',
      summary: 'The operator dashboard: the fleet',
      handle: async ({ res }) => {
        const agents = (await s.store.listAgents()).slice(0, MAX_FLEET_ROWS);
        const rows: FleetRow[] = [];
        for (const agent of agents) rows.push({ agent, badges: await badges(agent), streakDays: streakDays(agent.passingSince, s.now()) });
        htmlPage(res, fleetPage(rows, await s.store.counts()));
      },
    },
    {
      method: 'GET',
      path: '/agents/{encodedUrl}',
      access: 'public',
      summary: "The operator dashboard: one agent's standing, badges and history",
      handle: async ({ res, params }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const [report, runs] = await Promise.all([s.store.latestReport(agent.url), s.store.history(agent.url, HISTORY_SHOWN + 1)]);
        const detail = complianceDetailView({ agent, report, recent: runs, owner: false, now: s.now(), serviceIntervalMs: s.intervalMs });
        htmlPage(res, agentPage({ agent, detail, runs: runs.slice(0, HISTORY_SHOWN), flips: flipsOf(runs), badges: await badges(agent) }));
      },
    },
    {
      method: 'GET',
      path: '/dashboard.css',
      access: 'public',
      summary: "The dashboard's stylesheet",
      handle: ({ res }) => sendRaw(res, 200, 'text/css; charset=utf-8', DASHBOARD_CSS, { 'cache-control': 'no-cache' }),
    },
    {
      method: 'GET',
      path: '/dashboard.js',
      access: 'public',
      summary: "The dashboard's script",
      handle: ({ res }) => sendRaw(res, 200, 'text/javascript; charset=utf-8', DASHBOARD_JS, { 'cache-control': 'no-cache' }),
    },
  ];
}
