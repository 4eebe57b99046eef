/**
 * `refs_resolve` (digest 6.1 authored kinds; the bundle's storyboard-schema.yaml, "Cross-step
 * integrity"): every ref of a source set resolves to a member of a target set, matched on
 * `match_keys`. `from: current_step` reads the step's result; `from: context` reads what earlier
 * steps captured, and, for a name no step captured (the reference runner fills its context from
 * each task's answer by conventions of its own), the latest earlier response holding that
 * member, saying so. `[*]` flattens arrays; each side is cut at 10 000 values. A ref missing a
 * match key never matches. Refs outside `scope` (`key` equal to `equals`, `$agent_url` the URL
 * the run calls; keys ending in `url` compared without case in scheme and host and without a
 * trailing slash) are passed with a note (`warn`, the default), passed silently (`ignore`) or
 * counted missing (`fail`). A failure lists the missing refs once each, projected to the keys.
 */
import { isDeepStrictEqual } from 'node:util';
import { fail, na, type Judge } from './judge.js';
import { parseStoryboardPath, resolveStoryboardPathAll } from './path.js';
import { urlIdentity } from './url-identity.js';

const FAN_OUT = 10_000;

type Side = { from?: unknown; path?: unknown };

function sideOf(raw: unknown): { from: 'current_step' | 'context'; path: string } | undefined {
  const s = raw as Side | undefined;
  if (!s || typeof s !== 'object' || typeof s.path !== 'string' || s.path === '') return undefined;
  if (s.from !== 'current_step' && s.from !== 'context') return undefined;
  return { from: s.from, path: s.path };
}

/** A URL compared for scope, its query kept; a string that is not a URL without its trailing slashes. */
export const canonicalUrl = (v: string): string => urlIdentity(v, { query: true }) ?? v.replace(/\/+$/, '');

export const refsResolve: Judge = (v, o, env) => {
  const source = sideOf(v.raw.source);
  const target = sideOf(v.raw.target);
  const keys = Array.isArray(v.raw.match_keys) ? v.raw.match_keys.filter((k): k is string => typeof k === 'string' && k !== '') : [];
  if (!source || !target || keys.length === 0)
    return na("the storyboard's refs_resolve validation needs source and target ({from: current_step|context, path}) and match_keys");
  const notes: string[] = [];
  const read = (side: { from: 'current_step' | 'context'; path: string }): unknown[] | string => {
    let root: unknown;
    if (side.from === 'current_step') {
      if (!o.ok) return 'the step answered an error, so its result holds no refs';
      root = o.payload;
    } else {
      let head: string | number | object | undefined;
      try {
        head = parseStoryboardPath(side.path)[0];
      } catch {
        return `the path ${JSON.stringify(side.path)} is malformed`;
      }
      const name = typeof head === 'string' ? head : undefined;
      if (name !== undefined && env.context.has(name)) root = { [name]: env.context.get(name) };
      else {
        const prior = [...(env.priorSteps ?? new Map()).entries()].reverse().find(([, r]) => name !== undefined && r && typeof r === 'object' && name in r);
        if (!prior) return `no earlier step captured or answered ${name ?? side.path}`;
        notes.push(`${name} read from step ${prior[0]}'s response (no step captures it)`);
        root = prior[1];
      }
    }
    try {
      const all = resolveStoryboardPathAll(root, side.path).filter((x) => x !== undefined);
      if (all.length > FAN_OUT) notes.push(`${side.path}: the first ${FAN_OUT} of ${all.length} values`);
      return all.slice(0, FAN_OUT);
    } catch {
      return `the path ${JSON.stringify(side.path)} is malformed`;
    }
  };
  const refs = read(source);
  if (typeof refs === 'string') return na(`refs_resolve source: ${refs}`);
  const members = read(target);
  if (typeof members === 'string') return na(`refs_resolve target: ${members}`);
  const project = (x: unknown): Record<string, unknown> | undefined => {
    if (!x || typeof x !== 'object') return undefined;
    const r = x as Record<string, unknown>;
    if (!keys.every((k) => r[k] !== undefined && r[k] !== null)) return undefined;
    return Object.fromEntries(keys.map((k) => [k, typeof r[k] === 'string' && k.toLowerCase().endsWith('url') ? canonicalUrl(r[k] as string) : r[k]]));
  };
  const pool = members.map(project).filter((m): m is Record<string, unknown> => m !== undefined);
  const scope = v.raw.scope as { key?: unknown; equals?: unknown } | undefined;
  const scopeKey = typeof scope?.key === 'string' ? scope.key : undefined;
  const rawEquals = scope?.equals === '$agent_url' ? env.agentUrl : typeof scope?.equals === 'string' ? scope.equals : undefined;
  const equals = rawEquals !== undefined && scopeKey?.toLowerCase().endsWith('url') ? canonicalUrl(rawEquals) : rawEquals;
  const onOut = v.raw.on_out_of_scope === 'ignore' || v.raw.on_out_of_scope === 'fail' ? v.raw.on_out_of_scope : 'warn';
  const missing: unknown[] = [];
  const outOfScope: unknown[] = [];
  const add = (list: unknown[], x: unknown) => {
    if (!list.some((y) => isDeepStrictEqual(y, x))) list.push(x);
  };
  for (const ref of refs) {
    const p = project(ref);
    const shownRef = p ?? (ref && typeof ref === 'object' ? Object.fromEntries(keys.map((k) => [k, (ref as Record<string, unknown>)[k] ?? null])) : ref);
    if (scopeKey && equals !== undefined && ref && typeof ref === 'object') {
      const at = (ref as Record<string, unknown>)[scopeKey];
      const norm = typeof at === 'string' && scopeKey.toLowerCase().endsWith('url') ? canonicalUrl(at) : at;
      if (norm !== equals) {
        if (onOut === 'fail') add(missing, shownRef);
        else add(outOfScope, shownRef);
        continue;
      }
    }
    if (!p || !pool.some((m) => isDeepStrictEqual(m, p))) add(missing, shownRef);
  }
  if (onOut === 'warn' && outOfScope.length > 0)
    notes.push(`${outOfScope.length} ref(s) outside scope ${scopeKey}=${String(equals)} not verified: ${JSON.stringify(outOfScope.slice(0, 3)).slice(0, 300)}`);
  const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  if (missing.length === 0)
    return { outcome: 'passed', message: `${refs.length} ref(s) of ${source.path}, each in ${target.path} on ${keys.join(', ')}${note}` };
  return fail(
    `${missing.length} ref(s) of ${source.path} resolve to nothing in ${target.path} on ${keys.join(', ')}${note}`,
    { target: target.path, match_keys: keys },
    { missing },
    '',
  );
};
