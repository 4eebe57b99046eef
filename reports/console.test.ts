import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkLine, createProgress, renderSummary } from './console.js';
import { HOSTILE, buildRunFixture } from './testing/run-result.js';

function sink(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { out, text: () => chunks.join('') };
}

// ESC, CSI (C1), BEL, NUL, CR, bidi override: nothing that moves the cursor or recolours.
const TERMINAL_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

describe('createProgress (CI, not a TTY)', () => {
  it('prints one plain line per finished check, with the message on non-passes', () => {
    const run = buildRunFixture();
    const { out, text } = sink();
    const progress = createProgress({ out, tty: false, total: run.checks.length });
    for (const c of run.checks) progress.onCheck(c);
    progress.done();
    progress.done(); // idempotent
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(run.checks.length + 1);
    expect(lines[0]).toBe('PASS mcp capabilities.task.answers (12 ms)');
    expect(lines[3]).toMatch(/^FAIL a2a capabilities\.version\.declared \(32 ms\): no \w+_version in capabilities: "><img/);
    expect(lines).toContain('NOT RUN a2a idempotency.conflict.code (32 ms): not run: the run budget ran out before this check started');
    expect(lines).toContain(
      'BLOCKED mcp idempotency.conflict.code (12 ms): blocked by idempotency.replay.same-payload: setup step 1 failed: no media buy to reuse',
    );
    expect(lines.some((l) => l.startsWith('NOT APPLICABLE mcp webhooks.signing.tag'))).toBe(true);
    expect(lines.at(-1)).toBe('20/20 checks · pass 6 · fail 3 · warn 2 · info 2 · not applicable 2 · blocked 1 · gap 1 · error 1 · not run 2');
    expect(text()).not.toMatch(TERMINAL_CONTROL);
    expect(text()).toContain('esc\\u001b[31mRED');
    expect(text()).not.toContain('\r');
  });
});

describe('createProgress (TTY)', () => {
  it('rewrites one status line in place and prints failures above it', () => {
    const run = buildRunFixture();
    const { out, text } = sink();
    const progress = createProgress({ out, tty: true, total: run.checks.length });
    for (const c of run.checks) progress.onCheck(c);
    progress.done();
    const raw = text();
    // every status redraw starts with CR; only failing checks and the final newline add lines
    const newlines = raw.split('\n').length - 1;
    const failing = run.checks.filter((c) => c.outcome === 'fail');
    expect(newlines).toBe(failing.length + 1);
    expect(raw.split('\r').filter((s) => s.startsWith('1/20 checks'))).toHaveLength(1);
    const finalLine = raw.slice(raw.lastIndexOf('\r') + 1);
    expect(finalLine.trimEnd()).toBe('20/20 checks · pass 6 · fail 3 · warn 2 · info 2 · not applicable 2 · blocked 1 · gap 1 · error 1 · not run 2');
    // the only control characters are our own CR and LF
    expect(raw.replace(/[\r\n]/g, '')).not.toMatch(TERMINAL_CONTROL);
    expect(raw).toContain('FAIL mcp idempotency.replay.same-payload');
  });

  it('pads a shorter redraw so no stale characters remain', () => {
    const run = buildRunFixture();
    const { out, text } = sink();
    Object.assign(out, { columns: 200 });
    const progress = createProgress({ out, tty: true, total: 2 });
    progress.onCheck(run.checks[3]); // a failure: printed above the status line
    const wide = terminal(text()).at(-1)!;
    expect(wide).toMatch(/^1\/2 checks · pass 0 · fail 1$/);
    Object.assign(out, { columns: 20 }); // the terminal narrows: the next status line is shorter
    progress.onCheck(run.checks[0]);
    const screen = terminal(text());
    const visible = screen.at(-1)!;
    expect(visible.trimEnd().length).toBeLessThan(wide.length);
    expect(visible.trimEnd().length).toBeLessThanOrEqual(19);
    expect(visible).toMatch(/^2\/2 checks/);
    // nothing of the wider line is left behind on screen
    expect(visible.trimEnd()).not.toContain('fail 1');
    expect(screen.slice(0, -1)).toEqual([expect.stringMatching(/^FAIL a2a capabilities\.version\.declared/)]);
    progress.done();
  });
});

/** What a terminal shows for output that rewrites lines with CR: one string per screen line. */
function terminal(raw: string): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  for (const ch of raw) {
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      lines.push(line.join(''));
      line = [];
      col = 0;
    } else line[col++] = ch;
  }
  lines.push(line.join(''));
  return lines;
}

describe('createProgress (narrow TTY)', () => {
  it('keeps the status line narrower than the terminal so it never wraps', () => {
    const run = buildRunFixture();
    const { out, text } = sink();
    Object.assign(out, { columns: 40 });
    const progress = createProgress({ out, tty: true, total: run.checks.length });
    for (const c of run.checks) progress.onCheck(c);
    progress.done();
    const statusLines = text()
      .split(/[\r\n]/)
      .filter((s) => /^\d+\/20 checks/.test(s));
    expect(statusLines.length).toBeGreaterThan(0);
    for (const line of statusLines) expect(line.trimEnd().length).toBeLessThanOrEqual(39);
  });
});

describe('checkLine', () => {
  it('strips terminal control sequences from agent text', () => {
    const check = { ...buildRunFixture().checks[3], message: `x${HOSTILE.control}${HOSTILE.bidi}` };
    const line = checkLine(check);
    expect(line).not.toMatch(TERMINAL_CONTROL);
    expect(line).toContain('\\u202e');
    expect(line).toContain('\\u009b31m');
  });
});

describe('renderSummary', () => {
  const run = buildRunFixture();
  const summary = renderSummary(run, { written: ['out/agent-compliance.json', 'out/junit.xml'] });
  const lines = summary.split('\n');

  it('shows a dash where a suite has nothing to run: an agent suite on the registry column, the registry suite on MCP/A2A', () => {
    const base = buildRunFixture();
    const counts = base.suites[0]!.by_transport.mcp!.counts;
    const withRegistry = {
      ...base,
      transports: [...base.transports, 'rest' as const],
      suites: [...base.suites, { ...base.suites[0]!, suite_id: 'registry', by_transport: { rest: { status: 'passing' as const, counts } } }],
    };
    const out = renderSummary(withRegistry, { written: [] }).split('\n');
    expect(out.find((l) => l.startsWith('registry '))).toMatch(/^registry\s+—\s+—\s+passing/);
    expect(out.find((l) => l.startsWith('capabilities '))).toMatch(/\s—$/);
    expect(out.find((l) => l.startsWith('schemas '))).toMatch(/^schemas\s+untested\s+untested\s+untested$/);
  });

  it('has a suite × transport table with statuses and counts', () => {
    const header = lines.find((l) => l.startsWith('suite '))!;
    expect(header).toMatch(/^suite\s+mcp\s+a2a$/);
    const caps = lines.find((l) => l.startsWith('capabilities '))!;
    expect(caps).toMatch(/^capabilities\s+passing \(2 pass, 1 warn\)\s+failing \(1 pass, 1 fail, 1 warn\)$/);
    expect(lines.find((l) => l.startsWith('schemas '))).toMatch(/^schemas\s+untested\s+untested$/);
    // the a2a column starts at the same position on every row
    const col = header.indexOf('a2a');
    expect(caps.slice(col).startsWith('failing')).toBe(true);
  });

  it('lists findings by level, MUST failures first, MCP next to A2A, flagging differing verdicts', () => {
    const must = lines.indexOf('MUST (3 with findings, 2 not verified, 1 not applicable)');
    const should = lines.indexOf('SHOULD (1 with findings, 1 not verified)');
    const may = lines.indexOf('MAY (1 with findings)');
    expect(must).toBeGreaterThan(0);
    expect(should).toBeGreaterThan(must);
    expect(may).toBeGreaterThan(should);
    const mustBlock = lines.slice(must + 1, should);
    const heads = mustBlock.filter((l) => /^ {2}[✗!·] /.test(l)).map((l) => l.trim().split(':')[0].slice(2));
    // checks that were only not verified (blocked, gaps) are explained under "Not verified"
    expect(heads).toEqual(['capabilities.version.declared', 'idempotency.replay.same-payload', 'idempotency.missing-key.rejected']);
    // checks that are merely not applicable are named on one line
    expect(mustBlock.filter((l) => l !== '').at(-1)).toBe('  not applicable: webhooks.signing.tag');
    const version = mustBlock.findIndex((l) => l.includes('capabilities.version.declared'));
    expect(mustBlock[version]).toContain('≠');
    expect(mustBlock[version + 1]).toMatch(/^ {6}mcp PASS\s+version 3\.1 declared$/);
    expect(mustBlock[version + 2]).toMatch(/^ {6}a2a FAIL\s+no /);
    // a harness error on one transport is no disagreement
    expect(mustBlock.find((l) => l.includes('idempotency.replay.same-payload'))).not.toContain('≠');
    expect(summary).toMatch(/mcp FAIL \(baselined\) +accepted a request/);
    expect(summary).not.toContain('capabilities.task.answers'); // all-pass checks are not findings
  });

  it('explains what was not verified once per cause: each blocked cascade and each gap on one line', () => {
    const start = lines.indexOf('Not verified');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toMatch(/^ {2}⊘ 1 check blocked by idempotency\.replay\.same-payload failing \(mcp\): replay differs/);
    expect(lines[start + 2]).toBe('      idempotency.conflict.code');
    expect(lines[start + 3]).toBe('  ○ 2 checks not verified, coverage gap (run budget, a2a): the run budget of 60 s ran out');
    expect(lines[start + 4]).toBe('      idempotency.conflict.code, signing.vectors.negative');
  });

  it('ends with coverage, headline, verdict, reports and the reproduce command', () => {
    expect(summary).toContain('Coverage: INCOMPLETE: MUST 8/12 verified (1 blocked, 2 gaps, 1 errors) · SHOULD 3/4 verified (1 gaps) · MAY 2/2 verified');
    expect(lines).toContain('Overall: FAILING');
    expect(summary).toContain('Reports:\n  out/agent-compliance.json\n  out/junit.xml\n');
    expect(lines.find((l) => l.startsWith('Reproduce: '))).toBe(`Reproduce: ${run.command}`);
    expect(lines.find((l) => l.startsWith('Headline: '))).toBe(`Headline: ${run.headline}`);
    expect(summary.replace(/\n/g, '')).not.toMatch(TERMINAL_CONTROL);
  });

  it('says so when a level has no findings', () => {
    const clean = buildRunFixture();
    clean.checks = clean.checks.filter((c) => c.level !== 'MAY');
    expect(renderSummary(clean)).toContain('MAY (0 with findings)\n  none\n');
  });
});
