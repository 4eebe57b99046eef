/**
 * The runner-side step `expect_substitution_safe` (the substitution_observer_runner test kit;
 * digest 6.1): it calls no agent task. It reads the preview the step before it received
 * (`source_path`, a JSON pointer: the HTML itself for `source: html_inline`, a URL to fetch for
 * `url_fetch`), finds the tracker URLs of the `macro_template`'s shape, and judges each of
 * `catalog_bindings` (substitution-observe.ts, substitution-encoding.ts): its value, taken from the
 * kit's vector fixture by `vector_name` or inline, must appear NFC-normalized and percent-encoded
 * to RFC 3986 unreserved at the macro's position. Failures start with the kit's error codes and
 * name the macro, the item, the position, the URL, the expected and the observed form (digests
 * for inline values). What the run lacks (the kit, its fixture, a vector) is a gap naming it; a
 * preview member the agent does not have is not applicable; a preview URL is fetched SSRF-safe,
 * without credentials, and a host the run's address policy refuses is a gap.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import type { CheckContext, StepRecord, StepVerdict } from '../engine/kinds/types.js';
import type { ValidationRecord } from '../engine/storyboard-step.js';
import { createSafeFetcher, SafeFetchError } from '../net/safe-fetch.js';
import { isLoopbackHost } from '../webhooks/emission/config.js';
import { BUNDLE_LIMITS } from './bundle-file.js';
import type { Storyboard, StoryboardBundle, StoryboardStep } from './model.js';
import type { StoryboardState } from './state.js';
import { encodeForUrl } from './substitution-encoding.js';
import {
  type BindingFinding,
  extractTrackerUrls,
  macroPositions,
  OBSERVE_LIMITS,
  observe,
  parseTemplate,
  positionText,
  type ResolvedBinding,
  type TrackerUrl,
  valueInUrl,
} from './substitution-observe.js';

export const SUBSTITUTION_STEP = 'expect_substitution_safe';
export const OBSERVER_CONTRACT = 'substitution_observer_runner';
const KIT_GAP = 'the substitution_observer_runner test kit';
const VECTORS_GAP = 'catalog-macro substitution vectors';
/** The kit's url_fetch bounds, which a kit may lower and never raise. */
const FETCH_CAPS = { maxBytes: 256 * 1024, connectMs: 3_000, totalMs: 10_000 };
const HTML_TYPES = ['text/html', 'application/xhtml+xml'];
const RUNNER_SIDE = /^(expect_|assert_contribution$)/;

export interface SubstitutionEnv {
  bundle: StoryboardBundle;
  state: StoryboardState;
  /** The step's authored values after the storyboard's substitutions (throws UnresolvedSubstitution). */
  substitute(value: unknown): unknown;
  /** The check id of a step of the storyboard. */
  checkOf(stepId: string): string;
}

type Result = { verdict: StepVerdict; record?: StepRecord; storyboard?: { validations: ValidationRecord[] } };

/** The step whose response the observation reads: the nearest earlier step calling an agent task. */
export function sourceStepOf(sb: Storyboard, stepId: string): StoryboardStep | undefined {
  const all = sb.phases.flatMap((p) => p.steps);
  const at = all.findIndex((s) => s.id === stepId);
  return all
    .slice(0, Math.max(0, at))
    .reverse()
    .find((s) => !RUNNER_SIDE.test(s.task));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const na = (message: string): Result => ({ verdict: { status: 'not_applicable', message } });
const gap = (gapName: string, message: string): Result => ({ verdict: { status: 'gap', gap: gapName, message } });
const digest = (s: string) => `sha256:${createHash('sha256').update(s, 'utf8').digest('hex')}`;

/** RFC 6901: the member `pointer` names, or undefined. */
function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let cur = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isObject(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

interface Vector {
  name: string;
  macro: string;
  value: string;
  template: string;
  expected: string;
}

/** The kit's vector fixture, found in the bundle (`static/` of the spec repository's path dropped), or why not. */
function loadVectors(bundle: StoryboardBundle, kitData: Record<string, unknown>): Vector[] | string {
  const catalog = isObject(kitData.attacker_value_catalog) ? kitData.attacker_value_catalog : {};
  const named = typeof catalog.source_fixture === 'string' ? catalog.source_fixture : 'test-vectors/catalog-macro-substitution.json';
  const root = resolve(bundle.root);
  const tries = [named, named.replace(/^static\//, ''), `test-vectors/${basename(named)}`].map((p) => resolve(root, p));
  const file = tries.find((f) => !relative(root, f).startsWith('..') && existsSync(f) && statSync(f).isFile());
  if (!file) return `the bundle has no ${named.replace(/^static\//, '')} (the vector fixture the kit names); supply it in the bundle`;
  if (statSync(file).size > BUNDLE_LIMITS.maxFileBytes) return `${relative(root, file)} is larger than ${BUNDLE_LIMITS.maxFileBytes} bytes`;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { vectors?: unknown };
    const vectors = Array.isArray(data.vectors) ? data.vectors.filter(isObject) : [];
    return vectors.filter((v): v is Vector & Record<string, unknown> =>
      ['name', 'macro', 'value', 'template', 'expected'].every((k) => typeof v[k] === 'string'),
    ) as Vector[];
  } catch (e) {
    return `${relative(root, file)} is not JSON (${(e as Error).message})`;
  }
}

/** The values of each authored binding, or the input the run lacks for one of them. */
function resolveBindings(raw: unknown[], vectors: () => Vector[] | string): ResolvedBinding[] | Result {
  const out: ResolvedBinding[] = [];
  for (const [i, b] of raw.entries()) {
    if (!isObject(b) || typeof b.macro !== 'string' || !/^\{[A-Za-z0-9_]+\}$/.test(b.macro))
      return na(`catalog_bindings[${i}] names no {MACRO}: the storyboard authored it wrongly`);
    const label = [typeof b.catalog_item_id === 'string' ? `item ${b.catalog_item_id}` : '', typeof b.vector_name === 'string' ? `vector ${b.vector_name}` : '']
      .filter(Boolean)
      .join(', ');
    if (typeof b.raw_value === 'string' || typeof b.expected_encoded === 'string') {
      const rawValue = typeof b.raw_value === 'string' ? b.raw_value : decodeURIComponentSafe(String(b.expected_encoded));
      out.push({
        macro: b.macro,
        label,
        raw: rawValue,
        expected: typeof b.expected_encoded === 'string' ? b.expected_encoded : encodeForUrl(rawValue),
        custom: true,
      });
      continue;
    }
    if (typeof b.vector_name !== 'string') return na(`catalog_bindings[${i}] has neither vector_name nor raw_value: the storyboard authored it wrongly`);
    const all = vectors();
    if (typeof all === 'string') return gap(VECTORS_GAP, `${SUBSTITUTION_STEP}: ${all}`);
    const v = all.find((x) => x.name === b.vector_name);
    if (!v) return gap(VECTORS_GAP, `${SUBSTITUTION_STEP}: the vector fixture has no vector ${b.vector_name}; supply a fixture that has it`);
    const template = parseTemplate(v.template);
    const expected = (template && valueInUrl(template, v.macro, v.expected)) ?? encodeForUrl(v.value);
    out.push({ macro: b.macro, label, raw: v.value, expected, custom: false });
  }
  return out;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The preview's HTML: inline, or fetched from the preview URL; a Result when there is none to observe. */
async function previewHtml(ctx: CheckContext, source: string, value: string, kitData: Record<string, unknown>): Promise<string | Result> {
  if (source === 'html_inline') return value;
  const modes = Array.isArray(kitData.observation_modes) ? kitData.observation_modes.filter(isObject) : [];
  const fetchCfg = modes.find((m) => m.mode === 'url_fetch')?.runner_config;
  const cfg = isObject(fetchCfg) && isObject(fetchCfg.fetch) ? fetchCfg.fetch : {};
  const num = (v: unknown, cap: number, scale = 1) => (typeof v === 'number' && v > 0 ? Math.min(v * scale, cap) : cap);
  const maxBytes = num(cfg.max_body_bytes, FETCH_CAPS.maxBytes);
  if (!URL.canParse(value)) return fail('preview_url_unusable', `the preview URL ${JSON.stringify(value.slice(0, 200))} is not a URL`, 'an https URL', value);
  const local = isLoopbackHost(new URL(ctx.transport.endpoint).hostname) && isLoopbackHost(new URL(value).hostname);
  const fetcher = createSafeFetcher({
    policy: ctx.run.addressPolicy,
    allowInsecureLoopback: local,
    connectTimeoutMs: num(cfg.max_connect_seconds, FETCH_CAPS.connectMs, 1000),
    totalTimeoutMs: num(cfg.timeout_seconds, FETCH_CAPS.totalMs, 1000),
    accept: HTML_TYPES.join(', '),
  });
  ctx.notes.push(`fetched the preview ${value} without credentials (at most ${maxBytes} bytes)`);
  try {
    const got = await fetcher(value, { maxBytes });
    const type = String(got.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (!HTML_TYPES.includes(type)) return fail('preview_url_unusable', `content_type: ${value} answered ${type || 'no content type'}`, HTML_TYPES, type);
    return got.body.toString('utf8');
  } catch (e) {
    if (!(e instanceof SafeFetchError)) throw e;
    if (e.kind === 'address' || e.kind === 'scheme')
      return gap(
        'a preview host the run may fetch',
        `preview_url_unusable: ssrf_blocked: ${e.message} (the run's address policy or https-only rule refuses ${value})`,
      );
    if (e.kind === 'network') return gap('a preview host the run may fetch', `preview_url_unusable: ${value} could not be reached from this run: ${e.message}`);
    const sub = { redirect: 'redirect_returned', status: 'http_status', too_large: 'size_exceeded', timeout: 'fetch_timeout', url: 'http_status' }[e.kind];
    return fail('preview_url_unusable', `${sub}: ${e.message}`, 'HTTP 200 with an HTML body', e.kind);
  }
}

function fail(code: string, message: string, expected: unknown, actual: unknown, check = 'preview_source'): Result {
  const text = `${code}: ${message}`;
  return {
    verdict: { status: 'failed', message: text, expected, actual },
    storyboard: {
      validations: [
        { check, outcome: 'failed', severity: 'required', description: 'the preview the step observes', message: text, expected, actual, pointer: '' },
      ],
    },
  };
}

const CHECK_OF: Record<string, string> = {
  substitution_encoding_violation: 'substitution_encoded',
  nested_macro_re_expansion: 'nested_expansion_not_re_scanned',
  substitution_scheme_injection: 'url_scheme_preserved',
  substitution_binding_missing: 'substitution_binding_observed',
};

const where = (u: TrackerUrl) => `${u.tag} ${u.attr}${u.line ? `, line ${u.line}` : ''}`;

function recordOfFinding(f: BindingFinding, required: boolean, shownUrls: string): ValidationRecord {
  const b = f.binding;
  const show = (s: string) => (b.custom ? digest(s) : JSON.stringify(s));
  const name = `${b.macro}${b.label ? ` (${b.label})` : ''}`;
  if (f.outcome === 'observed' && f.at)
    return {
      check: 'substitution_encoded',
      outcome: 'passed',
      severity: 'required',
      description: `${name} is substituted percent-encoded`,
      message: `${name} found at ${positionText(f.at.position)} of ${b.custom ? 'a URL' : f.at.url.url} (${where(f.at.url)})`,
    };
  if (f.outcome === 'missing') {
    const message = `substitution_binding_missing: ${name}: no URL of the template's shape carries its encoded form ${show(b.expected)}${shownUrls}`;
    return {
      check: CHECK_OF.substitution_binding_missing!,
      outcome: required ? 'failed' : 'not_applicable',
      severity: 'required',
      description: `${name} is observed in the preview`,
      message: required ? message : `${message} (require_every_binding_observed: false)`,
      ...(required ? { expected: b.custom ? digest(b.expected) : b.expected, actual: null, pointer: '' } : {}),
    };
  }
  const at = f.at!;
  const message =
    `${f.code}: ${name} at ${positionText(at.position)} of ${b.custom ? digest(at.url.url) : JSON.stringify(at.url.url)} (${where(at.url)}): ` +
    `expected ${show(b.expected)}, observed ${show(at.value)}, differing at offset ${f.offset}: ${f.why}`;
  return {
    check: CHECK_OF[f.code ?? 'substitution_encoding_violation']!,
    outcome: 'failed',
    severity: 'required',
    description: `${name} is substituted percent-encoded`,
    message,
    expected: b.custom ? digest(b.expected) : b.expected,
    actual: b.custom ? digest(at.value) : at.value,
    pointer: '',
  };
}

export async function runSubstitutionStep(step: StoryboardStep, sb: Storyboard, ctx: CheckContext, env: SubstitutionEnv): Promise<Result> {
  const contract = step.raw.requires_contract;
  if (contract !== undefined && contract !== OBSERVER_CONTRACT)
    return na(`${SUBSTITUTION_STEP} requires the ${String(contract)} contract, which the harness does not carry out`);
  const kit = env.bundle.testKits.find((k) => k.id === OBSERVER_CONTRACT);
  if (!kit)
    return gap(KIT_GAP, `${SUBSTITUTION_STEP}: the bundle has no ${OBSERVER_CONTRACT} test kit (test-kits/substitution-observer-runner.yaml); supply it`);
  const authored = env.substitute({
    source: step.raw.source ?? 'html_inline',
    source_path: step.raw.source_path,
    macro_template: step.raw.macro_template,
    catalog_bindings: step.raw.catalog_bindings,
  }) as Record<string, unknown>;
  const { source, source_path: pointer, macro_template: templateText, catalog_bindings: rawBindings } = authored;
  if (source !== 'html_inline' && source !== 'url_fetch')
    return na(`source ${JSON.stringify(source)} is neither html_inline nor url_fetch: the storyboard authored it wrongly`);
  if (typeof pointer !== 'string') return na('the step has no source_path: the storyboard authored it wrongly');
  const template = typeof templateText === 'string' ? parseTemplate(templateText) : undefined;
  if (!template) return na(`macro_template ${JSON.stringify(templateText)} is neither an absolute URL nor a {MACRO}: the storyboard authored it wrongly`);
  if (!Array.isArray(rawBindings) || rawBindings.length === 0) return na('the step has no catalog_bindings: the storyboard authored it wrongly');
  const requireAll = (step.raw.require_every_binding_observed ?? step.raw.require_all_bindings_observed) !== false;

  let vectorCache: Vector[] | string | undefined;
  const bindings = resolveBindings(rawBindings, () => (vectorCache ??= loadVectors(env.bundle, kit.data)));
  if (!Array.isArray(bindings)) return bindings;
  const unplaced = bindings.find((b) => macroPositions(template, b.macro).length === 0);
  if (unplaced) return na(`macro_template ${template.raw} has no position of ${unplaced.macro}: the storyboard authored it wrongly`);

  const sourceStep = sourceStepOf(sb, step.id);
  if (!sourceStep) return na(`no step before ${step.id} calls a task whose preview the step could observe`);
  // The step it observes must have passed: one that failed, was blocked or was a gap blocks it; one that did not apply leaves nothing to observe.
  if (!env.state.passed.has(sourceStep.id)) {
    const why = env.state.notJudged.get(sourceStep.id) ?? (env.state.priorSteps.has(sourceStep.id) ? 'it did not pass' : undefined);
    if (why === undefined) return na(`step ${sourceStep.id}, whose preview the step observes, did not run`);
    return {
      verdict: {
        status: 'unmet',
        message: `step ${sourceStep.id}, whose preview the step observes, did not hold: ${why}`,
        blocked_by: env.checkOf(sourceStep.id),
      },
    };
  }
  const value = atPointer(env.state.priorSteps.get(sourceStep.id), pointer);
  if (value === undefined)
    return na(
      `preview_source_unavailable: the response of step ${sourceStep.id} has no ${pointer}: the agent exposes no preview there for the step to observe`,
    );
  if (typeof value !== 'string' || value.trim() === '')
    return fail('preview_source_unavailable', `${pointer} of step ${sourceStep.id}'s response is ${JSON.stringify(value)}`, 'a non-empty string', value);
  if (source === 'html_inline' && value.length > OBSERVE_LIMITS.htmlChars)
    return na(`${pointer} of step ${sourceStep.id}'s response is longer than ${OBSERVE_LIMITS.htmlChars} characters, more than the step observes`);

  const html = await previewHtml(ctx, source, value, kit.data);
  if (typeof html !== 'string') return html;
  const urls = extractTrackerUrls(html);
  const seen = observe(urls, template, bindings);
  const anyCustom = bindings.some((b) => b.custom);
  const shownUrls =
    seen.shaped === 0
      ? `; no URL of the preview has the template's shape ${template.raw}${
          anyCustom
            ? ''
            : ` (${urls.length} tracker URLs: ${urls
                .slice(0, 5)
                .map((u) => JSON.stringify(u.url))
                .join(', ')}${urls.length > 5 ? ', …' : ''})`
        }`
      : '';
  const validations = seen.findings.map((f) => recordOfFinding(f, requireAll, shownUrls));
  for (const s of seen.strays)
    validations.push({
      check: 'rfc3986_unreserved_only_at_macro_position',
      outcome: 'failed',
      severity: 'required',
      description: 'every value at a catalog macro position is unreserved or %XX',
      message: `substitution_encoding_violation: ${JSON.stringify(s.value)} at ${positionText(s.position)} of ${JSON.stringify(s.url.url)} (${where(s.url)}), a value no binding claims, has ${JSON.stringify(s.value[s.offset])} at offset ${s.offset}, neither RFC 3986 unreserved nor a %XX triplet`,
      expected: 'RFC 3986 unreserved characters and %XX triplets only',
      actual: s.value,
      pointer: '',
    });
  ctx.notes.push(
    `${urls.length} tracker URLs in the preview of step ${sourceStep.id}, ${seen.shaped} of the template's shape; ${seen.findings.filter((f) => f.outcome === 'observed').length} of ${bindings.length} bindings observed safely encoded`,
  );
  const record: StepRecord = {
    task: SUBSTITUTION_STEP,
    payload: {
      source_step: sourceStep.id,
      source,
      source_path: pointer,
      tracker_urls: anyCustom ? urls.length : urls.slice(0, 50).map((u) => ({ url: u.url, tag: u.tag, attr: u.attr, line: u.line ?? null })),
    },
  };
  const failed = validations.filter((v) => v.outcome === 'failed');
  if (failed.length === 0) return { verdict: { status: 'ok' }, record, storyboard: { validations } };
  return {
    verdict: { status: 'failed', message: failed.map((v) => v.message).join('; '), expected: failed[0]!.expected, actual: failed[0]!.actual },
    record,
    storyboard: { validations },
  };
}
