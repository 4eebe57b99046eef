/**
 * `upstream_traffic` (digest 6.1 authored kinds; the controller's `query_upstream_traffic`
 * scenario): an adapter really called its upstream platform with what the storyboard sent, rather
 * than answering shape-valid placeholders. After the step, the harness asks the test controller
 * for the calls the agent recorded since the step's request started (or since the start of the
 * step `since` names), 250 ms early for clock skew, at most 100. Then:
 * - `min_count` (default 1) calls match `endpoint_pattern` (a glob on the call's `endpoint`,
 *   e.g. `POST https://api.example/v1/audience*`; all calls without one);
 * - each `payload_must_contain` {path, match: present | equals | contains_any} holds on some
 *   matched JSON call (paths are dotted with `[n]` and `[*]`); a path only non-JSON calls could
 *   answer is not applicable, and when every path is, so is the validation;
 * - every value the request sent at each `identifier_paths` path appears, at any depth (or as a
 *   substring of a text payload), in some matched call.
 * An agent whose controller does not offer the scenario makes the validation not applicable
 * (opting in is the agent's choice); a `since` naming no earlier step is the storyboard's defect;
 * a controller refusal fails, naming it.
 */
import { isDeepStrictEqual } from 'node:util';
import { fail, na, pass, type Judge } from './judge.js';
export type { UpstreamQueries } from './judge.js';
import { resolveStoryboardPathAll } from './path.js';

export const SKEW_MS = 250;
export const QUERY_LIMIT = 100;
const MAX_DEPTH = 256;

interface RecordedCall {
  endpoint?: unknown;
  content_type?: unknown;
  payload?: unknown;
}

/** `*` any run of characters, `?` one; everything else literal. */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

const isJson = (ct: unknown) => typeof ct === 'string' && /^application\/([a-z0-9.+-]*\+)?json\b/i.test(ct.trim());

function valuesAt(root: unknown, path: string): unknown[] {
  try {
    return resolveStoryboardPathAll(root, path.replace(/^\$\.?/, '')).filter((v) => v !== undefined);
  } catch {
    return [];
  }
}

function containsAnyDepth(root: unknown, target: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (isDeepStrictEqual(root, target)) return true;
  if (Array.isArray(root)) return root.some((x) => containsAnyDepth(x, target, depth + 1));
  if (root && typeof root === 'object') return Object.values(root).some((x) => containsAnyDepth(x, target, depth + 1));
  return false;
}

export const upstreamTraffic: Judge = (v, _o, env) => {
  const up = env.upstream;
  if (!up?.advertised) return na("the agent's test controller does not offer query_upstream_traffic (an opt-in of the agent)");
  const since = typeof v.raw.since === 'string' ? v.raw.since : undefined;
  if (since !== undefined && !up.sinceOf.has(since))
    return fail(`since: "${since}" names no earlier step of the storyboard that sent a request`, 'an earlier step id', since);
  const key = since !== undefined ? (up.sinceOf.get(since) as string) : up.thisStepSince;
  const answer = up.answers.get(key);
  if (!answer) return fail(`no query_upstream_traffic answer for since_timestamp ${key}`, 'a controller answer', null);
  if ('error' in answer) return fail(`query_upstream_traffic failed: ${answer.error.slice(0, 300)}`, 'success: true', answer.error.slice(0, 300));
  const all = answer.calls as RecordedCall[];
  const pattern = typeof v.raw.endpoint_pattern === 'string' ? globRegExp(v.raw.endpoint_pattern) : undefined;
  const matched = pattern ? all.filter((c) => typeof c?.endpoint === 'string' && pattern.test(c.endpoint)) : all;
  const minCount = Number.isInteger(v.raw.min_count) ? (v.raw.min_count as number) : 1;
  const specs = Array.isArray(v.raw.payload_must_contain) ? (v.raw.payload_must_contain as Array<Record<string, unknown>>) : [];
  const missingPaths: string[] = [];
  const unjudgedPaths: string[] = [];
  for (const spec of specs) {
    const path = typeof spec?.path === 'string' ? spec.path : undefined;
    if (!path) return na("the storyboard's upstream_traffic validation has a payload_must_contain entry without a path");
    const json = matched.filter((c) => isJson(c?.content_type));
    if (json.length === 0) {
      unjudgedPaths.push(path);
      continue;
    }
    const holds = json.some((c) => {
      const found = valuesAt(c.payload, path);
      if (found.length === 0) return false;
      if (spec.match === 'equals') return found.some((x) => isDeepStrictEqual(x, spec.value));
      if (spec.match === 'contains_any') return found.some((x) => ((spec.allowed_values as unknown[]) ?? []).some((a) => isDeepStrictEqual(x, a)));
      return true;
    });
    if (!holds) missingPaths.push(path);
  }
  const idPaths = Array.isArray(v.raw.identifier_paths) ? (v.raw.identifier_paths as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  const missingValues: unknown[] = [];
  for (const path of idPaths)
    for (const value of valuesAt(up.sent, path)) {
      if (value === null) continue;
      const echoed = matched.some((c) =>
        typeof c?.payload === 'string' ? typeof value === 'string' && c.payload.includes(value) : containsAnyDepth(c?.payload, value),
      );
      if (!echoed && !missingValues.some((m) => isDeepStrictEqual(m, value))) missingValues.push(value);
    }
  const actual = { matched_count: matched.length, total_calls: all.length, missing_payload_paths: missingPaths, missing_identifier_values: missingValues };
  const problems: string[] = [];
  if (matched.length < minCount) problems.push(`expected at least ${minCount} matching upstream call(s), observed ${matched.length} of ${all.length}`);
  if (missingPaths.length > 0) problems.push(`no matched call's payload holds ${missingPaths.join(', ')}`);
  if (missingValues.length > 0)
    problems.push(
      `values the request sent reached no upstream call: ${missingValues
        .map((x) => JSON.stringify(x))
        .join(', ')
        .slice(0, 300)}`,
    );
  const expected = {
    min_count: minCount,
    endpoint_pattern: v.raw.endpoint_pattern ?? null,
    payload_must_contain: specs.map((s) => s?.path),
    identifier_paths: idPaths,
  };
  if (problems.length > 0) return fail(problems.join('; '), expected, actual, '');
  if (specs.length > 0 && unjudgedPaths.length === specs.length)
    return na(`payload_must_contain paths could be read on no JSON call (${unjudgedPaths.join(', ')}); path matching has no meaning on other content types`);
  return {
    ...pass,
    message: `${matched.length} of ${all.length} upstream call(s) matched${unjudgedPaths.length ? `; not judged on non-JSON calls: ${unjudgedPaths.join(', ')}` : ''}`,
  };
};
