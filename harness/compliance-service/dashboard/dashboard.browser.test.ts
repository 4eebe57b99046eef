/**
 * The operator dashboard in a real browser (Debian's chromium driven by playwright-core), served
 * by the real service probing mock sellers: the fleet page, an agent's page with what flipped
 * between runs, and for a key holder the diagnostics, the latest report and the pause / resume /
 * requeue buttons working against the API. Agent text (a run full of hostile strings) stays inert,
 * under the page's CSP, which the pages themselves never violate.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockFleet, type RunningMockFleet } from '../../../mocks/fleet/index.js';
import { HOSTILE, buildRunFixture } from '../../../reports/testing/run-result.js';
import { memberKeyOf } from '../http/callers.js';
import { startRegistryService, type RunningRegistryService } from '../service.js';
import { SqliteRegistryStore } from '../sqlite-store.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`dashboard.browser.test.ts skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

const ALICE = 'dashboard-alice-key-0123456789';
const HOSTILE_AGENT = 'http://127.0.0.1:9/hostile';

describe.skipIf(!haveChromium)('operator dashboard in headless chromium', () => {
  let dir: string;
  let fleet: RunningMockFleet;
  let store: SqliteRegistryStore;
  let svc: RunningRegistryService;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let good: string;
  let bad: string;

  const detail = async (url: string) =>
    (await (await fetch(`${svc.url}/api/registry/agents/${encodeURIComponent(url)}/compliance`)).json()) as Record<string, unknown>;
  const until = async (url: string, test: (d: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 300; i++) {
      if (test(await detail(url))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${url}: not reached in 30 s`);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
    fleet = await startMockFleet({ count: 2, faultsFor: (i) => (i === 1 ? ['replay-not-flagged'] : []), firstHost: 70 });
    store = new SqliteRegistryStore(join(dir, 'registry.sqlite'));
    svc = await startRegistryService({
      store,
      apiKeys: [],
      memberKeys: [memberKeyOf(`alice=${ALICE}`)],
      workers: 2,
      perHost: 1,
      intervalMs: 3_600_000,
      settings: { budgetS: 60, denyPrivate: true, allowHosts: ['127.0.0.0/8'], suites: ['idempotency'] },
    });
    const register = async (url: string) =>
      (
        (await (
          await fetch(`${svc.url}/api/me/agents`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url }),
          })
        ).json()) as { agent_url: string }
      ).agent_url;
    good = await register(fleet.agents[0]!.url);
    bad = await register(fleet.agents[1]!.url);
    await until(good, (d) => d.status === 'passing');
    await until(bad, (d) => d.status === 'failing');
    // An agent whose runs end with one full of hostile text: a clean run, then a failing one (its checks flip).
    const hostile = await store.addAgent({ url: HOSTILE_AGENT, transports: ['mcp'], token: 'proto', owner: 'alice' }, Date.now());
    await store.updateSettings(HOSTILE_AGENT, { monitoringPaused: true }, Date.now());
    for (const result of [(await store.latestReport(good))!, buildRunFixture()]) {
      const runId = (await store.startRun(hostile.id, Date.now(), 'test', 'schedule'))!;
      await store.finishRun(runId, { result, now: Date.now(), nextDueAt: Date.now() + 3_600_000, failures: 0 });
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await svc?.close();
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  interface Watch {
    page: Page;
    dialogs: string[];
    errors: string[];
  }
  async function open(path: string): Promise<Watch> {
    const context = await browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const w: Watch = { page, dialogs: [], errors: [] };
    page.on('dialog', (d) => {
      w.dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => w.errors.push(e.message));
    await page.addInitScript(() => {
      const g = globalThis as any; // runs in the page
      g.__csp = [];
      g.document.addEventListener('securitypolicyviolation', (e: any) => g.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${svc.url}${path}`, { waitUntil: 'load' });
    return w;
  }
  async function inert(w: Watch): Promise<void> {
    expect(await w.page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(await w.page.evaluate(() => (globalThis as any).__csp)).toEqual([]);
  }
  const useKey = async (page: Page) => {
    await page.fill('#key', ALICE);
    await page.click('#use-key');
    await page.locator('#forget-key').waitFor({ state: 'visible' });
  };

  it('lists the fleet with status, streak, last check, badges and next probe', async () => {
    const w = await open('/');
    const row = (url: string) => w.page.locator(`#fleet tr[data-agent-url="${url}"]`);
    expect(await row(good).locator('td.status').innerText()).toBe('passing');
    expect(await row(bad).locator('td.status').innerText()).toBe('failing');
    expect(await row(good).locator('.badge[data-role="media-buy"]').innerText()).toBe('media-buy 3.1 (active)');
    expect(await row(bad).locator('.badge').count()).toBe(0);
    expect(await row(HOSTILE_AGENT).locator('td').last().innerText()).toBe('paused');
    expect(await w.page.locator('#counts').innerText()).toBe('3 agent(s): 1 passing, 0 degraded, 2 failing, 0 unknown.');
    await inert(w);
  });

  it("shows an agent's history with what flipped, and keeps the owner's parts hidden without a key", async () => {
    const w = await open(`/agents/${encodeURIComponent(HOSTILE_AGENT)}`);
    const newest = w.page.locator('#history tbody tr').first();
    // Its checks differ from the clean run's: each flip is listed (regressed, or a check new to this run).
    expect(await newest.locator('.flip-regressed, .flip-changed').count()).toBeGreaterThan(0);
    // The run's headline is agent text full of markup: shown as text.
    expect(await w.page.locator('#headline').innerText()).toContain(HOSTILE.img);
    expect(await w.page.locator('#load-diagnostics').isVisible()).toBe(false);
    expect(await w.page.locator('#requeue').isVisible()).toBe(false);
    await inert(w);
  });

  it('gives a key holder the diagnostics and the latest report, agent text inert', async () => {
    const w = await open(`/agents/${encodeURIComponent(bad)}`);
    await useKey(w.page);
    await w.page.click('#load-diagnostics');
    await w.page.locator('#diagnostics-body tr').first().waitFor();
    expect(await w.page.locator('#diagnostics-body').innerText()).toContain('idempotency.replay.flagged');
    await w.page.click('#load-report');
    await w.page.waitForFunction(() => ((globalThis as any).document.getElementById('report').textContent as string).length > 100);
    expect(await w.page.locator('#report').innerText()).toContain('"overall_status": "failing"');
    await inert(w);

    // The hostile run's own report: its strings land as text.
    const h = await open(`/agents/${encodeURIComponent(HOSTILE_AGENT)}`);
    await useKey(h.page);
    await h.page.click('#load-report');
    await h.page.waitForFunction(() => ((globalThis as any).document.getElementById('report').textContent as string).length > 100);
    await h.page.click('#load-diagnostics');
    await h.page
      .locator('#diagnostics-status')
      .filter({ hasText: /failing step/ })
      .waitFor();
    await inert(h);
  });

  it('pauses, resumes and requeues monitoring from the buttons, through the API', async () => {
    const w = await open(`/agents/${encodeURIComponent(good)}`);
    await useKey(w.page);
    await w.page.click('#pause');
    await w.page.locator('#action-status').filter({ hasText: 'monitoring paused' }).waitFor();
    expect((await detail(good)).monitoring_paused).toBe(true);
    await w.page.click('#requeue');
    await w.page
      .locator('#action-status')
      .filter({ hasText: /^409: monitoring of .* is paused/ })
      .waitFor();
    await w.page.click('#resume');
    await w.page.locator('#action-status').filter({ hasText: 'monitoring resumed' }).waitFor();
    expect((await detail(good)).monitoring_paused).toBe(false);
    await w.page.click('#requeue');
    await w.page
      .locator('#action-status')
      .filter({ hasText: /requeued/ })
      .waitFor();
    await inert(w);
  });

  it('answers a wrong key with the API error, never with owner data', async () => {
    const w = await open(`/agents/${encodeURIComponent(bad)}`);
    await w.page.fill('#key', 'not-a-valid-key-0123456789');
    await w.page.click('#use-key');
    await w.page.click('#load-diagnostics');
    await w.page
      .locator('#diagnostics-status')
      .filter({ hasText: /^401: / })
      .waitFor();
    expect(await w.page.locator('#diagnostics-body tr').count()).toBe(0);
    await inert(w);
  });

  it('escapes hostile text in the server-rendered pages too', async () => {
    const res = await fetch(`${svc.url}/agents/${encodeURIComponent(HOSTILE_AGENT)}`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const text = await res.text();
    expect(text).not.toContain(HOSTILE.img);
    expect(text).not.toContain('<script>window');
  });
});
