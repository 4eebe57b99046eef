/**
 * Renderings of a run diff (harness/core/engine/run-diff.ts) for `proto-comply diff`: console
 * text, GitHub Markdown and JSON. Every value read from a report (check ids, messages, agent
 * URLs, versions) is agent- or file-controlled: on the console it goes through `oneLine`
 * (text.ts: no control characters, ANSI/C1 escapes or bidi overrides reach the terminal), in
 * Markdown through `md` (markdown.ts: escaped as in `summary --format md`), in JSON through
 * `sanitizeText` / `oneLine` as well, since JSON escapes C0 controls but not C1 or bidi ones.
 */
import type { CheckResult, RunResult } from '../harness/core/engine/result.js';
import type { OutcomeChange, RunDiff } from '../harness/core/engine/run-diff.js';
import { checkKey } from '../harness/core/engine/run-diff.js';
import { md } from './markdown.js';
import { oneLine, sanitizeText } from './text.js';

/** The two reports as the command line named them, and the diff. */
export interface DiffInput {
  before: { file: string; run: RunResult };
  after: { file: string; run: RunResult };
  diff: RunDiff;
}

export interface DiffRenderOptions {
  /** Rows listed per section of changed / added / removed checks before "… N more" (regressed and fixed are listed in full). Default 50. */
  maxRows?: number;
}

const SECTIONS = ['regressed', 'fixed', 'changed', 'added', 'removed'] as const;
type Section = (typeof SECTIONS)[number];

const TITLES: Record<Section, string> = {
  regressed: 'Regressed',
  fixed: 'Fixed',
  changed: 'Changed',
  added: 'Added (only in the after run)',
  removed: 'Removed (only in the before run)',
};

const MARKS: Record<Section, string> = { regressed: '✗', fixed: '✓', changed: '·', added: '+', removed: '-' };

function index(run: RunResult): Map<string, CheckResult> {
  const map = new Map<string, CheckResult>();
  for (const c of run.checks) {
    const key = checkKey(c.check_id, c.transport);
    if (!map.has(key)) map.set(key, c);
  }
  return map;
}

/** The message of the check as the run that has it last tells it (after; before for a removed check), or its first note. */
function messageOf(change: OutcomeChange, after: Map<string, CheckResult>, before: Map<string, CheckResult>): string {
  const key = checkKey(change.check, change.transport);
  const check = change.after === null ? before.get(key) : after.get(key);
  if (!check) return '';
  return check.message || check.evidence?.notes?.[0] || '';
}

function counts(diff: RunDiff): Record<Section, number> {
  return Object.fromEntries(SECTIONS.map((s) => [s, diff[s].length])) as Record<Section, number>;
}

function tally(diff: RunDiff): string {
  const c = counts(diff);
  return `${c.regressed} regressed, ${c.fixed} fixed, ${c.changed} changed, ${c.added} added, ${c.removed} removed (${diff.compared} check results in both runs; judged ${diff.strict ? 'strict: a SHOULD warning fails' : 'not strict'})`;
}

function runLine(file: string, run: RunResult): string {
  return `${oneLine(file, 200)}: ${oneLine(run.overall_status, 40)}, finished ${oneLine(run.finished_at ?? '?', 40)}, ${oneLine(run.agent_url, 200)}`;
}

function transitionText(change: OutcomeChange): string {
  if (change.before === null) return oneLine(String(change.after), 30);
  if (change.after === null) return `was ${oneLine(String(change.before), 30)}`;
  return `${oneLine(change.before, 30)} → ${oneLine(change.after, 30)}`;
}

/** The console text: the two runs, warnings, counts, then each section (empty ones left out). */
export function renderDiffText(input: DiffInput, options: DiffRenderOptions = {}): string {
  const max = options.maxRows ?? 50;
  const { diff } = input;
  const after = index(input.after.run);
  const before = index(input.before.run);
  const lines = ['proto-comply diff', `  before  ${runLine(input.before.file, input.before.run)}`, `  after   ${runLine(input.after.file, input.after.run)}`];
  for (const w of diff.warnings) lines.push(`warning: not like for like: ${oneLine(w, 400)}`);
  lines.push('', tally(diff));
  for (const section of SECTIONS) {
    const list = diff[section];
    if (list.length === 0) continue;
    const cap = section === 'regressed' || section === 'fixed' ? list.length : max;
    lines.push('', `${TITLES[section]} (${list.length}):`);
    for (const change of list.slice(0, cap)) {
      const message = messageOf(change, after, before);
      lines.push(
        `  ${MARKS[section]} ${oneLine(change.check, 160)} [${oneLine(change.transport, 10)}]: ${transitionText(change)}${message ? ` — ${oneLine(message, 200)}` : ''}`,
      );
    }
    if (list.length > cap) lines.push(`  … and ${list.length - cap} more (--format json lists them all)`);
  }
  lines.push('', diff.regressed.length ? `Verdict: ${diff.regressed.length} regression${diff.regressed.length === 1 ? '' : 's'}` : 'Verdict: no regressions');
  return `${lines.join('\n')}\n`;
}

/** GitHub Markdown, for `$GITHUB_STEP_SUMMARY` or a pull-request comment. */
export function renderDiffMarkdown(input: DiffInput, options: DiffRenderOptions = {}): string {
  const max = options.maxRows ?? 50;
  const { diff } = input;
  const after = index(input.after.run);
  const before = index(input.before.run);
  const verdict = diff.regressed.length ? `❌ ${diff.regressed.length} regression${diff.regressed.length === 1 ? '' : 's'}` : '✅ no regressions';
  const out = [
    `## proto-comply diff: ${verdict}`,
    '',
    `- **Before:** ${md(input.before.file, 200)}: ${md(input.before.run.overall_status, 40)}, finished ${md(input.before.run.finished_at ?? '?', 40)}, ${md(input.before.run.agent_url, 200)}`,
    `- **After:** ${md(input.after.file, 200)}: ${md(input.after.run.overall_status, 40)}, finished ${md(input.after.run.finished_at ?? '?', 40)}, ${md(input.after.run.agent_url, 200)}`,
    ...diff.warnings.map((w) => `- ⚠️ **Not like for like:** ${md(w, 400)}`),
    '',
    tally(diff),
  ];
  for (const section of SECTIONS) {
    const list = diff[section];
    if (list.length === 0) continue;
    const cap = section === 'regressed' || section === 'fixed' ? Math.max(max, 200) : max;
    out.push('', `### ${TITLES[section]} (${list.length})`, '', '| Check | Transport | Before | After | Message |', '| --- | --- | --- | --- | --- |');
    for (const change of list.slice(0, cap)) {
      const message = messageOf(change, after, before);
      out.push(
        `| ${md(change.check, 160)} | ${md(change.transport, 10)} | ${change.before === null ? '—' : md(change.before, 30)} | ${change.after === null ? '—' : md(change.after, 30)} | ${md(message, 200)} |`,
      );
    }
    if (list.length > cap) out.push('', `… and ${list.length - cap} more (\`--format json\` lists them all)`);
  }
  return `${out.join('\n')}\n`;
}

/** The JSON document: both runs' facts, warnings, counts and every change with its message. */
export function buildDiffJson(input: DiffInput): Record<string, unknown> {
  const { diff } = input;
  const after = index(input.after.run);
  const before = index(input.before.run);
  const side = (s: DiffInput['before']) => ({
    file: sanitizeText(s.file),
    agent_url: sanitizeText(s.run.agent_url),
    overall_status: s.run.overall_status,
    finished_at: s.run.finished_at,
    harness_version: sanitizeText(s.run.harness?.version ?? ''),
  });
  const entries = (section: Section) =>
    diff[section].map((c) => ({
      check: sanitizeText(c.check),
      transport: sanitizeText(c.transport),
      before: c.before === null ? null : sanitizeText(c.before),
      after: c.after === null ? null : sanitizeText(c.after),
      message: oneLine(messageOf(c, after, before), 300),
    }));
  return {
    before: side(input.before),
    after: side(input.after),
    strict: diff.strict,
    compared: diff.compared,
    warnings: diff.warnings.map((w) => oneLine(w, 400)),
    counts: counts(diff),
    ...Object.fromEntries(SECTIONS.map((s) => [s, entries(s)])),
  };
}

export function renderDiffJson(input: DiffInput): string {
  return `${JSON.stringify(buildDiffJson(input), null, 2)}\n`;
}
