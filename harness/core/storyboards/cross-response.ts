/**
 * The cross-response kinds of a parallel dispatch (parallel-dispatch.ts), judged once on the
 * responses that resolved without an error: `cross_response_field_equal` (every one carries the
 * same value at `path`; fewer than two resolved fails) and `cross_response_count_distinct` (the
 * number of distinct values at `path` is one of `allowed_values`; none resolved fails). On a step
 * with a single call they are not applicable.
 */
import { isDeepStrictEqual } from 'node:util';
import { fail, na, pass, type Judge } from './judge.js';
import { pointerOf, resolveStoryboardPath } from './path.js';

function valuesOf(path: string, responses: readonly unknown[]): unknown[] | undefined {
  try {
    return responses.map((r) => resolveStoryboardPath(r, path));
  } catch {
    return undefined;
  }
}

function distinct(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) if (!out.some((x) => isDeepStrictEqual(x, v))) out.push(v);
  return out;
}

export const crossResponseFieldEqual: Judge = (v, _o, env) => {
  if (!env.crossResponses) return na('judged on a parallel_dispatch step only; this step made one call');
  if (!v.path) return na("the storyboard's cross_response_field_equal validation names no path");
  const values = valuesOf(v.path, env.crossResponses);
  if (!values) return na(`the storyboard's cross_response_field_equal validation has a malformed path ${JSON.stringify(v.path)}`);
  if (values.length < 2)
    return fail(`${values.length} dispatch(es) resolved without an error; at least 2 are needed to compare ${v.path}`, 'at least 2 resolved', values.length);
  const seen = distinct(values);
  return seen.length === 1 && seen[0] !== undefined
    ? pass
    : fail(`the resolved dispatches carry ${seen.length} different values at ${v.path}`, 'one value', seen, pointerOf(v.path));
};

export const crossResponseCountDistinct: Judge = (v, _o, env) => {
  if (!env.crossResponses) return na('judged on a parallel_dispatch step only; this step made one call');
  if (!v.path) return na("the storyboard's cross_response_count_distinct validation names no path");
  const allowed = (v.allowed_values ?? []).filter((x): x is number => Number.isInteger(x));
  if (allowed.length === 0) return na("the storyboard's cross_response_count_distinct validation gives no allowed counts");
  const values = valuesOf(v.path, env.crossResponses);
  if (!values) return na(`the storyboard's cross_response_count_distinct validation has a malformed path ${JSON.stringify(v.path)}`);
  if (values.length === 0) return fail('no dispatch resolved without an error', allowed, 0);
  const n = distinct(values.filter((x) => x !== undefined)).length;
  return allowed.includes(n)
    ? pass
    : fail(`${n} distinct value(s) at ${v.path} across ${values.length} resolved dispatches, expected ${allowed.join(' or ')}`, allowed, n, pointerOf(v.path));
};
