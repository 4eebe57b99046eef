/**
 * `proto-comply diff` as a user runs it: the real process, on reports the real `proto-comply run`
 * wrote against the mock seller, clean and then (same port, same agent URL) with a fault.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSeller } from '../../mocks/seller/index.js';
import { renderAgentComplianceJson, validateAgentCompliance } from '../../reports/json.js';
import type { RunResult } from '../core/engine/result.js';
import { envWithout, runChild, type ChildResult } from '../testing/spawn.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const TARGET = 'errors.unknown-task.invalid-request';

function cli(args: string[], timeoutMs = 90_000): Promise<ChildResult> {
  return runChild(process.execPath, [BIN, ...args], { env: envWithout('PROTO_COMPLY_'), timeoutMs });
}

/** Nothing that a terminal would act on: C0 (but LF), DEL, C1, bidi overrides. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('proto-comply diff (real process, reports of real runs)', () => {
  let tmp: string;
  let before: string;
  let after: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'pc-diff-cli-'));
    const runArgs = (url: string, out: string, seed: string) => [
      'run',
      '--agent',
      url,
      '--suite',
      'errors',
      '--seed',
      seed,
      '--format',
      'json',
      '--out',
      join(tmp, out),
    ];
    const clean = await startMockSeller({ allowPrivateWebhooks: true });
    const port = Number(new URL(clean.baseUrl).port);
    try {
      const r = await cli(runArgs(clean.baseUrl, 'before', '1'));
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const fewer = await cli([...runArgs(clean.baseUrl, 'fewer', '3'), '--suite', 'setup']);
      expect(fewer.code, fewer.stderr + fewer.stdout).toBe(0);
    } finally {
      await clean.close();
    }
    const faulty = await startMockSeller({ allowPrivateWebhooks: true, port, faults: ['unknown-tool-wrong-code'] });
    try {
      const r = await cli(runArgs(faulty.baseUrl, 'after', '2'));
      expect(r.code, r.stderr + r.stdout).toBe(1);
    } finally {
      await faulty.close();
    }
    before = join(tmp, 'before', 'agent-compliance.json');
    after = join(tmp, 'after', 'agent-compliance.json');
  }, 150_000);

  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('exits 1 and names the regressed check, per transport, with the after run message', async () => {
    const r = await cli(['diff', before, after]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^2 regressed, 0 fixed, 0 changed, 0 added, 0 removed \(\d+ check results in both runs; judged not strict\)$/m);
    expect(r.stdout).toContain(`Regressed (2):\n  ✗ ${TARGET} [mcp]: pass → fail — `);
    expect(r.stdout).toMatch(new RegExp(`✗ ${TARGET.replace(/\./g, '\\.')} \\[a2a\\]: pass → fail — .*expected error code INVALID_REQUEST, got NOT_FOUND`));
    expect(r.stdout).not.toMatch(/warning:/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Verdict: 2 regressions');
  });

  it('the reverse diff lists them as fixed and exits 0; identical reports exit 0 with nothing to say', async () => {
    const back = await cli(['diff', after, before]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(new RegExp(`Fixed \\(2\\):\\n  ✓ ${TARGET.replace(/\./g, '\\.')} \\[mcp\\]: fail → pass`));
    expect(back.stdout).toMatch(/Verdict: no regressions\n$/);
    const same = await cli(['diff', before, before]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/^0 regressed, 0 fixed, 0 changed, 0 added, 0 removed/m);
    expect(same.stdout).toMatch(/Verdict: no regressions\n$/);
  });

  it('--format json lists every change; --format md is a table', async () => {
    const json = await cli(['diff', before, after, '--format', 'json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.counts).toEqual({ regressed: 2, fixed: 0, changed: 0, added: 0, removed: 0 });
    expect(doc.regressed.map((c: { check: string; transport: string; before: string; after: string }) => [c.check, c.transport, c.before, c.after])).toEqual([
      [TARGET, 'mcp', 'pass', 'fail'],
      [TARGET, 'a2a', 'pass', 'fail'],
    ]);
    expect(doc.regressed[0].message).toMatch(/INVALID_REQUEST/);
    expect(doc.warnings).toEqual([]);
    const md = await cli(['diff', '--format', 'md', before, after]);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^## proto-comply diff: ❌ 2 regressions/);
    expect(md.stdout).toContain('| Check | Transport | Before | After | Message |');
    expect(md.stdout).toMatch(/\| errors&#46;unknown&#45;task&#46;invalid&#45;request \| mcp \| pass \| fail \|/);
  });

  it('a report of another suite selection: removed checks and a warning line, still exit 0', async () => {
    const file = join(tmp, 'fewer', 'agent-compliance.json');
    const r = await cli(['diff', before, file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^warning: not like for like: different suites selected: setup,errors → setup$/m);
    expect(r.stdout).toMatch(/Removed \(only in the before run\) \(\d+\):\n {2}- errors\./);
  });

  it('exits 2 with one line, no stack trace, on a missing file, a file that is not a report, or bad arguments', async () => {
    const notJson = join(tmp, 'not.json');
    const notReport = join(tmp, 'other.json');
    await writeFile(notJson, '{"a": \u001b[31m');
    await writeFile(notReport, '{"hello": "world"}');
    const cases: Array<[string[], RegExp]> = [
      [['diff', before, join(tmp, 'absent.json')], /^proto-comply: diff: after .*absent\.json: cannot read: ENOENT$/],
      [['diff', join(tmp, 'absent.json'), after], /^proto-comply: diff: before .*absent\.json: cannot read: ENOENT$/],
      [['diff', before, notJson], /^proto-comply: diff: after .*not\.json: not JSON: /],
      [['diff', notReport, after], /^proto-comply: diff: before .*other\.json: not a valid agent-compliance report: /],
      [['diff', before], /^proto-comply: diff: expected two reports, BEFORE\.json AFTER\.json \(got 1\)/],
      [['diff', before, after, '--format', 'html'], /^proto-comply: diff: --format must be text, json or md, got "html"$/],
      [['diff', before, after, '--colour'], /^proto-comply: diff: Unknown option '--colour'/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i];
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stderr).not.toMatch(UNSAFE);
    }
  });

  it('--help prints the usage; the main help lists diff', async () => {
    const help = await cli(['diff', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: proto-comply diff BEFORE\.json AFTER\.json \[--format text\|json\|md\]/);
    expect(help.stdout).toMatch(/Exit codes: 0 nothing regressed; 1 a check regressed; 2 usage error/);
    const main = await cli(['--help']);
    expect(main.stdout).toMatch(/proto-comply diff BEFORE AFTER/);
  });

  it('renders hostile report text inert: no escape sequences, line breaks or workflow commands in text; escaped Markdown in md', async () => {
    const { compliance_detail: _, ...run } = JSON.parse(await readFile(after, 'utf8')) as RunResult & { compliance_detail: unknown };
    const hostile =
      'x\u001b[2J\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007 \u009b31m\u202egnp.exe\n::error::pwned\r\n##[set-output]x <img src=x onerror=alert(1)> [link](http://evil.example) | cell | `code` **bold**';
    const target = run.checks.find((c) => c.check_id === TARGET && c.transport === 'mcp')!;
    target.message = hostile;
    run.agent_url = `${run.agent_url}\u001b[31m`;
    const doc = renderAgentComplianceJson(run);
    expect(validateAgentCompliance(JSON.parse(doc))).toEqual({ valid: true, errors: [] });
    const file = join(tmp, 'hostile.json');
    await writeFile(file, doc);

    const text = await cli(['diff', before, file]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).not.toMatch(UNSAFE);
    expect(text.stdout).not.toMatch(/^\s*(::|##\[)/m);
    const line = text.stdout.split('\n').find((l) => l.includes(`${TARGET} [mcp]`))!;
    expect(line).toContain('x\\u001b[2J\\u001b]8;;http://evil.example\\u0007click');
    expect(line).toContain('\\u009b31m\\u202egnp.exe');
    // the workflow commands at the starts of the message's lines are defused before the lines are joined
    expect(line).toContain('\\u003a:error::pwned \\u0023#[set-output]x');
    // the agent URL differs now: the warning quotes it inert
    expect(text.stdout).toMatch(/^warning: not like for like: different agent URL: .*\\u001b\[31m$/m);

    const md = await cli(['diff', '--format', 'md', before, file]);
    expect(md.code).toBe(1);
    expect(md.stdout).not.toMatch(UNSAFE);
    expect(md.stdout).not.toMatch(/<img|\]\(http|\*\*bold|`code`/);
    const row = md.stdout.split('\n').find((l) => l.includes('| mcp | pass | fail |'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(7); // six cells' borders: the message's "|" is escaped
    expect(row).toContain('&lt;img src=x onerror=alert&#40;1&#41;&gt;');

    const json = await cli(['diff', '--format', 'json', before, file]);
    expect(json.stdout).not.toMatch(UNSAFE);
    expect(JSON.parse(json.stdout).regressed[0].message).toMatch(/^x\\u001b\[2J/);
  });
});
