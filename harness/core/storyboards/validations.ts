/**
 * A storyboard step's validations judged against what the agent answered (digest 6.1, "Authored
 * check kinds"). Each gives `passed`, `failed` (with expected, actual and a JSON pointer) or
 * `not_applicable`: an unknown kind, a kind the harness cannot judge here, or a validation the
 * storyboard authored wrongly (no path, no value) — the storyboard's defect, never the agent's.
 * `severity` is the one judged (an advisory past its `expires_after_version` is required: runner-capability.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { StoryboardValidation } from './model.js';
import type { SchemaIdentity, ValidationRecord } from '../engine/storyboard-step.js';
import { pointerOf, resolveStoryboardPathAll } from './path.js';
import { fail, na, pass, type Judge } from './judge.js';
import { a2aContextContinuity, a2aSubmittedArtifact, on401RequireHeader, resourceEqualsAgentUrl } from './validations-wire.js';
import { refsResolve } from './refs-resolve.js';
import { upstreamTraffic } from './upstream-traffic.js';
import { crossResponseCountDistinct, crossResponseFieldEqual } from './cross-response.js';
import { oauthMetadataGraph } from './oauth-metadata-graph.js';
import { canonicalFormatSatisfaction } from './canonical-format.js';
import { replayNotCachedRateLimit } from './replay-not-cached.js';

export type { SchemaJudgement, StepOutcome, ValidationEnv } from './judge.js';
import type { StepOutcome, ValidationEnv } from './judge.js';

/** `the released 3.0.6 schema media-buy/get-products-response.json`, `the harness's schema get_products-response.json (line 3.1)`. */
export const schemaText = (s: SchemaIdentity) =>
  s.set === 'released' ? `the released ${s.version} schema ${s.file}` : `the harness's schema ${s.file} (line ${s.line})`;

const shown = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v)?.slice(0, 200));

/** The values at the validation's path, or a not-applicable result naming the storyboard's defect. */
function valuesAt(v: StoryboardValidation, o: StepOutcome): unknown[] | ReturnType<typeof na> {
  if (!v.path) return na(`the storyboard's ${v.check} validation names no path`);
  try {
    return resolveStoryboardPathAll(o.payload, v.path).filter((x) => x !== undefined);
  } catch {
    return na(`the storyboard's ${v.check} validation has a malformed path ${JSON.stringify(v.path)}`);
  }
}
/** The expected values: `allowed_values` when given, else `value`. */
const candidates = (v: StoryboardValidation): unknown[] => (v.allowed_values?.length ? v.allowed_values : 'value' in v ? [v.value] : []);
const matches = (actual: unknown, v: StoryboardValidation) => candidates(v).some((c) => isDeepStrictEqual(actual, c));

const present: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  return at.some((x) => x !== null) ? pass : fail(`no value at ${v.path}`, `a value at ${v.path}`, at[0] ?? undefined, pointerOf(v.path!));
};
const absent: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  return at.length === 0 ? pass : fail(`${v.path} is present: ${shown(at[0])}`, `no ${v.path}`, at[0], pointerOf(v.path!));
};
const value: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  if (candidates(v).length === 0) return na(`the storyboard's ${v.check} validation gives no value`);
  const actual = at[0];
  return at.length > 0 && matches(actual, v)
    ? pass
    : fail(`${v.path} is ${shown(actual)}, expected ${candidates(v).map(shown).join(' or ')}`, v.allowed_values ?? v.value, actual, pointerOf(v.path!));
};
const valueOrAbsent: Judge = (v, o, env) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  return at.length === 0 ? pass : value(v, o, env);
};
const contains: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  if (candidates(v).length === 0) return na(`the storyboard's ${v.check} validation gives no value`);
  // A path naming one array looks inside it; a [*] path gives the elements themselves.
  const items = at.length === 1 && Array.isArray(at[0]) ? (at[0] as unknown[]) : at;
  return items.some((x) => matches(x, v))
    ? pass
    : fail(`${v.path} does not contain ${candidates(v).map(shown).join(' or ')}`, v.allowed_values ?? v.value, items.slice(0, 20), pointerOf(v.path!));
};
const pattern: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  const source = typeof v.raw.pattern === 'string' ? v.raw.pattern : typeof v.value === 'string' ? v.value : undefined;
  if (source === undefined) return na(`the storyboard's ${v.check} validation gives no pattern`);
  let re: RegExp;
  try {
    re = new RegExp(source, 'u');
  } catch {
    return na(`the storyboard's ${v.check} pattern ${JSON.stringify(source)} is not a regular expression`);
  }
  const actual = at[0];
  return typeof actual === 'string' && re.test(actual)
    ? pass
    : fail(`${v.path} is ${shown(actual)}, not matching /${source}/`, source, actual, pointerOf(v.path!));
};
const arrayLength: Judge = (v, o) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  const min = typeof v.raw.min === 'number' ? v.raw.min : typeof v.value === 'number' ? v.value : undefined;
  const max = typeof v.raw.max === 'number' ? v.raw.max : typeof v.value === 'number' ? v.value : undefined;
  if (min === undefined && max === undefined) return na(`the storyboard's ${v.check} validation gives no length`);
  const actual = at[0];
  if (!Array.isArray(actual)) return fail(`${v.path} is not an array: ${shown(actual)}`, 'an array', actual, pointerOf(v.path!));
  const ok = (min === undefined || actual.length >= min) && (max === undefined || actual.length <= max);
  const want = min === max ? `${min}` : `${min ?? 0}..${max ?? '∞'}`;
  return ok ? pass : fail(`${v.path} has ${actual.length} items, expected ${want}`, want, actual.length, pointerOf(v.path!));
};
const compare =
  (less: boolean): Judge =>
  (v, o, env) => {
    const at = valuesAt(v, o);
    if (!Array.isArray(at)) return at;
    const bound = typeof v.raw.context_key === 'string' ? env.context.get(v.raw.context_key) : v.value;
    if (typeof bound !== 'number') return na(`the storyboard's ${v.check} validation has no numeric bound`);
    const actual = at[0];
    const ok = typeof actual === 'number' && (less ? actual < bound : actual > bound);
    return ok ? pass : fail(`${v.path} is ${shown(actual)}, expected ${less ? 'less' : 'greater'} than ${bound}`, bound, actual, pointerOf(v.path!));
  };
const equalsContext: Judge = (v, o, env) => {
  const at = valuesAt(v, o);
  if (!Array.isArray(at)) return at;
  const key = v.raw.context_key;
  if (typeof key !== 'string' || !env.context.has(key)) return na(`the storyboard's ${v.check} validation names no captured value`);
  const want = env.context.get(key);
  return at.length > 0 && isDeepStrictEqual(at[0], want)
    ? pass
    : fail(`${v.path} is ${shown(at[0])}, not the captured ${key} ${shown(want)}`, want, at[0], pointerOf(v.path!));
};
const inContextArray =
  (all: boolean): Judge =>
  (v, o, env) => {
    const at = valuesAt(v, o);
    if (!Array.isArray(at)) return at;
    const key = v.raw.context_key;
    const pool = typeof key === 'string' ? env.context.get(key) : undefined;
    if (!Array.isArray(pool)) return na(`the storyboard's ${v.check} validation names no captured array`);
    const items = all && at.length === 1 && Array.isArray(at[0]) ? (at[0] as unknown[]) : all ? at : at.slice(0, 1);
    const outside = items.find((x) => !pool.some((p) => isDeepStrictEqual(p, x)));
    return items.length > 0 && outside === undefined
      ? pass
      : fail(`${v.path} holds ${shown(outside ?? items[0])}, not among the captured ${String(key)}`, pool, outside ?? items[0], pointerOf(v.path!));
  };
const errorCode: Judge = (v, o) => {
  if (o.ok) return fail('the task succeeded, expected an error', candidates(v).length ? (v.allowed_values ?? v.value) : 'an error code', o.payload);
  if (o.errorCode === undefined) return fail('the error carries no code', candidates(v).length ? (v.allowed_values ?? v.value) : 'an error code', o.payload);
  if (candidates(v).length === 0) return pass;
  return candidates(v).some((c) => String(c) === o.errorCode)
    ? pass
    : fail(`error ${o.errorCode}, expected ${candidates(v).map(String).join(' or ')}`, v.allowed_values ?? v.value, o.errorCode);
};
const httpStatus: Judge = (v, o) => {
  if (o.httpStatus === undefined) return na('no HTTP status was observed for this step');
  const want = v.check === 'http_status_in' ? (v.allowed_values ?? (Array.isArray(v.value) ? v.value : [])) : [v.value];
  if (want.length === 0 || want.some((w) => typeof w !== 'number')) return na(`the storyboard's ${v.check} validation gives no status`);
  return want.includes(o.httpStatus) ? pass : fail(`HTTP ${o.httpStatus}, expected ${want.join(' or ')}`, want, o.httpStatus);
};
/** Judged against the schema the run applies (response-schema.ts); a failure names each error's pointer and schema file, its expected the schema's `$id` and its actual the errors (the runner output contract's shape). */
const responseSchema: Judge = (_v, o, env) => {
  const j = env.responseSchema?.(o);
  if (!j) return na('no response schema of this task to validate with');
  if ('problem' in j) return na(j.problem);
  const against = `${schemaText(j.schema)}${j.note ? ` (${j.note})` : ''}`;
  if (j.valid) return { outcome: 'passed', message: `valid against ${against}`, schema: j.schema };
  const shown = j.errors.slice(0, 3).map((e) => `${e.pointer || '/'} ${e.message} (${e.schemaPath})`);
  const more = j.errors.length > 3 ? ` (+${j.errors.length - 3} more)` : '';
  const actual = j.errors.map((e) => ({ instance_path: e.pointer, schema_path: e.schemaPath, keyword: e.keyword, message: e.message }));
  return {
    ...fail(`the response is not valid against ${against}: ${shown.join('; ')}${more}`, j.schema.id, actual, j.errors[0]?.pointer ?? ''),
    schema: j.schema,
  };
};

const KINDS: Record<string, Judge> = {
  field_present: present,
  envelope_field_present: present,
  field_absent: absent,
  envelope_field_absent: absent,
  field_value: value,
  envelope_field_value: value,
  field_value_or_absent: valueOrAbsent,
  envelope_field_value_or_absent: valueOrAbsent,
  field_contains: contains,
  field_pattern: pattern,
  envelope_field_pattern: pattern,
  array_length: arrayLength,
  field_less_than: compare(true),
  field_greater_than: compare(false),
  field_equals_context: equalsContext,
  field_in_context_array: inContextArray(false),
  all_fields_in_context_array: inContextArray(true),
  error_code: errorCode,
  http_status: httpStatus,
  http_status_in: httpStatus,
  status_code: httpStatus,
  response_schema: responseSchema,
  on_401_require_header: on401RequireHeader,
  a2a_submitted_artifact: a2aSubmittedArtifact,
  a2a_context_continuity: a2aContextContinuity,
  resource_equals_agent_url: resourceEqualsAgentUrl,
  refs_resolve: refsResolve,
  upstream_traffic: upstreamTraffic,
  cross_response_field_equal: crossResponseFieldEqual,
  cross_response_count_distinct: crossResponseCountDistinct,
  oauth_metadata_graph: oauthMetadataGraph,
  canonical_format_satisfaction: canonicalFormatSatisfaction,
  replay_not_cached_rate_limit: replayNotCachedRateLimit,
};

/** The kinds judged here; any other authored kind is not applicable (and counted as such by the caller). */
export const JUDGED_KINDS: ReadonlySet<string> = new Set(Object.keys(KINDS));

export function judgeValidation(authored: StoryboardValidation, o: StepOutcome, env: ValidationEnv): ValidationRecord {
  const base = {
    check: authored.check,
    severity: authored.severity ?? 'required',
    ...(authored.description ? { description: authored.description } : {}),
  } as const;
  const judge = KINDS[authored.check];
  if (!judge) return { ...base, ...na(`the harness does not judge ${authored.check} validations`) };
  const v = withContextValues(authored, env.context);
  if ('outcome' in v) return { ...base, ...v };
  return { ...base, ...judge(v, o, env) };
}

const CONTEXT_REF = /^\$context\.([A-Za-z0-9_.-]+)$/;

/** Expected values written as `$context.<name>` are the values earlier steps captured. */
function withContextValues(v: StoryboardValidation, context: ReadonlyMap<string, unknown>): StoryboardValidation | ReturnType<typeof na> {
  const refs = [v.value, ...(v.allowed_values ?? [])].flatMap((x) => (typeof x === 'string' ? (CONTEXT_REF.exec(x)?.slice(1, 2) ?? []) : []));
  if (refs.length === 0) return v;
  const missing = refs.filter((name) => !context.has(name));
  if (missing.length > 0) return na(`the expected value names $context.${missing[0]}, which no earlier step captured`);
  const resolve = (x: unknown) => {
    const name = typeof x === 'string' ? CONTEXT_REF.exec(x)?.[1] : undefined;
    return name === undefined ? x : context.get(name);
  };
  return { ...v, ...('value' in v ? { value: resolve(v.value) } : {}), ...(v.allowed_values ? { allowed_values: v.allowed_values.map(resolve) } : {}) };
}
