/**
 * The HTML report in a real browser (Debian's chromium driven by playwright-core): the matrix
 * renders, the outcome filters work, the page reads fine without script, and no script smuggled
 * in through agent text runs — with the page's CSP and, to test the escaping on its own, with
 * CSP bypassed. The same browser also parses junit.xml with its XML parser.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHtml } from './html.js';
import { renderJUnit } from './junit.js';
import { HOSTILE, HOSTILE_AGENT_URL, buildRunFixture } from './testing/run-result.js';
import { oneLine } from './text.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`reports/html.browser.test.ts skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
}

interface Watch {
  page: Page;
  dialogs: string[];
  requests: string[];
  errors: string[];
}

describe.skipIf(!haveChromium)(`HTML report in headless chromium (${CHROMIUM})`, () => {
  const run = buildRunFixture();
  let dir: string;
  let url: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reports-browser-'));
    url = pathToFileURL(await writeHtml(run, dir)).href;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 40_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function open(options: { javaScriptEnabled?: boolean; bypassCSP?: boolean } = {}): Promise<Watch> {
    const context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true, bypassCSP: options.bypassCSP ?? false });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const watch: Watch = { page, dialogs: [], requests: [], errors: [] };
    page.on('dialog', (d) => {
      watch.dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('request', (r) => watch.requests.push(r.url()));
    page.on('pageerror', (e) => watch.errors.push(e.message));
    await page.addInitScript(() => {
      const w = globalThis as any; // runs in the page (this project type-checks without the DOM lib)
      w.__csp = [];
      w.document.addEventListener('securitypolicyviolation', (e: any) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(url, { waitUntil: 'load' });
    return watch;
  }

  async function assertNothingInjectedRan(watch: Watch): Promise<void> {
    // 'load' waits for images, so an injected <img onerror> would already have fired.
    expect(await watch.page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.page.url()).toBe(url); // no meta refresh navigation
    expect(watch.requests).toEqual([url]); // nothing fetched: no images, fonts, scripts
    expect(await watch.page.locator('img, svg, iframe, textarea, object, embed').count()).toBe(0);
    expect(await watch.page.locator('script').count()).toBe(1);
  }

  it('runs no injected script under the page CSP, and the page itself violates nothing', async () => {
    const watch = await open();
    await assertNothingInjectedRan(watch);
    expect(await watch.page.evaluate(() => (globalThis as any).__csp)).toEqual([]);
    // our own nonce'd script did run: it reveals the filters
    expect(await watch.page.locator('#filters').isVisible()).toBe(true);
  });

  it('runs no injected script even with CSP bypassed (escaping alone holds)', async () => {
    const watch = await open({ bypassCSP: true });
    await assertNothingInjectedRan(watch);
    expect(await watch.page.locator('#agent-url').textContent()).toBe(HOSTILE_AGENT_URL);
    const failedRow = watch.page.locator('tbody[data-check="capabilities.version.declared"] tr.result[data-transport="a2a"]');
    await failedRow.locator('details.evidence > summary').click();
    const evidence = failedRow.locator('details.evidence');
    expect(await evidence.getAttribute('open')).not.toBeNull();
    await evidence.locator('details.exchange > summary').first().click();
    const text = (await evidence.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(HOSTILE.svg);
    expect(text).toContain(HOSTILE.closers);
    expect(text).toContain(HOSTILE.textarea);
    expect(text).toContain('Expected');
    expect(text).toContain('JSON pointer');
    await assertNothingInjectedRan(watch);
  });

  it('renders the suite × transport matrix with the right statuses', async () => {
    const { page } = await open();
    const cells = page.locator('#matrix td.cell');
    expect(await cells.count()).toBe(run.suites.length * run.transports.length);
    for (const suite of run.suites) {
      for (const t of run.transports) {
        const cell = page.locator(`#matrix td.cell[data-suite="${suite.suite_id}"][data-transport="${t}"]`);
        const status = suite.by_transport[t]?.status ?? 'untested';
        expect(await cell.getAttribute('data-status')).toBe(status);
        expect(await cell.locator('.status').innerText()).toBe(status.replace('_', ' '));
        expect(await cell.isVisible()).toBe(true);
      }
    }
    expect(await page.locator('#overall-status').innerText()).toBe('failing');
    expect(await page.locator('#seed').innerText()).toBe(run.seed);
  });

  it('filters rows by outcome: unchecking pass hides passing rows', async () => {
    const { page } = await open();
    const passRows = page.locator('tr.result[data-outcome="pass"]');
    const failRows = page.locator('tr.result[data-outcome="fail"]');
    const passCount = await passRows.count();
    expect(passCount).toBe(run.checks.filter((c) => c.outcome === 'pass').length);
    expect(await passRows.first().isVisible()).toBe(true);

    await page.locator('#filters input[data-filter="pass"]').uncheck();
    for (let i = 0; i < passCount; i++) expect(await passRows.nth(i).isVisible()).toBe(false);
    expect(await failRows.first().isVisible()).toBe(true);
    // a check whose results all passed disappears with its header; a mixed one keeps its failing row
    expect(await page.locator('tbody[data-check="capabilities.task.answers"]').isVisible()).toBe(false);
    expect(await page.locator('tbody[data-check="capabilities.version.declared"] tr.group-head').isVisible()).toBe(true);

    // hide everything in the MAY level (info only) → the level says so
    await page.locator('#filters input[data-filter="info"]').uncheck();
    expect(await page.locator('#level-MAY .filtered-out').isVisible()).toBe(true);

    await page.locator('#filters input[data-filter="pass"]').check();
    expect(await passRows.first().isVisible()).toBe(true);
  });

  it('is fully readable without script: filters hidden, every row shown', async () => {
    const { page } = await open({ javaScriptEnabled: false });
    expect(await page.locator('#filters').isVisible()).toBe(false);
    const rows = page.locator('tr.result');
    expect(await rows.count()).toBe(run.checks.length);
    for (let i = 0; i < run.checks.length; i++) expect(await rows.nth(i).isVisible()).toBe(true);
    expect(await page.locator('#command').innerText()).toBe(run.command);
  });

  it('junit.xml is well-formed for the browser XML parser and round-trips hostile values', async () => {
    const { page } = await open();
    const xml = renderJUnit(run);
    const parsed = await page.evaluate((text: string) => {
      const doc = new (globalThis as any).DOMParser().parseFromString(text, 'application/xml');
      const error = doc.getElementsByTagName('parsererror')[0];
      const all = (name: string): any[] => Array.from(doc.getElementsByTagName(name));
      return {
        error: error ? (error.textContent as string) : null,
        testcases: all('testcase').length,
        messages: all('failure').map((f) => f.getAttribute('message') as string),
        agentUrl: all('property')
          .find((p) => p.getAttribute('name') === 'agent_url')
          ?.getAttribute('value') as string | undefined,
      };
    }, xml);
    expect(parsed.error).toBeNull();
    expect(parsed.testcases).toBe(run.checks.length + run.coverage.blocked.length + run.coverage.gaps.length);
    expect(parsed.agentUrl).toBe(HOSTILE_AGENT_URL);
    const replay = run.checks.find((c) => c.check_id === 'idempotency.replay.same-payload' && c.transport === 'mcp')!;
    expect(parsed.messages).toContain(oneLine(replay.message, 1000));
  });
});
