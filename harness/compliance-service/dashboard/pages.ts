/**
 * The operator dashboard's pages, rendered on the server with the report's escaping template
 * (reports/html-escape.ts: every value lands as text): the fleet at `/` (status, streak, last
 * checked, badges, next probe) and one page per agent (its standing, badges, history with what
 * flipped, and for a key holder its latest diagnostics, report and the requeue / pause buttons,
 * loaded by dashboard.js from the API).
 */
import { html, type SafeHtml } from '../../../reports/html-escape.js';
import type { Badge } from '../badges.js';
import type { Flips } from '../history-flips.js';
import type { AgentRow, RunRow } from '../types.js';

export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const agentHref = (url: string) => `/agents/${encodeURIComponent(url)}`;
const when = (iso: string | undefined | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');

function page(title: string, body: SafeHtml, agentAttr?: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/dashboard.css"></head>
<body${agentAttr ? html` data-agent="${agentAttr}"` : ''}>
<form id="key-form" class="key-bar" action="#"><span class="no-key">Key holders:</span>
<span class="no-key"><input id="key" type="password" autocomplete="off" placeholder="API key" aria-label="API key"> <button type="submit" id="use-key">Use key</button></span>
<span class="owner">Key in use (this tab only) <button type="button" id="forget-key">Forget key</button></span></form>
${body}
<script src="/dashboard.js"></script></body></html>`.value;
}

function badgeList(badges: readonly Badge[]): SafeHtml {
  if (!badges.length) return html`<span class="none">none</span>`;
  return html`${badges.map((b) => html`<span class="badge state-${b.state}" data-role="${b.role}">${b.role} ${b.proto_version} (${b.state})</span> `)}`;
}

export interface FleetRow {
  agent: AgentRow;
  badges: Badge[];
  streakDays: number;
}

export function fleetPage(rows: readonly FleetRow[], counts: Record<string, number>): string {
  return page(
    'Agent Compliance — fleet',
    html`<h1>Agent Compliance</h1>
<p id="counts">${rows.length} agent(s): ${counts.passing ?? 0} passing, ${counts.degraded ?? 0} degraded, ${counts.failing ?? 0} failing, ${counts.unknown ?? 0} unknown.</p>
<table id="fleet"><thead><tr><th>Agent</th><th>Status</th><th>Streak (days)</th><th>Last checked</th><th>Badges</th><th>Next probe</th></tr></thead><tbody>
${rows.map(
  ({ agent: a, badges, streakDays }) => html`<tr data-agent-url="${a.url}"><td class="url"><a href="${agentHref(a.url)}">${a.url}</a></td>
<td class="status status-${a.optOut ? 'opted_out' : a.status}">${a.optOut ? 'opted out' : a.status}</td><td>${streakDays}</td><td>${when(a.lastCheckedAt)}</td>
<td>${badgeList(badges)}</td><td>${a.monitoringPaused ? 'paused' : a.optOut ? '—' : when(new Date(a.nextDueAt).toISOString())}</td></tr>`,
)}
</tbody></table>`,
  );
}

export interface AgentPageInput {
  agent: AgentRow;
  detail: Record<string, unknown>;
  runs: readonly RunRow[];
  flips: ReadonlyMap<number, Flips>;
  badges: readonly Badge[];
}

/** Lines shown per kind of flip; the rest are counted. */
const FLIPS_SHOWN = 20;

function flipLines(lines: readonly string[], cls: string, mark: string): SafeHtml {
  const more = lines.length - FLIPS_SHOWN;
  return html`${lines.slice(0, FLIPS_SHOWN).map((c) => html`<div class="${cls}">${mark} ${c}</div>`)}${more > 0 ? html`<div class="${cls}">… ${more} more</div>` : ''}`;
}

function flipCell(f: Flips | undefined): SafeHtml {
  if (!f) return html`<span class="none">—</span>`;
  if (!f.regressed.length && !f.fixed.length && !f.changed.length) return html`<span class="none">no change</span>`;
  return html`${flipLines(f.regressed, 'flip-regressed', '▼')}${flipLines(f.fixed, 'flip-fixed', '▲')}${flipLines(f.changed, 'flip-changed', '•')}`;
}

export function agentPage(i: AgentPageInput): string {
  const a = i.agent;
  const d = i.detail;
  return page(
    `Agent Compliance — ${a.url}`,
    html`<p><a href="/">← the fleet</a></p>
<h1 class="url" id="agent-url">${a.url}</h1>
<p>Status <span id="status" class="status status-${String(d.status)}">${String(d.status)}</span> · streak ${String(d.streak_days ?? 0)} day(s) ·
last checked ${when(a.lastCheckedAt)} · ${a.monitoringPaused ? 'monitoring paused' : html`next probe ${when(new Date(a.nextDueAt).toISOString())}`}</p>
<p id="headline">${String(d.headline ?? '')}</p>
<p>Badges: <span id="badges">${badgeList(i.badges)}</span></p>
<div class="owner" id="owner-actions"><button type="button" id="requeue">Requeue</button> <button type="button" id="pause">Pause monitoring</button>
<button type="button" id="resume">Resume monitoring</button> <span id="action-status" role="status"></span></div>
<h2>History</h2>
<table id="history"><thead><tr><th>Run</th><th>Tested at</th><th>Status</th><th>Triggered by</th><th>What flipped since the run before</th></tr></thead><tbody>
${i.runs.map(
  (
    r,
  ) => html`<tr data-run="${r.id}"><td>${r.id}</td><td>${when(r.startedAt)}</td><td class="status status-${r.status ?? 'unknown'}">${r.state === 'done' ? (r.status ?? '') : r.state}</td>
<td>${r.triggeredBy}</td><td class="flips">${flipCell(i.flips.get(r.id))}</td></tr>`,
)}
</tbody></table>
<div class="owner"><h2>Latest failures</h2><button type="button" id="load-diagnostics">Load diagnostics</button> <span id="diagnostics-status" role="status"></span>
<table id="diagnostics"><thead><tr><th>Step</th><th>Transport</th><th>Task</th><th>HTTP</th><th>Error</th><th>Failed validations</th></tr></thead><tbody id="diagnostics-body"></tbody></table>
<h2>Latest report</h2><button type="button" id="load-report">Load the latest report</button><pre id="report"></pre></div>
<p class="no-key">Diagnostics, the latest report and the monitoring buttons are for the agent's owner: enter a key above.</p>`,
    encodeURIComponent(a.url),
  );
}
