/**
 * `report.html`: one self-contained page (inline CSS and a small inline script carrying a
 * CSP nonce; no network, no external fonts or scripts). Headline and verdict, the run's facts
 * and reproduce command, transports, a suite × transport matrix, then the checks grouped by
 * level (MUST failures first), each check's transports side by side with differing verdicts
 * flagged, every non-pass expandable to its evidence. Outcome filters are checkboxes driven by
 * the script; without script the filters stay hidden and every row is shown.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CheckResult, OutcomeCounts, RunResult, SuiteResult } from '../harness/core/engine/result.js';
import { writeFileAtomic } from './fs.js';
import { REPORT_CSS, REPORT_SCRIPT } from './html-assets.js';
import { evidenceHtml } from './html-evidence.js';
import { SafeHtml, html } from './html-escape.js';
import { formatDuration, specRefText } from './text.js';
import { blockedLine, gapLine } from '../harness/core/engine/summarize.js';
import {
  DISPLAY_OUTCOMES,
  OTHER_FACE,
  coverageText,
  defectGroups,
  defectHeadline,
  displayOutcome,
  groupsByLevel,
  interpretationText,
  otherFace,
  outcomeLabel,
  rootCauseNote,
  targetText,
} from './view.js';
import type { CheckGroup, DisplayOutcome } from './view.js';

export const HTML_FILE = 'report.html';

export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'`;
}

function countsLine(counts: OutcomeCounts): string {
  return (Object.entries(counts) as Array<[string, number]>)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${n} ${o.replaceAll('_', ' ')}`)
    .join(' · ');
}

function header(run: RunResult): SafeHtml {
  return html`<header>
<h1>Compliance report <span class="badge big v-${run.overall_status}" id="overall-status">${run.overall_status.replace('_', ' ')}</span></h1>
<p class="agent">Agent: <code id="agent-url">${run.agent_url}</code></p>
<p id="headline"><strong>${run.headline}</strong></p>
<p id="coverage"><span class="badge ${run.coverage.complete ? 'o-pass' : 'o-warn'}">coverage ${run.coverage.complete ? 'complete' : 'incomplete'}</span> ${coverageText(run)}</p>
<p id="target" data-target="${run.target.requested_compliance_target}">Judged against ${targetText(run)}</p>
</header>`;
}

/** Failures that share a root cause, one item per defect. */
function defects(run: RunResult): SafeHtml {
  const groups = defectGroups(run);
  if (groups.length === 0) return html``;
  return html`<section id="defects"><h2>Failures by defect</h2><ul>
${groups.map(
  (g) => html`<li class="defect" data-root="${g.root}"><span class="badge o-fail">defect</span> ${defectHeadline(g)}: <span class="message">${g.message}</span>
<details><summary>${g.failing.length} more failing${g.blocked.length ? `, ${g.blocked.length} blocked` : ''}</summary><code>${g.failing.join(', ')}</code>${
    g.blocked.length ? html`<br>blocked: <code>${g.blocked.join(', ')}</code>` : ''
  }</details></li>`,
)}</ul></section>`;
}

/** Each blocked cascade and each coverage gap as one line, with the checks it covers. */
function notVerified(run: RunResult): SafeHtml {
  const { blocked, gaps } = run.coverage;
  if (blocked.length === 0 && gaps.length === 0) return html``;
  return html`<section id="not-verified"><h2>Not verified</h2><ul>
${blocked.map(
  (
    g,
  ) => html`<li class="blocked" data-blocked-by="${g.blocked_by}" data-transport="${g.transport}"><span class="badge o-blocked">blocked</span> ${blockedLine(g)}
<details><summary>${g.check_ids.length} checks</summary><code>${g.check_ids.join(', ')}</code></details></li>`,
)}
${gaps.map(
  (g) => html`<li class="gap" data-gap="${g.gap}"><span class="badge o-gap">gap</span> ${gapLine(g)}
<details><summary>${g.check_ids.length} checks</summary><code>${g.check_ids.join(', ')}</code></details></li>`,
)}</ul></section>`;
}

function facts(run: RunResult): SafeHtml {
  const sel = run.selection;
  return html`<section id="run"><h2>Run</h2><dl class="facts">
<dt>Harness</dt><dd>${run.harness.name} ${run.harness.version}</dd>
<dt>Token</dt><dd><code>${run.token}</code></dd>
<dt>Transports</dt><dd>${run.transports.join(', ')}</dd>
<dt>Target</dt><dd>${targetText(run)}</dd>
<dt>Seed</dt><dd><code id="seed">${run.seed}</code></dd>
<dt>Started</dt><dd>${run.started_at}</dd>
<dt>Finished</dt><dd>${run.finished_at} (${formatDuration(run.duration_ms)})</dd>
<dt>Selection</dt><dd>suites ${sel.suites.length ? sel.suites.join(', ') : 'all'}${sel.check_glob ? html`, checks <code>${sel.check_glob}</code>` : ''}${
    sel.budget_s !== undefined ? `, budget ${sel.budget_s} s` : ''
  }${sel.strict ? ', strict' : ''}</dd>
<dt>Results</dt><dd>${run.checks.length} (${countsLine(run.counts)})</dd>
</dl>
<h3>Reproduce</h3><pre id="command"><code>${run.command}</code></pre>
</section>`;
}

function transports(run: RunResult): SafeHtml {
  if (run.transport_info.length === 0) return html``;
  return html`<section id="transports"><h2>Transports</h2><table>
<thead><tr><th>Transport</th><th>Endpoint</th><th>State</th><th>Server</th><th>Declared tasks</th><th>Problem</th></tr></thead>
<tbody>${run.transport_info.map(
    (t) => html`<tr data-transport="${t.transport}"><td>${t.transport}</td><td><code>${t.endpoint}</code></td>
<td>${t.reachable ? (t.auth_required ? 'auth required' : 'reachable') : 'unreachable'}${
      t.sessions_opened !== undefined ? html`<br><small>sessions opened: ${t.sessions_opened}</small>` : ''
    }</td><td>${t.server ?? ''}</td><td>${
      t.declared_tasks.length
        ? html`<details><summary>${t.declared_tasks.length} tasks</summary><ul>${t.declared_tasks.map(
            (name) => html`<li><code>${name}</code></li>`,
          )}</ul></details>`
        : 'none'
    }</td><td>${t.problem ?? ''}</td></tr>`,
  )}</tbody></table></section>`;
}

function matrixRow(run: RunResult, suite: SuiteResult): SafeHtml {
  const statuses = run.transports.map((t) => suite.by_transport[t]?.status ?? (otherFace(suite, t) ? 'other_face' : 'untested'));
  const differs = new Set(statuses.filter((s) => s !== 'other_face')).size > 1;
  return html`<tr data-suite="${suite.suite_id}"><th scope="row"><code>${suite.suite_id}</code><br><small>${suite.title}</small></th>
<td class="overall s-${suite.status}" data-status="${suite.status}">${suite.status.replace('_', ' ')}${
    differs ? html` <span class="differs" title="transports disagree">≠</span>` : ''
  }${suite.first_failure ? html`<br><small>first failure: <code>${suite.first_failure.check_id}</code> [${suite.first_failure.transport}]</small>` : ''}</td>
${run.transports.map((t, i) => {
  const s = suite.by_transport[t];
  return html`<td class="cell s-${statuses[i]}" data-suite="${suite.suite_id}" data-transport="${t}" data-status="${statuses[i]}"><span class="status">${statuses[i] === 'other_face' ? OTHER_FACE : statuses[i].replace('_', ' ')}</span>${
    s ? html`<span class="counts">${countsLine(s.counts)}</span>` : ''
  }</td>`;
})}</tr>`;
}

function matrix(run: RunResult): SafeHtml {
  return html`<section id="matrix"><h2>Suites × transports</h2><table>
<thead><tr><th>Suite</th><th>Overall</th>${run.transports.map((t) => html`<th>${t}</th>`)}</tr></thead>
<tbody>${run.suites.map((s) => matrixRow(run, s))}</tbody></table></section>`;
}

function resultRow(check: CheckResult): SafeHtml {
  const outcome = displayOutcome(check);
  const must = check.level === 'MUST' ? ' must' : '';
  return html`<tr class="result" data-outcome="${outcome}" data-transport="${check.transport}">
<td>${check.transport}</td>
<td><span class="badge o-${outcome}${must}">${outcomeLabel(outcome)}</span>${check.baselined ? html` <small>baselined</small>` : ''}</td>
<td>${formatDuration(check.duration_ms)}</td>
<td><span class="message">${check.message}</span>${rootCauseNote(check) ? html` <small class="root-cause">(${rootCauseNote(check)})</small>` : ''}${
    check.evidence ? evidenceHtml(check.evidence) : ''
  }</td></tr>`;
}

function groupBody(group: CheckGroup): SafeHtml {
  return html`<tbody class="group" data-check="${group.check_id}"><tr class="group-head"><th colspan="4">
<span class="id">${group.check_id}</span> ${group.title} <small>${group.level} · ${specRefText(group.spec_ref)} · suite ${group.suite_id}</small>${
    group.differs ? html` <span class="differs" title="transports disagree">≠ transports disagree</span>` : ''
  }${interpretationText(group.results[0]!) ? html`<br><small class="interpretation">${interpretationText(group.results[0]!)}</small>` : ''}</th></tr>
${group.results.map(resultRow)}</tbody>`;
}

function levelSection(level: string, groups: CheckGroup[]): SafeHtml {
  const failing = groups.filter((g) => g.failing).length;
  return html`<section class="level" id="level-${level}"><h2>${level} <small>${groups.length} checks, ${failing} failing</small></h2>
${
  groups.length === 0
    ? html`<p class="muted">No ${level} checks in this run.</p>`
    : html`<table class="checks">
<thead><tr><th>Transport</th><th>Outcome</th><th>Time</th><th>Message and evidence</th></tr></thead>
${groups.map(groupBody)}</table><p class="muted filtered-out" hidden>All ${level} results are hidden by the filters.</p>`
}
</section>`;
}

function baselineSection(run: RunResult): SafeHtml {
  const b = run.baseline;
  if (!b) return html``;
  const label: Record<string, string> = { expected: 'expected (still fails)', stale: 'stale (no longer fails: remove it)', unused: 'unused (not run)' };
  const badge: Record<string, string> = { expected: 'o-not_applicable', stale: 'o-fail', unused: 'o-not_run' };
  return html`<section id="baseline"><h2>Baseline <small><code>${b.file}</code></small></h2><table>
<thead><tr><th>Check</th><th>Transport</th><th>Status</th><th>Excused results</th><th>Reason</th></tr></thead>
<tbody>${b.entries.map(
    (e) => html`<tr class="baseline-entry" data-status="${e.status}"><td><code>${e.check_id}</code></td><td>${e.transport ?? 'all'}</td>
<td><span class="badge ${badge[e.status]}">${label[e.status]}</span></td><td>${e.matched}</td><td>${e.reason}</td></tr>`,
  )}</tbody></table></section>`;
}

/** A proxy report with `--inject`: the faults the proxy injected into the relayed traffic. */
function injectedSection(run: RunResult): SafeHtml {
  const inj = run.injected;
  if (!inj) return html``;
  return html`<section id="injected"><h2>Injected faults <small>${inj.total} in all, seed ${inj.seed}</small></h2><table>
<thead><tr><th>Rule</th><th>Injected</th></tr></thead>
<tbody>${inj.rules.map((r) => html`<tr class="injected-rule"><td><code>${r}</code></td><td>${inj.by_rule[r] ?? 0}</td></tr>`)}</tbody></table>
<table><thead><tr><th>Exchange</th><th>At</th><th>Rule</th><th>What was done</th></tr></thead>
<tbody>${inj.faults.map((f) => html`<tr class="injected-fault"><td>${f.seq}</td><td>${f.at}</td><td><code>${f.rule}</code></td><td>${f.what}</td></tr>`)}</tbody></table></section>`;
}

function filters(run: RunResult): SafeHtml {
  const counts = new Map<DisplayOutcome, number>();
  for (const c of run.checks) counts.set(displayOutcome(c), (counts.get(displayOutcome(c)) ?? 0) + 1);
  return html`<div id="filters" hidden><strong>Show:</strong>${DISPLAY_OUTCOMES.filter((o) => counts.has(o)).map(
    (o) => html`<label><input type="checkbox" data-filter="${o}" checked> <span class="badge o-${o}">${outcomeLabel(o)}</span> ${counts.get(o)}</label>`,
  )}</div>`;
}

/** The whole page. `nonce` defaults to 16 random bytes (a fresh CSP nonce per render). */
export function renderHtml(run: RunResult, options: { nonce?: string } = {}): string {
  const nonce = options.nonce ?? randomBytes(16).toString('base64');
  const levels = groupsByLevel(run);
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${run.harness.name}: ${run.overall_status} — ${run.agent_url}</title>
<style>${new SafeHtml(REPORT_CSS)}</style>
</head>
<body>
${header(run)}
<nav>${levels.map((l) => html`<a href="#level-${l.level}">${l.level}</a>`)}<a href="#matrix">Suites</a>${run.baseline ? html`<a href="#baseline">Baseline</a>` : ''}${run.injected ? html`<a href="#injected">Injected faults</a>` : ''}<a href="#run">Run</a></nav>
${matrix(run)}
${defects(run)}
${notVerified(run)}
<section id="checks"><h2>Checks</h2>${filters(run)}
${levels.map((l) => levelSection(l.level, l.groups))}</section>
${baselineSection(run)}
${injectedSection(run)}
${facts(run)}
${transports(run)}
<footer>Generated by ${run.harness.name} ${run.harness.version}. Agent-supplied text is shown escaped; nothing in this page loads from the network.</footer>
<script nonce="${nonce}">${new SafeHtml(REPORT_SCRIPT)}</script>
</body>
</html>
`;
  return page.value;
}

/** Writes `<dir>/report.html` and returns its path. */
export async function writeHtml(run: RunResult, dir: string): Promise<string> {
  const path = join(dir, HTML_FILE);
  await writeFileAtomic(path, renderHtml(run));
  return path;
}
