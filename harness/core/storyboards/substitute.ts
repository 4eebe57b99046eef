/**
 * Substitutions in a storyboard step's `sample_request` (digest 6.1; the bundle's storyboard
 * schema, "Substitution variables"): `$context.<name>` (a value an earlier step captured with
 * `context_outputs`, typed as captured), `{{prior_step.<id>.<path>}}` (a member of an earlier
 * step's response), `$generate:uuid_v4#<alias>` (one fresh UUID per alias for the run; without an
 * alias, a new one each time), `{{runner.webhook_url:<step>}}` and `{{runner.webhook_base}}` (the
 * harness's receiver). A reference that cannot be resolved is an UnresolvedSubstitution: the
 * step fails as `unresolved_substitution` and nothing fabricated reaches the agent. Other
 * `{{...}}` text (creative macros) is left as authored. `$test_kit.<path>` reads the storyboard's
 * test kit (test-kits.ts), typed as the kit holds it.
 */
import { resolveStoryboardPath } from './path.js';

export class UnresolvedSubstitution extends Error {
  /** `gap`: the value is an input the runner lacks (a test kit's, a receiver URL), so the step is that coverage gap. */
  constructor(
    readonly token: string,
    why: string,
    readonly gap?: string,
  ) {
    super(`unresolved_substitution: ${token} (${why})`);
  }
}

export interface SubstitutionScope {
  /** Values captured by earlier steps' `context_outputs` (and the storyboard's `context:` seeds). */
  context: ReadonlyMap<string, unknown>;
  /** The responses of earlier steps of the storyboard, by step id. */
  priorSteps: ReadonlyMap<string, unknown>;
  /** UUIDs generated so far, by alias (filled as aliases are met, so every step sees the same one). */
  generated: Map<string, string>;
  uuid(): string;
  /** The URL of the harness's receiver for a step's webhooks, when the run has one. */
  webhookUrl?(stepId: string): string | undefined;
  webhookBase?: string;
  /** The value at a path of the storyboard's test kit; throws UnresolvedSubstitution when there is none. */
  testKit?(path: string): unknown;
}

const CONTEXT = /\$context\.([A-Za-z0-9_]+)/g;
const KIT = /\$test_kit\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)/g;
const MUSTACHE = /\{\{\s*((?:prior_step|runner)\.[^}]*?)\s*\}\}/g;
const GENERATE = /^\$generate:uuid_v4(?:#([A-Za-z0-9_.-]+))?$/;
const MAX_DEPTH = 64;
/** The gap a receiver URL the run cannot give is. */
export const RECEIVER_GAP = 'a webhook receiver for storyboards';
/** The gap a `$test_kit` value the run's kit does not hold is. */
export const TEST_KIT_GAP = 'storyboard test kit';

/** `value` with every substitution applied (a new value; the storyboard's data is not changed). */
export function substitute(value: unknown, scope: SubstitutionScope, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new UnresolvedSubstitution('(request)', `nested deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'string') return substituteString(value, scope);
  if (Array.isArray(value)) return value.map((v) => substitute(v, scope, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, scope, depth + 1);
    return out;
  }
  return value;
}

function substituteString(s: string, scope: SubstitutionScope): unknown {
  const gen = GENERATE.exec(s);
  if (gen) {
    const alias = gen[1];
    if (alias === undefined) return scope.uuid();
    let id = scope.generated.get(alias);
    if (id === undefined) scope.generated.set(alias, (id = scope.uuid()));
    return id;
  }
  // A whole-string reference keeps the captured value's type (a number, an object).
  const kit = /^\$test_kit\.([A-Za-z0-9_.]+)$/.exec(s);
  if (kit) return kitValue(kit[1], scope);
  const whole = /^\$context\.([A-Za-z0-9_]+)$/.exec(s) ?? /^\{\{\s*((?:prior_step|runner)\.[^}]*?)\s*\}\}$/.exec(s);
  if (whole) return s.startsWith('$') ? contextValue(whole[1], scope) : mustacheValue(whole[1], scope);
  return s
    .replace(KIT, (token, path: string) => inline(token, kitValue(path, scope)))
    .replace(CONTEXT, (token, name: string) => inline(token, contextValue(name, scope)))
    .replace(MUSTACHE, (token, expr: string) => inline(token, mustacheValue(expr, scope)));
}

function contextValue(name: string, scope: SubstitutionScope): unknown {
  if (!scope.context.has(name)) throw new UnresolvedSubstitution(`$context.${name}`, 'no earlier step captured it');
  return scope.context.get(name);
}

function kitValue(path: string, scope: SubstitutionScope): unknown {
  if (!scope.testKit) throw new UnresolvedSubstitution(`$test_kit.${path}`, 'the run has no test kit', TEST_KIT_GAP);
  return scope.testKit(path);
}

function mustacheValue(expr: string, scope: SubstitutionScope): unknown {
  const token = `{{${expr}}}`;
  const prior = /^prior_step\.([^.]+)\.(.+)$/.exec(expr);
  if (prior) {
    if (!scope.priorSteps.has(prior[1])) throw new UnresolvedSubstitution(token, `step ${prior[1]} has no response`);
    let v: unknown;
    try {
      v = resolveStoryboardPath(scope.priorSteps.get(prior[1]), prior[2]);
    } catch {
      throw new UnresolvedSubstitution(token, 'malformed path');
    }
    if (v === undefined) throw new UnresolvedSubstitution(token, `step ${prior[1]}'s response has no ${prior[2]}`);
    return v;
  }
  const hook = /^runner\.webhook_url:(.+)$/.exec(expr);
  if (hook) {
    const url = scope.webhookUrl?.(hook[1]);
    if (url === undefined) throw new UnresolvedSubstitution(token, 'the run has no webhook receiver', RECEIVER_GAP);
    return url;
  }
  if (expr === 'runner.webhook_base') {
    if (scope.webhookBase === undefined) throw new UnresolvedSubstitution(token, 'the run has no webhook receiver', RECEIVER_GAP);
    return scope.webhookBase;
  }
  throw new UnresolvedSubstitution(token, 'not a substitution the harness knows');
}

/** A value placed inside a longer string: scalars only. */
function inline(token: string, v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new UnresolvedSubstitution(token, 'an object or array cannot be placed inside a string');
}
