/**
 * Evidence of one check as HTML: expected vs actual, the JSON pointer, notes, and each wire
 * exchange (request and response, headers and bodies) in its own `<details>`. Everything is
 * agent-controlled and goes through `html\`\`` escaping; bodies are shown verbatim (capped).
 */
import type { Evidence } from '../harness/core/engine/result.js';
import type { WireExchange } from '../harness/core/transport/types.js';
import { html } from './html-escape.js';
import type { SafeHtml } from './html-escape.js';
import { formatDuration, toJsonText, truncate } from './text.js';

/** Longest body or value shown in the page; the JSON report keeps everything recorded. */
export const HTML_BODY_CAP = 100_000;

function capped(text: string): { text: string; cut: boolean } {
  return text.length > HTML_BODY_CAP ? { text: truncate(text, HTML_BODY_CAP), cut: true } : { text, cut: false };
}

function block(text: string, truncatedOnWire = false): SafeHtml {
  const { text: shown, cut } = capped(text);
  return html`<pre>${shown}</pre>${cut ? html`<small>cut at ${HTML_BODY_CAP} characters in this page; agent-compliance.json has the recorded body</small>` : ''}${
    truncatedOnWire ? html`<small>body truncated when recorded</small>` : ''
  }`;
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

function exchangeSummary(ex: WireExchange): SafeHtml {
  const status = ex.response ? String(ex.response.status) : 'no response';
  return html`#${ex.seq} ${ex.transport} ${ex.purpose}: ${ex.request.method} ${ex.request.url} → ${status} (${formatDuration(ex.duration_ms)})`;
}

function exchange(ex: WireExchange): SafeHtml {
  const req = ex.request;
  const res = ex.response;
  return html`<details class="exchange"><summary>${exchangeSummary(ex)}</summary>
<h4>Request <small>${ex.started_at}</small></h4>${block(`${req.method} ${req.url}\n${headerLines(req.headers)}\n\n${req.body}`, req.body_truncated)}
${res ? html`<h4>Response</h4>${block(`${res.status}\n${headerLines(res.headers)}\n\n${res.body}`, res.body_truncated)}` : ''}
${ex.error ? html`<h4>Error</h4>${block(ex.error)}` : ''}
</details>`;
}

export function evidenceHtml(evidence: Evidence): SafeHtml {
  const parts: SafeHtml[] = [];
  if (evidence.expected !== undefined) parts.push(html`<h4>Expected</h4>${block(toJsonText(evidence.expected))}`);
  if (evidence.actual !== undefined) parts.push(html`<h4>Actual</h4>${block(toJsonText(evidence.actual))}`);
  if (evidence.pointer !== undefined) {
    parts.push(html`<h4>JSON pointer</h4><code>${evidence.pointer === '' ? '(whole document)' : evidence.pointer}</code>`);
  }
  if (evidence.notes && evidence.notes.length > 0) {
    parts.push(html`<h4>Notes</h4><ul>${evidence.notes.map((n) => html`<li>${n}</li>`)}</ul>`);
  }
  if (evidence.exchanges.length > 0) {
    parts.push(html`<h4>Exchanges (${evidence.exchanges.length})</h4>${evidence.exchanges.map(exchange)}`);
  }
  if (parts.length === 0) parts.push(html`<p class="muted">No exchanges or values were recorded for this check.</p>`);
  return html`<details class="evidence"><summary>evidence</summary>${parts}</details>`;
}
