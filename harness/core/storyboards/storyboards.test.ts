import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUNDLE_LIMITS, loadStoryboardBundle, StoryboardBundleError } from './load.js';
import { selectStoryboards, unmetRequirement } from './select.js';
import { parseStoryboardPath, resolveStoryboardPath } from './path.js';
import { SDK_BUNDLE } from './testing/sdk-bundle.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'storyboards-'));
  made.push(root);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}
const step = (id: string, task: string) =>
  `      - id: ${id}\n        task: ${task}\n        validations:\n          - check: field_present\n            path: products[0].product_id\n`;
const storyboard = (id: string, extra = '', tasks = ['get_products']) =>
  `id: ${id}\ntitle: ${id}\n${extra}phases:\n  - id: p1\n    steps:\n${tasks.map((t, i) => step(`s${i}`, t)).join('')}`;
const retrying = (trigger: string) =>
  `id: r\nphases:\n  - id: p\n    steps:\n      - { id: s, task: expect_webhook_retry_keys_stable, retry_trigger: { ${trigger} } }\n`;
const INDEX = JSON.stringify({
  adcp_version: '9.9.9',
  universal: ['caps'],
  protocols: [{ id: 'media-buy', path: 'protocols/media-buy/', has_baseline: true }],
  specialisms: [{ id: 'sales-x', protocol: 'media-buy', path: 'specialisms/sales-x/' }],
});

describe('storyboard paths', () => {
  it('reads members and indices', () => {
    expect(parseStoryboardPath('products[0].format_ids[1].id')).toEqual(['products', 0, 'format_ids', 1, 'id']);
    expect(resolveStoryboardPath({ a: [{ b: 1 }, { b: 2 }] }, 'a[1].b')).toBe(2);
    expect(resolveStoryboardPath({ a: [] }, 'a[0].b')).toBeUndefined();
    expect(resolveStoryboardPath({ a: 'x' }, 'a.length')).toBeUndefined();
    expect(() => parseStoryboardPath('a..b')).toThrow(/malformed/);
    expect(() => parseStoryboardPath('a[x]')).toThrow(/malformed/);
    expect(parseStoryboardPath('a[*].b')).toEqual(['a', { every: true }, 'b']);
  });
});

describe('loading a bundle', () => {
  it('reads universal, protocol (recursively, index.yaml first) and specialism storyboards, and lists the other files', () => {
    const root = tree({
      'index.json': INDEX,
      'universal/caps.yaml': storyboard('caps'),
      'protocols/media-buy/index.yaml': storyboard('media_buy_seller', 'requires_scenarios:\n  - media_buy_seller/flow\n'),
      'protocols/media-buy/a-other.yaml': storyboard('media_buy_other'),
      'protocols/media-buy/scenarios/flow.yaml': storyboard('media_buy_seller/flow'),
      'protocols/media-buy/notes.yaml': 'references:\n  - a\n',
      'specialisms/sales-x/index.yaml': storyboard('sales_x', 'required_tools:\n  - create_media_buy\n'),
    });
    const b = loadStoryboardBundle(root);
    expect(b.version).toBe('9.9.9');
    expect(b.entries.map((e) => [e.kind, e.id, e.storyboards])).toEqual([
      ['universal', 'caps', ['caps']],
      ['protocol', 'media-buy', ['media_buy_seller', 'media_buy_other', 'media_buy_seller/flow']],
      ['specialism', 'sales-x', ['sales_x']],
    ]);
    expect(b.storyboards.get('media_buy_seller/flow')?.kind).toBe('scenario');
    expect(b.storyboards.get('sales_x')).toMatchObject({ kind: 'specialism', protocol: 'media-buy', requiredTools: ['create_media_buy'] });
    expect(b.otherFiles).toEqual(['protocols/media-buy/notes.yaml']);
    const s = b.storyboards.get('caps')!.phases[0].steps[0];
    expect(s).toMatchObject({ id: 's0', task: 'get_products', validations: [{ check: 'field_present', path: 'products[0].product_id' }] });
  });

  it('reads one storyboard file', () => {
    const root = tree({ 'one.yaml': storyboard('one') });
    const b = loadStoryboardBundle(join(root, 'one.yaml'));
    expect([...b.storyboards.keys()]).toEqual(['one']);
    expect(b.storyboards.get('one')?.kind).toBe('file');
  });

  it.each([
    ['a directory without index.json', { 'x.yaml': storyboard('x') }, '', /no index\.json/],
    ['a file that is not a storyboard', { 'x.yaml': 'a: 1\n' }, 'x.yaml', /not a storyboard/],
    ['broken YAML', { 'index.json': INDEX, 'universal/caps.yaml': 'id: [\n' }, '', /caps\.yaml: not YAML/],
    [
      'a step without a task',
      { 'index.json': INDEX, 'universal/caps.yaml': 'id: caps\nphases:\n  - id: p\n    steps:\n      - id: s\n' },
      '',
      /caps\.yaml: \/phases\/0\/steps\/0 must have required property 'task'/,
    ],
    ['a missing universal file', { 'index.json': INDEX }, '', /universal\/caps\.yaml: named by index\.json, but missing/],
    [
      'a duplicate id',
      { 'index.json': INDEX, 'universal/caps.yaml': storyboard('caps'), 'protocols/media-buy/index.yaml': storyboard('caps') },
      '',
      /is also the id of universal\/caps\.yaml/,
    ],
    [
      'an unresolved scenario',
      { 'index.json': INDEX, 'universal/caps.yaml': storyboard('caps', 'requires_scenarios:\n  - nope/x\n') },
      '',
      /requires_scenarios names "nope\/x"/,
    ],
    ['a bad index', { 'index.json': '{"universal": ["../etc"], "protocols": [], "specialisms": []}' }, '', /index\.json: \/universal\/0 must match/],
    [
      'YAML alias bombs',
      { 'index.json': INDEX, 'universal/caps.yaml': `a: &a [1]\nb: [${Array.from({ length: 200 }, () => '*a').join(',')}]\nid: caps\nphases: []\n` },
      '',
      /not YAML/,
    ],
    [
      'a test kit that is not a mapping',
      { 'index.json': INDEX, 'universal/caps.yaml': storyboard('caps'), 'test-kits/bad.yaml': '- a list\n' },
      '',
      /test-kits\/bad\.yaml: a test kit is a mapping/,
    ],
    ['a retry_trigger count outside the webhook receiver contract', { 'r.yaml': retrying('count: 11') }, 'r.yaml', /retry_trigger\/count must be <= 10/],
    [
      'a retry_trigger status outside the webhook receiver contract',
      { 'r.yaml': retrying('http_status: 404') },
      'r.yaml',
      /retry_trigger\/http_status must be equal to one of the allowed values/,
    ],
  ])('refuses %s, naming the file', (_what, files, file, message) => {
    const root = tree(files as Record<string, string>);
    expect(() => loadStoryboardBundle(join(root, file))).toThrow(StoryboardBundleError);
    expect(() => loadStoryboardBundle(join(root, file))).toThrow(message);
  });

  it('refuses a file over the size bound', () => {
    const root = tree({ 'index.json': INDEX, 'universal/caps.yaml': `# ${'x'.repeat(BUNDLE_LIMITS.maxFileBytes)}\n` });
    expect(() => loadStoryboardBundle(root)).toThrow(/caps\.yaml: larger than/);
  });
});

describe('selecting storyboards for an agent', () => {
  const root = () =>
    tree({
      'index.json': INDEX,
      'universal/caps.yaml': storyboard('caps', 'required_tools:\n  - get_adcp_capabilities\n'),
      'protocols/media-buy/index.yaml': storyboard('media_buy_seller'),
      'specialisms/sales-x/index.yaml': storyboard('sales_x', 'requires_scenarios:\n  - media_buy_seller/flow\n'),
      'protocols/media-buy/scenarios/flow.yaml': storyboard('media_buy_seller/flow'),
    });
  const reasons = (sel: ReturnType<typeof selectStoryboards>) =>
    Object.fromEntries(sel.map((s) => [s.storyboard.id, s.skip ? `${s.skip.reason}: ${s.skip.detail}` : `run (${s.via})`]));

  it('takes the universal storyboards, the claimed protocol and specialism, and the scenarios they require', () => {
    const sel = selectStoryboards(loadStoryboardBundle(root()), {
      capabilities: { supported_protocols: ['media_buy'], specialisms: ['sales-x'] },
      tools: new Set(['get_adcp_capabilities', 'get_products']),
    });
    expect(reasons(sel)).toEqual({
      caps: 'run (universal)',
      media_buy_seller: 'run (protocol media-buy)',
      'media_buy_seller/flow': 'run (protocol media-buy)',
      sales_x: 'run (specialism sales-x)',
    });
  });

  it('gives every other storyboard its skip reason', () => {
    const sel = selectStoryboards(loadStoryboardBundle(root()), { capabilities: { supported_protocols: ['signals'] }, tools: new Set() });
    expect(reasons(sel)).toEqual({
      caps: 'missing_tool: the agent lists none of get_adcp_capabilities',
      media_buy_seller: 'not_applicable: the agent does not list media_buy in supported_protocols',
      'media_buy_seller/flow': 'not_applicable: the agent does not list media_buy in supported_protocols',
      sales_x: 'not_applicable: the agent does not claim the sales-x specialism',
    });
  });

  it('a scenario required by a claimed specialism runs though its protocol is not claimed', () => {
    const sel = selectStoryboards(loadStoryboardBundle(root()), { capabilities: { specialisms: ['sales-x'] }, tools: new Set() });
    expect(reasons(sel)['media_buy_seller/flow']).toBe('run (required by sales_x)');
  });

  it('applies required_any_of_tools, requires_capability and introduced_in', () => {
    const gated = (extra: string) => {
      const r = tree({ 'x.yaml': storyboard('x', extra) });
      return (capabilities: Record<string, unknown>, tools: string[] = []) =>
        reasons(selectStoryboards(loadStoryboardBundle(join(r, 'x.yaml')), { capabilities, tools: new Set(tools) })).x;
    };
    const anyOf = gated('required_any_of_tools:\n  - tools: [a, b]\n    rationale: one of them\n');
    expect(anyOf({}, ['b'])).toBe('run (the file given)');
    expect(anyOf({}, ['c'])).toBe('missing_tool: the agent lists none of a, b (one of them)');
    const cap = gated('requires_capability:\n  path: media_buy.features.inline\n  equals: true\n');
    expect(cap({ media_buy: { features: { inline: true } } })).toBe('run (the file given)');
    expect(cap({ media_buy: {} })).toBe('not_applicable: the capability media_buy.features.inline is absent, not true');
    const version = gated('introduced_in: "4.1"\n');
    expect(version({ major_versions: [3] })).toBe('not_applicable: introduced in 4.1; the agent declares major_versions [3]');
    expect(version({})).toBe('run (the file given)');
  });

  it('judges each capability test', () => {
    const caps = { a: { list: ['x', 'y'], flag: false } };
    expect(unmetRequirement({ path: 'a.list', contains: 'x' }, caps)).toBeUndefined();
    expect(unmetRequirement({ path: 'a.list', contains: 'z' }, caps)).toBe('the capability a.list does not contain "z"');
    expect(unmetRequirement({ path: 'a.list', not_contains: 'y' }, caps)).toBe('the capability a.list contains "y"');
    expect(unmetRequirement({ path: 'a.flag', present: true }, caps)).toBeUndefined();
    expect(unmetRequirement({ path: 'a.none', present: true }, caps)).toBe('the capability a.none is absent');
    expect(unmetRequirement({ path: 'a..b', present: true }, caps)).toMatch(/malformed path/);
  });
});

describe.skipIf(!SDK_BUNDLE)('the bundle shipped in @adcp/sdk', () => {
  it('loads whole: every storyboard, every scenario reference resolved, the non-storyboard files listed', () => {
    const b = loadStoryboardBundle(SDK_BUNDLE);
    expect(b.version).toMatch(/^3\.0\./);
    const index = JSON.parse(readFileSync(join(SDK_BUNDLE, 'index.json'), 'utf8'));
    expect(b.entries.filter((e) => e.kind === 'specialism').map((e) => e.id)).toEqual(index.specialisms.map((s: { id: string }) => s.id));
    for (const e of b.entries) if (e.kind !== 'universal') expect(e.storyboards.length, `${e.kind} ${e.id}`).toBeGreaterThan(0);
    expect(b.otherFiles).toEqual(expect.arrayContaining(['universal/runner-output-contract.yaml', 'universal/storyboard-schema.yaml']));
    const steps = [...b.storyboards.values()].flatMap((s) => s.phases.flatMap((p) => p.steps));
    expect(steps.length).toBeGreaterThan(200);
    expect(steps.every((s) => s.task.length > 0)).toBe(true);
  });

  it('selects for a non-guaranteed seller: the universal storyboards, media-buy, its specialism and the scenarios it requires', () => {
    const b = loadStoryboardBundle(SDK_BUNDLE);
    const sel = selectStoryboards(b, {
      capabilities: { supported_protocols: ['media_buy'], specialisms: ['sales-non-guaranteed'], major_versions: [3] },
      tools: new Set([
        'get_adcp_capabilities',
        'get_products',
        'create_media_buy',
        'update_media_buy',
        'get_media_buys',
        'get_media_buy_delivery',
        'sync_creatives',
      ]),
    });
    const run = sel.filter((s) => !s.skip).map((s) => s.storyboard.id);
    expect(run).toEqual(
      expect.arrayContaining(['capability_discovery', 'idempotency', 'media_buy_seller', 'sales_non_guaranteed', 'media_buy_seller/delivery_reporting']),
    );
    const skipped = Object.fromEntries(sel.filter((s) => s.skip).map((s) => [s.storyboard.id, s.skip!.reason]));
    expect(skipped.signal_marketplace).toBe('not_applicable');
    expect(skipped.sales_guaranteed).toBe('not_applicable');
    expect(new Set(sel.map((s) => s.storyboard.id)).size).toBe(b.storyboards.size);
  });
});

if (!SDK_BUNDLE)
  console.warn('harness/core/storyboards: the @adcp/sdk bundle is not installed (npm ci), so its tests skip; the fixtures above cover the same rules');
