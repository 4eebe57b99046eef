/**
 * Console output: a live progress reporter while checks finish, and the end-of-run summary.
 * Every piece of text goes through `oneLine` (text.ts), so agent text can neither move the
 * cursor, recolour the terminal (ANSI / C1 escapes) nor break lines.
 */
import { isFailing } from '../harness/core/engine/result.js';
import type { CheckResult, OutcomeCounts, RunResult } from '../harness/core/engine/result.js';
import { blockedLine, gapLine } from '../harness/core/engine/summarize.js';
import {
  DISPLAY_OUTCOMES,
  OTHER_FACE,
  coverageText,
  defectGroups,
  defectHeadline,
  displayOutcome,
  groupsByLevel,
  hasFindings,
  interpretationText,
  otherFace,
  rootCauseNote,
  targetText,
} from './view.js';
import type { DisplayOutcome } from './view.js';
import { formatDuration, oneLine, specRefText, truncate } from './text.js';
import { timingLine } from '../harness/core/engine/timing.js';

export interface ProgressOptions {
  out: NodeJS.WritableStream;
  /** Rewrite one status line in place (`\r`) instead of printing a line per check. */
  tty: boolean;
  /** Number of check × transport results expected. */
  total: number;
  /** Under --strict a warning fails the run and is printed like a failure. */
  strict?: boolean;
}

export interface Progress {
  onCheck(result: CheckResult): void;
  /** Ends the status line (TTY) or prints the closing tally. Idempotent. */
  done(): void;
}

export function outcomeTag(outcome: DisplayOutcome): string {
  return outcome.replaceAll('_', ' ').toUpperCase();
}

/** `FAIL a2a capabilities.version.declared (31 ms): message` (no message on passes). */
export function checkLine(check: CheckResult): string {
  const outcome = displayOutcome(check);
  const head = `${outcomeTag(outcome)} ${check.transport} ${oneLine(check.check_id, 120)} (${formatDuration(check.duration_ms)})`;
  return outcome === 'pass' ? head : `${head}: ${oneLine(check.message, 300)}`;
}

function tallyText(counts: Record<DisplayOutcome, number>, always: DisplayOutcome[] = []): string {
  return DISPLAY_OUTCOMES.filter((o) => counts[o] > 0 || always.includes(o))
    .map((o) => `${o.replaceAll('_', ' ')} ${counts[o]}`)
    .join(' · ');
}

export function createProgress(options: ProgressOptions): Progress {
  const { out, tty, total } = options;
  const strict = options.strict ?? false;
  const counts = Object.fromEntries(DISPLAY_OUTCOMES.map((o) => [o, 0])) as Record<DisplayOutcome, number>;
  let finished = 0;
  let lastWidth = 0;
  let closed = false;

  const status = (): string => `${finished}/${total} checks · ${tallyText(counts, ['pass', 'fail'])}`;
  const redraw = (): void => {
    // A line wider than the terminal would wrap and defeat the in-place rewrite.
    const columns = (out as { columns?: number }).columns;
    const line = columns && columns > 10 ? truncate(status(), columns - 1) : status();
    out.write(`\r${line}${' '.repeat(Math.max(0, lastWidth - line.length))}`);
    lastWidth = line.length;
  };
  const clear = (): void => {
    if (lastWidth > 0) out.write(`\r${' '.repeat(lastWidth)}\r`);
    lastWidth = 0;
  };

  return {
    onCheck(result: CheckResult): void {
      if (closed) return;
      finished += 1;
      counts[displayOutcome(result)] += 1;
      if (!tty) {
        out.write(`${checkLine(result)}\n`);
        return;
      }
      if (isFailing(result, strict)) {
        clear();
        out.write(`${checkLine(result)}\n`);
      }
      redraw();
    },
    done(): void {
      if (closed) return;
      closed = true;
      if (tty) {
        redraw();
        out.write('\n');
      } else {
        out.write(`${status()}\n`);
      }
    },
  };
}

function countsText(counts: OutcomeCounts | undefined): string {
  if (!counts) return '';
  return (Object.entries(counts) as Array<[string, number]>)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${n} ${o.replaceAll('_', ' ')}`)
    .join(', ');
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('   ')
      .trimEnd(),
  );
}

function suiteTable(run: RunResult): string[] {
  const rows: string[][] = [['suite', ...run.transports]];
  for (const suite of run.suites) {
    rows.push([
      oneLine(suite.suite_id, 60),
      ...run.transports.map((t) => {
        const s = suite.by_transport[t];
        if (!s) return otherFace(suite, t) ? OTHER_FACE : 'untested';
        return `${s.status.replaceAll('_', ' ')}${countsText(s.counts) ? ` (${countsText(s.counts)})` : ''}`;
      }),
    ]);
  }
  return table(rows);
}

function levelSections(run: RunResult): string[] {
  const lines: string[] = [];
  for (const { level, groups } of groupsByLevel(run, { onlyProblems: true })) {
    // Checks with findings (a failed rule, a harness error) are detailed; checks that were only not
    // verified are counted here and explained once per cause under "Not verified"; checks that are
    // only "not applicable" besides passes are named on one line.
    const detailed = groups.filter(hasFindings);
    const naOnly = groups.filter((g) => !hasFindings(g) && g.results.every((c) => c.outcome === 'pass' || c.outcome === 'not_applicable'));
    const unverified = groups.length - detailed.length - naOnly.length;
    const extra = [unverified ? `${unverified} not verified` : '', naOnly.length ? `${naOnly.length} not applicable` : ''].filter(Boolean).join(', ');
    lines.push('', `${level} (${detailed.length} with findings${extra ? `, ${extra}` : ''})`);
    if (detailed.length === 0) lines.push('  none');
    for (const group of detailed) {
      const mark = group.failing ? '✗' : group.rank <= 5 ? '!' : '·';
      const differs = group.differs ? '  ≠ transports disagree' : '';
      lines.push(`  ${mark} ${oneLine(group.check_id, 120)}: ${oneLine(group.title, 120)} [${specRefText(group.spec_ref)}]${differs}`);
      for (const c of group.results) {
        if (c.outcome === 'blocked') {
          lines.push(`      ${c.transport.padEnd(4)}${'BLOCKED'.padEnd(17)} by ${oneLine(c.blocked_by ?? '', 120)}`);
          continue;
        }
        const tag = outcomeTag(displayOutcome(c)) + (c.baselined ? ' (baselined)' : '');
        const root = rootCauseNote(c);
        lines.push(`      ${c.transport.padEnd(4)}${tag.padEnd(17)} ${oneLine(c.message, 240)}${root ? ` (${oneLine(root, 140)})` : ''}`);
      }
      const interpretation = interpretationText(group.results[0]!);
      if (interpretation) lines.push(`      ${oneLine(interpretation, 600)}`);
    }
    if (naOnly.length > 0) {
      const names = naOnly.map((g) => {
        const where = g.results.filter((c) => c.outcome === 'not_applicable').map((c) => c.transport);
        return `${oneLine(g.check_id, 120)}${where.length < g.results.length ? ` [${where.join(', ')}]` : ''}`;
      });
      lines.push(`  not applicable: ${oneLine(names.join(', '), 600)}`);
    }
  }
  return lines;
}

/** Failures that share a root cause: one line per defect, then the other checks it fails and blocks. */
export function defectLines(run: RunResult): string[] {
  const groups = defectGroups(run);
  if (groups.length === 0) return [];
  const lines = ['', 'Failures by defect'];
  for (const g of groups) {
    lines.push(`  ✗ ${oneLine(defectHeadline(g), 300)}: ${oneLine(g.message, 240)}`, `      also failing: ${oneLine(g.failing.join(', '), 600)}`);
    if (g.blocked.length) lines.push(`      blocked: ${oneLine(g.blocked.join(', '), 600)}`);
  }
  return lines;
}

/** What was not verified: one line per blocked cascade and per coverage gap, with the checks it covers. */
export function notVerifiedLines(run: RunResult): string[] {
  const { blocked, gaps } = run.coverage;
  if (blocked.length === 0 && gaps.length === 0) return [];
  const lines = ['', 'Not verified'];
  for (const g of blocked) {
    lines.push(`  ⊘ ${oneLine(blockedLine(g), 400)}`, `      ${oneLine(g.check_ids.join(', '), 600)}`);
  }
  for (const g of gaps) {
    lines.push(`  ○ ${oneLine(gapLine(g), 400)}`, `      ${oneLine(g.check_ids.join(', '), 600)}`);
  }
  return lines;
}

/** The baseline's verdict: a tally, then every stale entry by name (they fail the run). */
function baselineLines(run: RunResult): string[] {
  const b = run.baseline;
  if (!b) return [];
  const count = (status: string) => b.entries.filter((e) => e.status === status).length;
  const lines = ['', `Baseline ${oneLine(b.file, 200)}: ${count('expected')} expected, ${count('stale')} stale, ${count('unused')} unused`];
  for (const e of b.entries.filter((x) => x.status === 'stale')) {
    lines.push(
      `  ✗ STALE ${oneLine(e.check_id, 120)}${e.transport ? ` [${e.transport}]` : ''}: no longer fails; remove the entry (reason was: ${oneLine(e.reason, 200)})`,
    );
  }
  return lines;
}

export interface SummaryOptions {
  /** Paths of the reports written (as returned by `writeReports`), listed at the end. */
  written?: string[];
}

/** The end-of-run summary (no trailing newline): suite × transport table, findings by level, verdict, how to reproduce. */
export function renderSummary(run: RunResult, options: SummaryOptions = {}): string {
  const lines: string[] = [];
  lines.push(
    `${oneLine(run.harness.name)} ${oneLine(run.harness.version)} · agent ${oneLine(run.agent_url, 200)} · token ${oneLine(run.token)} · seed ${oneLine(run.seed)}`,
  );
  lines.push(`started ${oneLine(run.started_at)} · took ${formatDuration(run.duration_ms)} · ${run.checks.length} results`);
  if (run.timing) lines.push(timingLine(run.timing));
  lines.push(`judged against ${oneLine(targetText(run), 300)}`);
  for (const info of run.transport_info) {
    const state = !info.reachable ? 'unreachable' : info.auth_required ? 'auth required' : 'reachable';
    const problem = info.problem ? `: ${oneLine(info.problem, 200)}` : '';
    lines.push(`${info.transport} ${oneLine(info.endpoint, 200)} ${state}${problem}`);
  }
  lines.push('', ...suiteTable(run));
  lines.push(...levelSections(run));
  lines.push(...defectLines(run));
  lines.push(...notVerifiedLines(run));
  lines.push(...baselineLines(run));
  lines.push('');
  lines.push(`Coverage: ${coverageText(run)}`);
  lines.push(`Headline: ${oneLine(run.headline, 400)}`);
  lines.push(`Overall: ${run.overall_status.toUpperCase().replace('_', ' ')}${run.selection?.strict ? ' (strict)' : ''}`);
  if (options.written && options.written.length > 0) {
    lines.push('Reports:', ...options.written.map((p) => `  ${oneLine(p, 400)}`));
  }
  lines.push(`Reproduce: ${oneLine(run.command, 2000)}`);
  return lines.join('\n');
}
