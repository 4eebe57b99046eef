/**
 * How the reports show a baseline (expected / stale / unused entries, with hostile reasons and
 * file names) and the Markdown summary for $GITHUB_STEP_SUMMARY.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allureStatus, writeAllureResults } from './allure.js';
import { renderSummary } from './console.js';
import { renderHtml } from './html.js';
import { renderJUnit } from './junit.js';
import { md, mdEscape, renderMarkdownSummary } from './markdown.js';
import { HOSTILE, HOSTILE_ALL, buildRunFixture, buildUnreachableFixture } from './testing/run-result.js';
import { findAll, parseXml, textOf } from './testing/xml-tree.js';

const run = buildRunFixture({ baseline: true });

describe('baseline in the console summary', () => {
  const text = renderSummary(run);
  it('tallies the entries and names every stale one, escaped', () => {
    expect(text).toMatch(/^Baseline ci\/baseline-'single' "double" `back`\.yaml: 1 expected, 1 stale, 1 unused$/m);
    const stale = text.split('\n').filter((l) => l.includes('STALE'));
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatch(/^ {2}✗ STALE capabilities\.task\.answers: no longer fails; remove the entry \(reason was: fixed since: <script>/);
    expect(text).not.toMatch(/[\u0000-\u0008\u001b]/);
  });
});

describe('baseline in junit.xml', () => {
  const root = parseXml(renderJUnit(run));
  const suite = findAll(root, 'testsuite').find((s) => s.attrs.name === 'baseline')!;
  it('adds a testsuite with one testcase per entry: stale fails, unused skips, expected passes', () => {
    expect(suite).toBeDefined();
    expect(suite.attrs).toMatchObject({ tests: '3', failures: '1', skipped: '1', errors: '0' });
    const cases = findAll(suite, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual([
      'baseline entry: idempotency.missing-key.rejected [mcp]',
      'baseline entry: capabilities.task.answers',
      'baseline entry: webhooks.retry.backoff',
    ]);
    expect(findAll(cases[1], 'failure')[0].attrs.message).toMatch(
      /^stale baseline entry: capabilities\.task\.answers no longer fails; remove it from ci\/baseline-/,
    );
    expect(textOf(findAll(cases[1], 'failure')[0])).toContain(HOSTILE.script); // as text, escaped by the writer
    expect(findAll(cases[2], 'skipped')).toHaveLength(1);
    expect(findAll(cases[0], 'failure')).toHaveLength(0);
  });
  it('counts the entries in the totals', () => {
    const plain = parseXml(renderJUnit(buildRunFixture()));
    expect(Number(root.attrs.tests)).toBe(Number(plain.attrs.tests) + 3);
    expect(Number(root.attrs.failures)).toBe(Number(plain.attrs.failures) + 1);
  });
});

describe('baseline in report.html', () => {
  const page = renderHtml(run, { nonce: 'n' });
  it('lists the entries with their status, escaping reasons and the file name', () => {
    const section = page.slice(page.indexOf('<section id="baseline">'), page.indexOf('</section>', page.indexOf('<section id="baseline">')));
    expect(section).toContain('data-status="stale"');
    expect(section).toContain('stale (no longer fails: remove it)');
    expect(section).toContain('&lt;script&gt;window.__pwned');
    expect(section).not.toMatch(/<script|<img/);
    expect(section).toContain('ci/baseline-&#39;single&#39; &quot;double&quot; `back`.yaml');
    expect(page).toContain('<a href="#baseline">Baseline</a>');
    expect(renderHtml(buildRunFixture(), { nonce: 'n' })).not.toContain('id="baseline"');
  });
});

describe('baseline in Allure results', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reports-allure-baseline-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('skips baselined failures and writes one result per entry in suite "baseline"', async () => {
    await writeAllureResults(run, dir);
    const results = await Promise.all(
      (await readdir(dir)).filter((n) => n.endsWith('-result.json')).map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))),
    );
    expect(results).toHaveLength(run.checks.length + 3);
    const byFull = (f: string) => results.find((r) => r.fullName === f);
    expect(byFull('idempotency.idempotency.missing-key.rejected[mcp]').status).toBe('skipped');
    expect(byFull('baseline.idempotency.missing-key.rejected[mcp]')).toMatchObject({
      status: 'passed',
      name: 'baseline entry: idempotency.missing-key.rejected [mcp]',
    });
    expect(byFull('baseline.capabilities.task.answers[all]').status).toBe('failed');
    expect(byFull('baseline.capabilities.task.answers[all]').statusDetails.message).toMatch(/^stale baseline entry: /);
    expect(byFull('baseline.webhooks.retry.backoff[all]').status).toBe('skipped');
    expect(byFull('baseline.webhooks.retry.backoff[all]').labels).toEqual(expect.arrayContaining([{ name: 'suite', value: 'baseline' }]));
  });

  it('maps statuses with --strict and baselines in mind', () => {
    expect(allureStatus({ outcome: 'warn', level: 'SHOULD' })).toBe('passed');
    expect(allureStatus({ outcome: 'warn', level: 'SHOULD' }, true)).toBe('failed');
    expect(allureStatus({ outcome: 'fail', level: 'MUST', baselined: true })).toBe('skipped');
    expect(allureStatus({ outcome: 'error', level: 'MUST', baselined: true })).toBe('broken'); // a baseline excuses failures, not harness errors
    expect(allureStatus({ outcome: 'error', level: 'MUST' })).toBe('broken');
  });
});

describe('Markdown summary', () => {
  const text = renderMarkdownSummary(run);

  it('escapes everything Markdown or HTML could interpret', () => {
    const escaped = mdEscape('<b>*x*</b> [l](javascript:y) | `c` ![i](u) https://e.x www.e.x a@b.c # _u_ ~s~ &amp;');
    expect(escaped.replace(/&(#\d+|amp|lt|gt);/g, '')).not.toMatch(/[<>*[\]()|`!#_~:@&]|https:|www\./);
    expect(escaped).toContain('&amp;amp;');
    expect(md('a\nb\u001b[31m')).toBe('a b&#92;u001b&#91;31m');
    for (const value of Object.values(HOSTILE)) expect(md(value)).not.toMatch(/[<>[\]`|]/);
  });

  it('has the verdict, headline, matrix, findings per level with both transports, baseline and reproduce', () => {
    expect(text.startsWith('## ❌ proto-comply: FAILING\n')).toBe(true);
    expect(text).toContain('| Suite | mcp | a2a |');
    expect(text.match(/^### (MUST|SHOULD|MAY): /gm)).toEqual(['### MUST: ', '### SHOULD: ', '### MAY: ']);
    const row = text.split('\n').find((l) => l.startsWith('| capabilities&#46;version&#46;declared'))!;
    expect(row).toMatch(/\| ✅ pass \| ❌ fail \|/);
    expect(row).toContain(' ≠'); // transports disagree
    expect(text).toContain('· fail (baselined)');
    expect(text).toMatch(/Stale entries .*\n\n- capabilities&#46;task&#46;answers: fixed since/);
    expect(text).toContain('```sh\nproto-comply run');
  });

  it('lets no hostile agent text through as markup, links, table cells or code fences', () => {
    const outside = text.slice(0, text.indexOf('<details>'));
    expect(outside).not.toMatch(/<(?!br>|sub>|\/sub>)/);
    expect(outside).not.toMatch(/\]\(|javascript:|\u001b/);
    for (const line of outside.split('\n').filter((l) => l.startsWith('| '))) {
      const cells = line.split('|').length;
      expect(cells === 5 || cells === 6, line).toBe(true); // suite row: 4 cells; findings row: 5
    }
    const fence = text.slice(text.indexOf('```sh'));
    expect(fence.split('```')).toHaveLength(3); // opening and closing fence only
    expect(HOSTILE_ALL.length).toBeGreaterThan(0);
  });

  it('caps the findings listed per level', () => {
    const capped = renderMarkdownSummary(run, { maxFindings: 1 });
    expect(capped).toMatch(/… \d+ more in report\.html/);
  });

  it('renders an unreachable run', () => {
    const down = renderMarkdownSummary(buildUnreachableFixture());
    expect(down.startsWith('## ⛔ proto-comply: UNREACHABLE')).toBe(true);
    expect(down).toContain('### MUST: no findings');
  });
});
