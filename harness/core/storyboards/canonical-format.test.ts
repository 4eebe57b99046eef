/** `canonical_format_satisfaction` (canonical-format.ts, canonical-match.ts, v1-registry.ts) on our own products and requests. */
import { describe, expect, it } from 'vitest';
import type { StoryboardValidation } from './model.js';
import { unmetByProjection, unmetBySelector } from './canonical-match.js';
import { judgeValidation, type StepOutcome, type ValidationEnv } from './validations.js';
import { registryFrom } from './v1-registry.js';

const AAO = 'https://creative.example/';
const check = (value: unknown, extra: Record<string, unknown> = {}): StoryboardValidation =>
  ({ check: 'canonical_format_satisfaction', value, ...extra, raw: { check: 'canonical_format_satisfaction', value, ...extra } }) as StoryboardValidation;

const fixedImage = {
  product_id: 'p_fixed',
  format_ids: [{ agent_url: AAO, id: 'banner_fixed' }],
  format_options: [
    { format_kind: 'image', format_option_id: 'fixed_img', v1_format_ref: [{ agent_url: AAO, id: 'banner_fixed' }], params: { width: 320, height: 100 } },
  ],
};
const legacyOnly = { product_id: 'p_legacy', format_ids: [{ agent_url: AAO, id: 'banner_legacy' }] };
const clip = {
  product_id: 'p_clip',
  format_options: [{ format_kind: 'video_hosted', format_option_id: 'clip', params: { duration_ms_range: [5000, 20000], video_codecs: ['h264', 'vp9'] } }],
};

const prior = new Map<string, unknown>([
  ['other', { products: [{ ...fixedImage, format_options: [] }] }],
  ['discover', { products: [fixedImage, legacyOnly, clip] }],
]);
const registry = registryFrom({
  mappings: [{ v1_pattern: { format_id_glob: 'banner_320x*' }, v2: { canonical: 'image', parameters: { width: 320, height: 100 } } }],
});
const sentWith = (pkg: Record<string, unknown>) => ({ packages: [{ product_id: 'p_fixed', budget: 10, pricing_option_id: 'x', ...pkg }] });
const accepted: StepOutcome = { ok: true, payload: { media_buy_id: 'mb' } };
const refused = (field: string, code = 'UNSUPPORTED_FEATURE'): StepOutcome => ({
  ok: false,
  errorCode: code,
  payload: { errors: [{ code, message: `${field}: not offered by this product`, field }] },
});
const judge = (v: StoryboardValidation, o: StepOutcome, sent: unknown, extra: Partial<ValidationEnv> = {}) =>
  judgeValidation(v, o, { context: new Map(), priorSteps: prior, sent, ...extra });

describe('canonical_format_satisfaction passes', () => {
  it('a legacy id linked by v1_format_ref, accepted, against the latest response listing the product', () => {
    const r = judge(check(true), accepted, sentWith({ format_ids: [{ agent_url: AAO, id: 'banner_fixed' }] }));
    expect(r).toMatchObject({
      outcome: 'passed',
      message: 'accepted; product p_fixed (as step discover returned it): every legacy format_ids[] entry normalizes to one of its declarations',
      expected: { accepted: true, local_satisfied: true },
      actual: { accepted: true, local_satisfied: true },
    });
  });
  it('a product-local format_option_ref, a complete direct selector, no selector, and a legacy-only product’s own id', () => {
    expect(judge(check(true), accepted, sentWith({ format_option_refs: [{ scope: 'product', format_option_id: 'fixed_img' }] })).outcome).toBe('passed');
    expect(judge(check(true), accepted, sentWith({ format_kind: 'image', params: { width: 320, height: 100 } })).outcome).toBe('passed');
    expect(judge(check(true), accepted, sentWith({})).message).toMatch(/no format selector, so all the product’s formats$/);
    const legacy = { packages: [{ product_id: 'p_legacy', format_ids: [{ agent_url: 'https://CREATIVE.example', id: 'banner_legacy' }] }] };
    expect(judge(check(true), accepted, legacy).outcome).toBe('passed');
  });
  it('an unlinked legacy id normalized through the registry, which the declaration narrows', () => {
    expect(judge(check(true), accepted, sentWith({ format_ids: [{ agent_url: AAO, id: 'banner_320x100' }] }), { v1Registry: registry }).outcome).toBe('passed');
  });
  it('an under-specified selector refused for its format selector', () => {
    const r = judge(check(false), refused('packages[0].format_kind'), sentWith({ format_kind: 'image' }));
    expect(r).toMatchObject({
      outcome: 'passed',
      actual: { accepted: false, local_satisfied: false, rejection: { codes: ['UNSUPPORTED_FEATURE'], format_cause: true } },
    });
    expect(r.message).toBe(
      'rejected (UNSUPPORTED_FEATURE) for its format selector; product p_fixed (as step discover returned it): format_options[0] (fixed_img): the selector omits params.width, which the declaration fixes at 320',
    );
  });
  it('a package chosen by path', () => {
    const sent = { packages: [{ product_id: 'p_fixed', format_kind: 'image' }, { product_id: 'p_legacy' }] };
    expect(judge(check(true, { path: 'packages[1]' }), accepted, sent).outcome).toBe('passed');
  });
});

describe('canonical_format_satisfaction fails', () => {
  it('when the agent accepts an under-specified direct selector, naming the format, the requirement and the pointer', () => {
    const r = judge(check(false), accepted, sentWith({ format_kind: 'image', params: { width: 320 } }));
    expect(r).toMatchObject({
      outcome: 'failed',
      message:
        'the agent accepted a request that does not satisfy product p_fixed (as step discover returned it): format_options[0] (fixed_img): the selector omits params.height, which the declaration fixes at 100',
      expected: { accepted: false, local_satisfied: false },
      actual: { accepted: true, local_satisfied: false },
      pointer: '/packages/0/params',
    });
  });
  it('when the agent refuses a satisfying request', () => {
    const r = judge(check(true), refused('packages[0].format_option_refs[0]'), sentWith({ format_option_refs: [{ format_option_id: 'fixed_img' }] }));
    expect(r).toMatchObject({ outcome: 'failed', pointer: '/packages/0' });
    expect(r.message).toMatch(/^the agent rejected \(UNSUPPORTED_FEATURE\) a request that satisfies product p_fixed/);
  });
  it('when the refusal names no format cause', () => {
    const r = judge(
      check(false),
      { ok: false, errorCode: 'ACCOUNT_NOT_FOUND', payload: { errors: [{ code: 'ACCOUNT_NOT_FOUND', message: 'no such account', field: 'account' }] } },
      sentWith({ format_kind: 'image' }),
    );
    expect(r).toMatchObject({ outcome: 'failed', actual: { rejection: { codes: ['ACCOUNT_NOT_FOUND'], format_cause: false } } });
    expect(r.message).toMatch(/^the agent rejected \(ACCOUNT_NOT_FOUND\) the request, but its error names no format selector cause/);
  });
  it('when the product as the agent declared it disagrees with the storyboard’s expectation', () => {
    const r = judge(check(true), accepted, sentWith({ format_option_refs: [{ scope: 'product', format_option_id: 'gone' }] }));
    expect(r).toMatchObject({ outcome: 'failed', pointer: '/packages/0/format_option_refs/0' });
    expect(r.message).toBe(
      'the storyboard expects the request to be accepted, yet it does not satisfy product p_fixed (as step discover returned it): format_option_refs[0] "gone" is none of the product\'s format_options[0] (fixed_img)',
    );
  });
  it('on a wrong kind, a mismatched size, an unlinked id outside the registry, an id a legacy-only product lacks', () => {
    const wrong = (pkg: Record<string, unknown>, env: Partial<ValidationEnv> = {}) => judge(check(true), accepted, sentWith(pkg), env).message;
    expect(wrong({ format_kind: 'html5' })).toMatch(/format_kind "html5" is the kind of none of its format_options\[\]/);
    expect(wrong({ format_kind: 'image', params: { width: 300, height: 100 } })).toMatch(/params.width 300 is not the declared 320/);
    expect(wrong({ format_ids: [{ agent_url: AAO, id: 'other' }] }, { v1Registry: registry })).toMatch(
      /legacy format other is linked by no v1_format_ref and matches no entry/,
    );
    expect(judge(check(true), accepted, { packages: [{ product_id: 'p_legacy', format_ids: [{ agent_url: AAO, id: 'x' }] }] }).message).toMatch(
      /legacy format x is not among the product's format_ids\[\]/,
    );
  });
});

describe('canonical_format_satisfaction is not applicable, naming the storyboard’s defect', () => {
  const na = (v: StoryboardValidation, sent: unknown, env: Partial<ValidationEnv> = {}) => {
    const r = judge(v, accepted, sent, env);
    return r.outcome === 'not_applicable' ? r.message : `${r.outcome}: ${r.message}`;
  };
  it('without a boolean value, a request, packages or a path that resolves', () => {
    expect(na(check('yes'), sentWith({}))).toBe("the storyboard's canonical_format_satisfaction validation needs value true (accepted) or false (rejected)");
    expect(na(check(true), undefined)).toBe('no request was sent on this step to judge its format selectors');
    expect(na(check(true), { brand: {} })).toBe("the storyboard's canonical_format_satisfaction request: the request sent has no package at packages");
    expect(na(check(true, { path: 'packages[5]' }), sentWith({}))).toMatch(/no package at packages\[5\]$/);
    expect(na(check(true, { path: 'packages..x' }), sentWith({}))).toMatch(/the path "packages..x" is malformed$/);
  });
  it('on an unknown selector, a product no earlier step listed, and an unlinked id without a registry', () => {
    expect(na(check(true), sentWith({ format_option_refs: [{ scope: 'global', format_option_id: 'fixed_img' }] }))).toMatch(
      /format_option_refs\[0\] has an unknown scope "global"$/,
    );
    expect(na(check(true), sentWith({ format_ids: ['banner_fixed'] }))).toMatch(/format_ids\[0\] is not a format id/);
    expect(na(check(true), sentWith({ params: { width: 1 } }))).toMatch(/params without a format_kind$/);
    expect(na(check(true), { packages: [{ product_id: 'nowhere' }] })).toMatch(/no earlier step's response lists product nowhere/);
    expect(na(check(true), sentWith({ format_ids: [{ agent_url: AAO, id: 'banner_320x100' }] }))).toMatch(
      /has no v1-canonical mapping registry to normalize it$/,
    );
  });
});

describe('canonical_format_satisfaction bounds what the agent sends', () => {
  it('reads only the first 1 000 products of a response and a bounded, shallow error', () => {
    const many = new Map<string, unknown>([['big', { products: [...Array.from({ length: 1_000 }, (_, i) => ({ product_id: `f${i}` })), fixedImage] }]]);
    expect(judge(check(true), accepted, sentWith({}), { priorSteps: many }).outcome).toBe('not_applicable');
    let deep: Record<string, unknown> = { message: 'format' };
    for (let i = 0; i < 10_000; i++) deep = { details: deep };
    const r = judge(check(false), { ok: false, errorCode: 'X', payload: deep }, sentWith({ format_kind: 'image' }));
    expect(r).toMatchObject({ outcome: 'failed', actual: { rejection: { format_cause: false } } });
  });
});

describe('canonical matching', () => {
  it('requires fixed and listed sizes, contains ranges, and narrows every other param stated', () => {
    expect(unmetBySelector({ sizes: [{ width: 1, height: 2 }] }, { width: 1, height: 2 })).toBeUndefined();
    expect(unmetBySelector({ sizes: [{ width: 1, height: 2 }] }, { sizes: [{ width: 2, height: 2 }] })).toBe('size 2x2 is not among the declared params.sizes');
    expect(unmetBySelector({ min_width: 100, max_width: 200 }, { min_width: 120, max_width: 180 })).toBeUndefined();
    expect(unmetBySelector({ min_width: 100, max_width: 200 }, { min_width: 50, max_width: 180 })).toMatch(
      /not contained in the declared \[100, 200\] \(overlap is not enough\)/,
    );
    expect(unmetBySelector({ duration_ms_exact: 15000 }, { duration_ms: 15000 })).toBeUndefined();
    expect(unmetBySelector(clip.format_options[0].params, { duration_ms_range: [6000, 30000], video_codecs: ['h264'] })).toMatch(
      /duration_ms_range \[6000, 30000\] is not contained/,
    );
    expect(unmetBySelector(clip.format_options[0].params, { duration_ms_exact: 6000 })).toBeUndefined();
    expect(unmetBySelector(clip.format_options[0].params, { video_codecs: ['h264'] })).toBe(
      'the selector omits a duration, which the declaration bounds to duration_ms_range [5000, 20000]',
    );
    expect(unmetBySelector(clip.format_options[0].params, { duration_ms_exact: 6000, video_codecs: ['av1'] })).toMatch(
      /params.video_codecs \["av1"\] does not narrow/,
    );
    expect(unmetBySelector({ orientation: 'vertical' }, { orientation: 'horizontal' })).toMatch(
      /params.orientation "horizontal" does not narrow the declared "vertical"/,
    );
  });
  it('takes a declaration as narrowing a legacy projection when it holds every projected param', () => {
    expect(unmetByProjection({ width: 320, height: 100, max_file_size_kb: 50 }, { width: 320, height: 100 })).toBeUndefined();
    expect(unmetByProjection({ width: 320 }, { width: 320, height: 100 })).toBe('the declaration states no params.height; the legacy format fixes 100');
  });
  it('projects ids by the registry’s globs, first match wins', () => {
    const r = registryFrom({
      mappings: [
        { v1_pattern: { format_id_glob: 'a_*' }, v2: { canonical: 'image' } },
        { v1_pattern: { structural: {} }, v2: { canonical: 'html5' } },
      ],
    });
    expect(r?.('a_b')).toEqual({ format_kind: 'image', params: {}, glob: 'a_*' });
    expect(r?.('ba_b')).toBeUndefined();
    expect(registryFrom({})).toBeUndefined();
  });
});
