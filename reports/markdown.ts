/**
 * A GitHub-flavoured Markdown summary of a run, for `$GITHUB_STEP_SUMMARY` (or a pull-request
 * comment): verdict and headline, the suite × transport matrix, the findings per level (MUST,
 * SHOULD, MAY) with MCP next to A2A and differing verdicts flagged, the baseline's stale
 * entries, and the reproduce command.
 *
 * Agent-controlled text is made inert: one line (text.ts `oneLine`), then every character
 * Markdown or the HTML GitHub allows inside Markdown could interpret is escaped, so it can
 * neither break the tables nor add links, images or markup. The listing is capped
 * (`maxFindings` rows per level) because GitHub caps a step summary at 1 MiB.
 */
import type { CheckResult, RunResult } from '../harness/core/engine/result.js';
import { oneLine, specRefText } from './text.js';
import {
  OTHER_FACE,
  coverageText,
  defectGroups,
  defectHeadline,
  displayOutcome,
  groupsByLevel,
  hasFindings,
  interpretationText,
  otherFace,
  outcomeLabel,
  rootCauseNote,
  targetText,
} from './view.js';
import { blockedLine, gapLine } from '../harness/core/engine/summarize.js';
import type { CheckGroup } from './view.js';

export interface MarkdownOptions {
  /** Rows listed per level before "… N more". Default 50. */
  maxFindings?: number;
}

/** Escapes Markdown and HTML metacharacters of an already one-line text. */
export function mdEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~:@"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** `oneLine` + `mdEscape`. */
export function md(text: string, max = 300): string {
  return mdEscape(oneLine(text, max));
}

const VERDICT_ICON: Record<RunResult['overall_status'], string> = {
  passing: '✅',
  partial: '⚠️',
  failing: '❌',
  error: '💥',
  unreachable: '⛔',
  auth_required: '🔒',
};

function outcomeCell(check: CheckResult | undefined): string {
  if (!check) return '—';
  const outcome = displayOutcome(check);
  const icon = check.baselined ? '·' : outcome === 'pass' ? '✅' : outcome === 'fail' || outcome === 'error' ? '❌' : outcome === 'warn' ? '⚠️' : '·';
  return `${icon} ${outcomeLabel(outcome)}${check.baselined ? ' (baselined)' : ''}`;
}

function matrix(run: RunResult): string[] {
  const head = `| Suite | ${run.transports.join(' | ')} |`;
  const rule = `| --- |${run.transports.map(() => ' --- |').join('')}`;
  const rows = run.suites.map((s) => {
    const cells = run.transports.map((t) => {
      const sub = s.by_transport[t];
      if (!sub) return otherFace(s, t) ? OTHER_FACE : 'untested';
      const c = sub.counts;
      const tally = [
        c.pass && `${c.pass} pass`,
        c.fail && `${c.fail} fail`,
        c.error && `${c.error} error`,
        c.warn && `${c.warn} warn`,
        c.blocked && `${c.blocked} blocked`,
        c.gap && `${c.gap} gap`,
      ]
        .filter(Boolean)
        .join(', ');
      return `${sub.status.replace('_', ' ')}${tally ? ` (${tally})` : ''}`;
    });
    return `| ${md(s.suite_id, 80)} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows];
}

function message(group: CheckGroup): string {
  const problems = group.results.filter((c) => displayOutcome(c) !== 'pass' && c.outcome !== 'not_applicable');
  const lines = problems.map((c) => {
    const root = rootCauseNote(c);
    return `${c.transport}: ${md(c.message, 200)}${root ? ` <sub>(${md(root, 140)})</sub>` : ''}`;
  });
  const interpretation = interpretationText(group.results[0]!);
  if (interpretation) lines.push(`<sub>${md(interpretation, 600)}</sub>`);
  return lines.join('<br>');
}

/** One bullet per defect that fails several checks. */
function defectSection(run: RunResult): string[] {
  const groups = defectGroups(run);
  if (groups.length === 0) return [];
  return [
    '',
    '### Failures by defect',
    '',
    ...groups.map(
      (g) =>
        `- ✗ ${md(defectHeadline(g), 300)}: ${md(g.message, 240)}<br>also failing: ${md(g.failing.join(', '), 600)}${g.blocked.length ? `<br>blocked: ${md(g.blocked.join(', '), 600)}` : ''}`,
    ),
  ];
}

function levelSection(run: RunResult, level: string, groups: CheckGroup[], max: number): string[] {
  const detailed = groups.filter(hasFindings);
  const failing = detailed.filter((g) => g.failing).length;
  const lines = [``, `### ${level}: ${detailed.length === 0 ? 'no findings' : `${detailed.length} with findings, ${failing} failing the run`}`];
  if (detailed.length === 0) return lines;
  lines.push('', `| Check | ${run.transports.join(' | ')} | Message |`, `| --- |${run.transports.map(() => ' --- |').join('')} --- |`);
  for (const g of detailed.slice(0, max)) {
    const cells = run.transports.map((t) => outcomeCell(g.results.find((c) => c.transport === t)));
    const differs = g.differs ? ' ≠' : '';
    lines.push(
      `| ${md(g.check_id, 120)}${differs}<br><sub>${md(g.title, 120)} · ${md(specRefText(g.spec_ref), 80)}</sub> | ${cells.join(' | ')} | ${message(g)} |`,
    );
  }
  if (detailed.length > max) lines.push('', `… ${detailed.length - max} more in report.html`);
  return lines;
}

/** One line per blocked cascade and per coverage gap. */
function notVerifiedSection(run: RunResult): string[] {
  const { blocked, gaps } = run.coverage;
  if (blocked.length === 0 && gaps.length === 0) return [];
  return ['', '### Not verified', '', ...blocked.map((g) => `- ⊘ ${md(blockedLine(g), 400)}`), ...gaps.map((g) => `- ○ ${md(gapLine(g), 400)}`)];
}

function baselineSection(run: RunResult): string[] {
  const b = run.baseline;
  if (!b) return [];
  const count = (s: string) => b.entries.filter((e) => e.status === s).length;
  const lines = ['', `### Baseline ${md(b.file, 200)}`, '', `${count('expected')} expected, ${count('stale')} stale, ${count('unused')} unused entries.`];
  const stale = b.entries.filter((e) => e.status === 'stale');
  if (stale.length) {
    lines.push('', 'Stale entries (the check no longer fails; remove them from the baseline):', '');
    for (const e of stale) lines.push(`- ${md(e.check_id, 120)}${e.transport ? ` [${e.transport}]` : ''}: ${md(e.reason, 200)}`);
  }
  return lines;
}

/** The Markdown summary (ends with a newline). */
export function renderMarkdownSummary(run: RunResult, options: MarkdownOptions = {}): string {
  const max = options.maxFindings ?? 50;
  const status = run.overall_status.replace('_', ' ').toUpperCase();
  const lines = [
    `## ${VERDICT_ICON[run.overall_status]} proto-comply: ${status}${run.selection.strict ? ' (strict)' : ''}`,
    '',
    `**${md(run.headline, 600)}**`,
    '',
    `Agent ${md(run.agent_url, 200)} · ${run.transports.join(' + ')} · ${run.checks.length} results · seed ${md(run.seed, 40)}`,
    '',
    `Judged against ${md(targetText(run), 300)}`,
    '',
    `Coverage: ${md(coverageText(run), 400)}`,
    '',
    ...matrix(run),
    ...defectSection(run),
    ...notVerifiedSection(run),
  ];
  for (const { level, groups } of groupsByLevel(run)) lines.push(...levelSection(run, level, groups, max));
  lines.push(...baselineSection(run));
  lines.push('', '<details><summary>Reproduce</summary>', '', '```sh', oneLine(run.command, 2000).replace(/`/g, "'"), '```', '', '</details>', '');
  return lines.join('\n');
}
