import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html-escape.js';
import { renderHtml, writeHtml } from './html.js';
import { HOSTILE, HOSTILE_AGENT_URL, buildRunFixture } from './testing/run-result.js';
import { sanitizeText } from './text.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reports-html-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ALLOWED_ATTRS = new Set([
  'data-blocked-by',
  'data-target',
  'data-root',
  'data-gap',
  'lang',
  'charset',
  'http-equiv',
  'content',
  'name',
  'class',
  'id',
  'colspan',
  'scope',
  'title',
  'type',
  'checked',
  'nonce',
  'hidden',
  'href',
  'data-outcome',
  'data-transport',
  'data-suite',
  'data-status',
  'data-check',
  'data-filter',
]);

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

/** Every tag of the page: in an escaped page each `<` starts one of our tags. */
function tags(page: string): Array<{ name: string; attrs: Array<[string, string | undefined]> }> {
  const body = page.replace(/<style>[\s\S]*?<\/style>/, '<style></style>').replace(/<script nonce="[^"]*">[\s\S]*?<\/script>/, '<script></script>');
  const tagRe = /<(\/?[a-zA-Z][a-zA-Z0-9]*|!doctype)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/g;
  const found = [...body.matchAll(tagRe)];
  expect(found.length, 'every < starts a well-formed tag').toBe(body.split('<').length - 1);
  return found.map((m) => ({
    name: m[1].toLowerCase(),
    attrs: [...m[2].matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)].map((a) => [a[1].toLowerCase(), a[2]]),
  }));
}

describe('html escaping', () => {
  it('escapes & < > " \' and sanitises control characters', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml('a\u0000b\u202e')).toBe('a\\u0000b\\u202e');
    expect(html`<p title="${HOSTILE.img}">${HOSTILE.script}</p>`.value).not.toMatch(/<(img|script)/);
    expect(html`<ul>${['<a>', html`<li>${'<b>'}</li>`]}</ul>`.value).toBe('<ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>');
  });
});

describe('renderHtml', () => {
  const run = buildRunFixture();
  const page = renderHtml(run);

  it('contains only our own tags and attributes: no agent text becomes markup, href or src', () => {
    const all = tags(page);
    const names = new Set(all.map((t) => t.name.replace('/', '')));
    for (const bad of ['img', 'svg', 'iframe', 'textarea', 'object', 'embed', 'link', 'base', 'form']) expect(names.has(bad), bad).toBe(false);
    expect(all.filter((t) => t.name === 'script')).toHaveLength(1);
    expect(all.filter((t) => t.name === 'meta' && t.attrs.some(([k]) => k === 'http-equiv'))).toHaveLength(1);
    for (const tag of all.filter((t) => t.name !== '!doctype')) {
      for (const [attr, value] of tag.attrs) {
        expect(ALLOWED_ATTRS.has(attr) || attr.startsWith('data-x'), `${tag.name} ${attr}`).toBe(true);
        if (attr === 'href') expect(value).toMatch(/^#(level-(MUST|SHOULD|MAY)|matrix|run)$/);
      }
    }
    expect(all.some((t) => t.attrs.some(([k]) => k === 'src' || k.startsWith('on')))).toBe(false);
    expect(page).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E]/);
  });

  it('carries a strict CSP with a fresh nonce that only our script has', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)![1];
    const policy = unescapeHtml(csp);
    expect(policy).toMatch(/^default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-[A-Za-z0-9+/=]{24}'; base-uri 'none'; form-action 'none'$/);
    const nonce = /'nonce-([^']+)'/.exec(policy)![1];
    expect(page).toContain(`<script nonce="${nonce}">`);
    const other = /'nonce-([^']+)'/.exec(unescapeHtml(/content="(default-src[^"]+)"/.exec(renderHtml(run))![1]))![1];
    expect(other).not.toBe(nonce);
    expect(renderHtml(run, { nonce: 'fixed' })).toContain(`<script nonce="fixed">`);
  });

  it('shows hostile agent text verbatim as text', () => {
    const agent = /<code id="agent-url">([^<]*)<\/code>/.exec(page)![1];
    expect(unescapeHtml(agent)).toBe(HOSTILE_AGENT_URL);
    const pres = [...page.matchAll(/<pre>([^<]*)<\/pre>/g)].map((m) => unescapeHtml(m[1])).join('\n');
    expect(pres).toContain(HOSTILE.textarea);
    expect(pres).toContain(HOSTILE.meta);
    expect(pres).toContain(sanitizeText(HOSTILE.control));
    expect(pres).toContain(sanitizeText(HOSTILE.lone));
    const command = /<pre id="command"><code>([^<]*)<\/code><\/pre>/.exec(page)![1];
    expect(unescapeHtml(command)).toBe(run.command);
    expect(page).toContain(escapeHtml(HOSTILE.entities)); // agent entities are shown, not decoded
    expect(page).toContain('&amp;amp;');
  });

  it('renders the matrix, the seed, MUST failures first, and flags differing verdicts', () => {
    for (const suite of run.suites) {
      for (const t of run.transports) {
        const status = suite.by_transport[t]?.status ?? 'untested';
        expect(page).toContain(`data-suite="${suite.suite_id}" data-transport="${t}" data-status="${status}"`);
      }
    }
    expect(page).toContain(`<code id="seed">${run.seed}</code>`);
    const must = page.indexOf('id="level-MUST"');
    const should = page.indexOf('id="level-SHOULD"');
    const may = page.indexOf('id="level-MAY"');
    expect(must).toBeGreaterThan(0);
    expect(should).toBeGreaterThan(must);
    expect(may).toBeGreaterThan(should);
    const mustGroups = [...page.slice(must, should).matchAll(/<tbody class="group" data-check="([^"]+)">/g)].map((m) => m[1]);
    expect(mustGroups.slice(0, 2)).toEqual(['capabilities.version.declared', 'idempotency.replay.same-payload']);
    expect(mustGroups.at(-1)).toBe('capabilities.task.answers'); // all-pass checks last
    const version = page.slice(page.indexOf('data-check="capabilities.version.declared"'));
    const versionGroup = version.slice(0, version.indexOf('</tbody>'));
    expect(versionGroup).toContain('≠ transports disagree');
    const rows = [...versionGroup.matchAll(/<tr class="result" data-outcome="(\w+)" data-transport="(\w+)">/g)].map((m) => `${m[2]}:${m[1]}`);
    expect(rows).toEqual(['mcp:pass', 'a2a:fail']);
    const webhooks = page.slice(page.indexOf('data-check="webhooks.signing.tag"'));
    expect(webhooks.slice(0, webhooks.indexOf('</tbody>'))).not.toContain('≠');
    // every non-pass row has its evidence expandable
    const resultRows = page
      .split('<tr class="result"')
      .slice(1)
      .map((r) => r.slice(0, r.indexOf('</tr>')));
    for (const row of resultRows.filter((r) => !r.includes('data-outcome="pass"'))) expect(row).toContain('<details class="evidence">');
  });

  it('writes report.html', async () => {
    const path = await writeHtml(run, dir);
    expect(path).toBe(join(dir, 'report.html'));
    const text = await readFile(path, 'utf8');
    expect(text.startsWith('<!doctype html>')).toBe(true);
    expect(text).toContain('id="matrix"');
  });
});
