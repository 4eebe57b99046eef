/**
 * `{{...}}` substitutions in suite data. A string that is exactly one substitution takes the
 * referenced value with its type (numbers stay numbers, objects stay objects); otherwise values
 * are interpolated as text. An unresolved reference is an error, never an empty string.
 *
 *   {{token}} {{TOKEN}}          the protocol token
 *   {{ids.capabilitiesTask}}     any member of ProtocolIds
 *   {{uuid:alias}}               a UUID v4, fixed per alias within one check run
 *   {{name:alias}}               a unique readable name, fixed per alias
 *   {{hex:alias}}                12 hex characters, fixed per alias
 *   {{int:alias}}                an integer in [1000, 999999], fixed per alias (unique markers in numbers)
 *   {{date:+7d}}                 ISO 8601 date-time relative to the run start (s, m, h, d)
 *   {{steps.<id>.<path>}}        a value saved by an earlier step (dotted path, numeric array indexes)
 *   {{profile.<path>}}           a value of the agent's capability declaration
 *   {{facts.<name>.<path>}}      a fact an earlier check published on this transport (engine/plugin.ts)
 *   {{<fn>:<arg>}}               a template function a suite plugin registers (e.g. {{account:buyer}})
 */
import type { ProtocolIds } from '../token.js';
import type { ScopedRandom } from './rng.js';

export class TemplateError extends Error {}

/** A fact a template needs was not published: the check that publishes it did not pass. */
export class MissingFactError extends TemplateError {
  constructor(
    readonly fact: string,
    /** The check that publishes the fact (engine/plugin.ts `facts`). */
    readonly publisher: string | undefined,
  ) {
    super(`fact "${fact}" was not published${publisher ? ` (by ${publisher})` : ''}`);
  }
}

/** A template function cannot give a value because the agent or the run lacks an optional feature. */
export class TemplateGapError extends TemplateError {
  constructor(
    message: string,
    readonly gap: string,
  ) {
    super(message);
  }
}

export interface TemplateScope {
  ids: ProtocolIds;
  random: ScopedRandom;
  runStartedAt: Date;
  steps: Record<string, unknown>;
  capabilities: unknown;
  /** Facts published on this transport so far (undefined: not published). */
  fact?: (name: string) => unknown;
  /** The check that publishes a fact, for MissingFactError. */
  publisherOf?: (name: string) => string | undefined;
  /** Template functions of the suite plugins. */
  functions?: (name: string) => ((arg: string, scope: TemplateScope) => unknown) | undefined;
  /** The user's fixtures (`--fixtures FILE`), as the suites that read them define them. */
  fixtures?: unknown;
}

/** A fact's value, or MissingFactError naming its publisher. */
export function requireFact(scope: TemplateScope, name: string): unknown {
  const v = scope.fact?.(name);
  if (v === undefined) throw new MissingFactError(name, scope.publisherOf?.(name));
  return v;
}

const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** Built-in substitution functions (`{{uuid:x}}` …); others come from suite plugins. */
export const BUILTIN_FUNCTIONS: ReadonlySet<string> = new Set(['uuid', 'name', 'hex', 'int', 'date']);

/** Every `{{...}}` expression in a value (strings, keys, nested), for load-time checks. */
export function templateExpressions(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(ANY)) out.push(m[1]);
  } else if (Array.isArray(value)) {
    for (const v of value) templateExpressions(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      templateExpressions(k, out);
      templateExpressions(v, out);
    }
  }
  return out;
}

/**
 * What a template function returns for "leave this member out": an object member whose value
 * expands to it is dropped, an array item too (e.g. an account sent only when the run knows one).
 */
export const OMIT: unique symbol = Symbol('omit');

export function expandTemplates(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return expandString(value, scope);
  if (Array.isArray(value)) return value.map((v) => expandTemplates(v, scope)).filter((v) => v !== OMIT);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const expanded = expandTemplates(v, scope);
      if (expanded !== OMIT) out[expandString(k, scope) as string] = expanded;
    }
    return out;
  }
  return value;
}

function expandString(text: string, scope: TemplateScope): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return resolve(whole[1], scope);
  return text.replace(ANY, (_m, expr: string) => {
    const v = resolve(expr, scope);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

function resolve(expr: string, scope: TemplateScope): unknown {
  if (expr === 'token') return scope.ids.token;
  if (expr === 'TOKEN') return scope.ids.token.toUpperCase();
  const colon = expr.indexOf(':');
  if (colon > 0) {
    const fn = expr.slice(0, colon);
    const arg = expr.slice(colon + 1);
    switch (fn) {
      case 'uuid':
        return scope.random.alias('uuid', arg, (r) => r.uuid());
      case 'name':
        return scope.random.alias('name', arg, (r) => `proto-comply ${arg} ${r.hex(8)}`);
      case 'hex':
        return scope.random.alias('hex', arg, (r) => r.hex(12));
      case 'int':
        return Number(scope.random.alias('int', arg, (r) => String(1000 + (r.bytes(4).readUInt32BE(0) % 999000))));
      case 'date':
        return relativeDate(scope.runStartedAt, arg);
      default: {
        const plugin = scope.functions?.(fn);
        if (plugin) return plugin(arg, scope);
        throw new TemplateError(`unknown substitution function "${fn}" in {{${expr}}}`);
      }
    }
  }
  const [root, ...path] = expr.split('.');
  switch (root) {
    case 'ids': {
      const v = (scope.ids as unknown as Record<string, unknown>)[path.join('.')];
      if (typeof v !== 'string') throw new TemplateError(`unknown protocol id {{${expr}}}`);
      return v;
    }
    case 'steps':
      return walk(scope.steps, path, expr);
    case 'profile':
      return walk(scope.capabilities, path, expr);
    case 'facts': {
      const [name, ...rest] = path;
      return walk(requireFact(scope, name ?? ''), rest, expr);
    }
    default:
      throw new TemplateError(`unknown substitution {{${expr}}}`);
  }
}

function walk(value: unknown, path: string[], expr: string): unknown {
  let cur = value;
  for (const seg of path) {
    if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(seg) && Number(seg) < cur.length) {
      cur = cur[Number(seg)];
    } else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      throw new TemplateError(`unresolved substitution {{${expr}}}: no "${seg}"`);
    }
  }
  if (cur === undefined) throw new TemplateError(`unresolved substitution {{${expr}}}`);
  return cur;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export function relativeDate(start: Date, offset: string): string {
  const m = /^([+-]?)(\d+)([smhd])$/.exec(offset.trim());
  if (!m && offset.trim() !== '0') throw new TemplateError(`bad date offset "${offset}" (use e.g. +7d, -1h, 30m)`);
  const seconds = m ? (m[1] === '-' ? -1 : 1) * Number(m[2]) * UNIT_SECONDS[m[3]] : 0;
  const d = new Date(Math.floor(start.getTime() / 1000) * 1000 + seconds * 1000);
  return d.toISOString().replace('.000Z', 'Z');
}
