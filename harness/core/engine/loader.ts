/**
 * Loads suite files (the YAML of each suite plugin) and rejects anything the engine would not
 * interpret exactly: unknown kinds, unknown or missing fields, duplicate or malformed check ids.
 * The kinds a suite may use are those of the KindRegistry built from the same plugins.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import type { CheckDef, ExpectationDef, StepDef, SuiteDef } from './model.js';
import { KindRegistry } from './kinds/registry.js';
import type { ExpectationKind, StepKind } from './kinds/types.js';
import type { SuitePlugin } from './plugin.js';
import { BUILTIN_FUNCTIONS, templateExpressions } from './template.js';
import { AGENT_KINDS } from '../protocol/agent-kinds.js';
import { PROTOCOL_LINES } from '../protocol/lines.js';
import { LIFECYCLE_STAGES } from './lifecycle.js';

export class SuiteLoadError extends Error {}

/** The suites of a set of plugins, with the kind registry built from the same plugins. */
export interface SuiteCatalog {
  suites: SuiteDef[];
  kinds: KindRegistry;
  /**
   * The suites keep agent-side state the transports would share (storyboards: fixed fixture ids
   * and accounts), so a run takes the transports one after another instead of side by side.
   */
  transportsInTurn?: boolean;
}

const CONDITION = {
  $id: 'condition',
  oneOf: [
    {
      type: 'object',
      properties: {
        capability: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
        equals: {},
        present: { type: 'boolean' },
        in: { type: 'array' },
        contains: {},
      },
      required: ['capability'],
      additionalProperties: false,
    },
    { type: 'object', properties: { task_declared: { type: 'string' } }, required: ['task_declared'], additionalProperties: false },
    { type: 'object', properties: { agent_kind: { enum: [...AGENT_KINDS] } }, required: ['agent_kind'], additionalProperties: false },
    {
      type: 'object',
      properties: { agent_card: { type: 'string', pattern: '^(/[^/]*)+$' }, equals: {}, present: { type: 'boolean' } },
      required: ['agent_card'],
      additionalProperties: false,
    },
    { type: 'object', properties: { run: { enum: ['auth_token'] } }, required: ['run'], additionalProperties: false },
    { type: 'object', properties: { controller_scenario: { type: 'string', minLength: 1 } }, required: ['controller_scenario'], additionalProperties: false },
    {
      type: 'object',
      properties: { lifecycle_stage: { type: 'array', items: { enum: [...LIFECYCLE_STAGES] }, minItems: 1, uniqueItems: true } },
      required: ['lifecycle_stage'],
      additionalProperties: false,
    },
    { type: 'object', properties: { all: { type: 'array', items: { $ref: 'condition' } } }, required: ['all'], additionalProperties: false },
    { type: 'object', properties: { any: { type: 'array', items: { $ref: 'condition' } } }, required: ['any'], additionalProperties: false },
    { type: 'object', properties: { not: { $ref: 'condition' } }, required: ['not'], additionalProperties: false },
  ],
};

const CHECK_ID = '^[a-z][a-z0-9-]*(\\.[a-z0-9][a-z0-9_-]*)+$';

/** `lines: ["3.1", "3.2"]`: the protocol lines a check, step or expectation belongs to. */
const LINES = { type: 'array', items: { enum: [...PROTOCOL_LINES] }, minItems: 1, uniqueItems: true };

const SUITE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    order: { enum: ['first', 'normal', 'last'] },
    face: { enum: ['agent', 'registry'] },
    fragments: {},
    checks: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: CHECK_ID },
          title: { type: 'string', minLength: 1 },
          level: { enum: ['MUST', 'SHOULD', 'MAY'] },
          spec: {
            type: 'object',
            properties: {
              doc: { enum: ['interface-spec', 'digest'] },
              section: { type: 'string', minLength: 1 },
              anchor: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
              rule: { type: 'string' },
            },
            required: ['doc', 'section'],
            additionalProperties: false,
          },
          description: { type: 'string' },
          lines: LINES,
          interpretation: {
            type: 'object',
            properties: { spec_text: { type: 'string', minLength: 1 }, reading: { type: 'string', minLength: 1 } },
            required: ['spec_text', 'reading'],
            additionalProperties: false,
          },
          rests_on: { type: 'array', items: { type: 'string', pattern: CHECK_ID }, minItems: 1, uniqueItems: true },
          applies_when: { $ref: 'condition' },
          not_applicable_reason: { type: 'string' },
          requires: { $ref: 'condition' },
          requires_reason: { type: 'string' },
          requires_feature: { type: 'string', minLength: 1 },
          transports: { type: 'array', items: { enum: ['mcp', 'a2a', 'rest'] }, minItems: 1 },
          serial: { type: 'boolean' },
          steps: { type: 'array', minItems: 1, items: { type: 'object', required: ['kind'] } },
        },
        required: ['id', 'title', 'level', 'spec', 'steps'],
        additionalProperties: false,
      },
    },
  },
  required: ['id', 'title', 'checks'],
  additionalProperties: false,
};

const ajv = new Ajv2020({ allErrors: true, strict: false, code: { optimize: false } });
ajv.addSchema(CONDITION);
const validateSuiteShape = ajv.compile(SUITE_SCHEMA);
const kindValidators = new Map<string, ReturnType<typeof ajv.compile>>();

function kindValidator(prefix: string, kind: StepKind | ExpectationKind, base: Record<string, unknown>) {
  const key = `${prefix}:${kind.name}`;
  let v = kindValidators.get(key);
  if (!v) {
    v = ajv.compile({
      type: 'object',
      properties: { kind: { const: kind.name }, ...base, ...kind.fields },
      required: ['kind', ...(kind.required ?? [])],
      additionalProperties: false,
    });
    kindValidators.set(key, v);
  }
  return v;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
    )
    .join('; ');
}

function checkExpectations(list: unknown, where: string, kinds: KindRegistry): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw new SuiteLoadError(`${where}: expectations must be a list`);
  list.forEach((e: ExpectationDef, i) => {
    const at = `${where}[${i}]`;
    if (!e || typeof e !== 'object' || typeof e.kind !== 'string') throw new SuiteLoadError(`${at}: an expectation needs a kind`);
    const kind = kinds.expectationKind(e.kind);
    if (!kind) throw new SuiteLoadError(`${at}: unknown expectation kind "${e.kind}" (known: ${kinds.expectationKindNames().join(', ')})`);
    const v = kindValidator('expect', kind, { lines: LINES, owner: { type: 'string', pattern: CHECK_ID } });
    if (!v(e)) throw new SuiteLoadError(`${at} (${e.kind}): ${formatErrors(v.errors)}`);
    for (const f of kind.expectationFields ?? []) checkExpectations((e as Record<string, unknown>)[f], `${at}.${f}`, kinds);
  });
}

function checkStep(step: StepDef, where: string, kinds: KindRegistry): void {
  const kind = kinds.stepKind(step.kind);
  if (!kind) throw new SuiteLoadError(`${where}: unknown step kind "${step.kind}" (known: ${kinds.stepKindNames().join(', ')})`);
  const v = kindValidator('step', kind, {
    id: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
    role: { enum: ['setup', 'probe'] },
    prerequisite: { type: 'string', pattern: CHECK_ID },
    lines: LINES,
  });
  if (!v(step)) throw new SuiteLoadError(`${where} (${step.kind}): ${formatErrors(v.errors)}`);
  for (const f of kind.expectationFields ?? []) checkExpectations(step[f], `${where}.${f}`, kinds);
  for (const f of kind.stepFields ?? []) {
    const nested = step[f];
    if (!Array.isArray(nested)) throw new SuiteLoadError(`${where}.${f}: must be a list of steps`);
    nested.forEach((s: StepDef, i) => {
      if (!s || typeof s !== 'object' || typeof s.kind !== 'string') throw new SuiteLoadError(`${where}.${f}[${i}]: a step needs a kind`);
      checkStep(s, `${where}.${f}[${i}]`, kinds);
    });
  }
}

export function validateSuite(data: unknown, source: string, kinds: KindRegistry): SuiteDef {
  if (!validateSuiteShape(data)) throw new SuiteLoadError(`${source}: ${formatErrors(validateSuiteShape.errors)}`);
  const suite = data as unknown as SuiteDef;
  const ids = new Set<string>();
  suite.checks.forEach((check: CheckDef) => {
    const where = `${source}: ${check.id}`;
    if (!check.id.startsWith(`${suite.id}.`)) throw new SuiteLoadError(`${where}: check ids must start with the suite id "${suite.id}."`);
    if (ids.has(check.id)) throw new SuiteLoadError(`${where}: duplicate check id`);
    ids.add(check.id);
    const stepIds = new Set<string>();
    check.steps.forEach((step, i) => {
      checkStep(step, `${where} step ${i + 1}`, kinds);
      if (step.id !== undefined) {
        if (stepIds.has(step.id)) throw new SuiteLoadError(`${where}: duplicate step id "${step.id}"`);
        stepIds.add(step.id);
      }
    });
  });
  return suite;
}

export function loadSuiteFile(path: string, kinds: KindRegistry): SuiteDef {
  let data: unknown;
  try {
    // js-yaml (merge keys `<<`, duplicate keys refused): the suites are read at every start, and it
    // parses them about seven times faster than the `yaml` package the user-facing files use.
    data = loadYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SuiteLoadError(`${path}: ${(e as Error).message}`);
  }
  return validateSuite(data, path, kinds);
}

/** Every plugin's suite, in the plugins' order, and the registry of their kinds. */
export function loadSuites(plugins: readonly SuitePlugin[]): SuiteCatalog {
  const kinds = new KindRegistry(plugins);
  const seen = new Set<string>();
  const suites = plugins.map((p) => {
    const path = fileURLToPath(p.file);
    if (seen.has(p.id)) throw new SuiteLoadError(`${path}: a second plugin for suite "${p.id}"`);
    seen.add(p.id);
    const suite = loadSuiteFile(path, kinds);
    if (suite.id !== p.id) throw new SuiteLoadError(`${path}: declares suite "${suite.id}", but its plugin is "${p.id}"`);
    return suite;
  });
  checkReferences(suites, kinds);
  return { suites, kinds };
}

/** Every step of a check, nested ones (a flow's steps) included. */
function allSteps(steps: readonly StepDef[], kinds: KindRegistry): StepDef[] {
  return steps.flatMap((s) => [
    s,
    ...(kinds.stepKind(s.kind)?.stepFields ?? []).flatMap((f) => (Array.isArray(s[f]) ? allSteps(s[f] as StepDef[], kinds) : [])),
  ]);
}

/** The facts a step's templates read, directly (`{{facts.<name>}}`) or through a template function. */
function factsRead(step: StepDef, kinds: KindRegistry): string[] {
  const byTemplates = templateExpressions(step).flatMap((expr) => {
    const fact = /^facts\.([A-Za-z0-9_-]+)/.exec(expr);
    if (fact) return [fact[1]];
    const fn = /^([A-Za-z0-9_-]+):/.exec(expr);
    return fn ? [...(kinds.templateFunction(fn[1])?.needs ?? [])] : [];
  });
  return [...(kinds.stepKind(step.kind)?.reads ?? []), ...byTemplates];
}

/**
 * Per registry and check, a value derived from the check's steps: a run asks for every check's
 * prerequisites, and a registry probing a fleet runs the same loaded checks again and again.
 */
function memoized(fn: (check: CheckDef, kinds: KindRegistry) => string[]): (check: CheckDef, kinds: KindRegistry) => string[] {
  const byKinds = new WeakMap<KindRegistry, WeakMap<CheckDef, readonly string[]>>();
  return (check, kinds) => {
    let byCheck = byKinds.get(kinds);
    if (!byCheck) byKinds.set(kinds, (byCheck = new WeakMap()));
    let ids = byCheck.get(check);
    if (!ids) byCheck.set(check, (ids = fn(check, kinds)));
    return [...ids];
  };
}

/** Whether a check has a step that mostly waits without calling the agent (StepKind.waits). */
export function checkWaits(check: CheckDef, kinds: KindRegistry): boolean {
  return waitingKinds(check, kinds).length > 0;
}

const waitingKinds = memoized((check, kinds) => allSteps(check.steps, kinds).flatMap((s) => (kinds.stepKind(s.kind)?.waits === true ? [s.kind] : [])));

/** The checks that publish the facts a check's templates read. */
export const factPublishersOf = memoized((check, kinds) =>
  [...new Set(allSteps(check.steps, kinds).flatMap((s) => factsRead(s, kinds).map((f) => kinds.factPublisher(f)!)))].filter((id) => id !== check.id),
);

/**
 * The checks a check depends on, in order of first mention: those its steps name as
 * `prerequisite`, and the publishers of the facts its templates read.
 */
export const prerequisitesOf = memoized((check, kinds) =>
  [
    ...new Set(
      allSteps(check.steps, kinds).flatMap((s) => [...factsRead(s, kinds).map((f) => kinds.factPublisher(f)!), ...(s.prerequisite ? [s.prerequisite] : [])]),
    ),
  ].filter((id) => id !== check.id),
);

/**
 * Every `{{fn:…}}` is a built-in or registered function and every `{{facts.<name>}}` a declared
 * fact; a prerequisite is a check of the same suite or of one that runs earlier (a fact's
 * publisher of one that runs earlier, so its fact is there when the check starts).
 */
function checkReferences(suites: readonly SuiteDef[], kinds: KindRegistry): void {
  const position = suitePositions(suites);
  for (const suite of suites) {
    for (const check of suite.checks) {
      const where = `${suite.id}: ${check.id}`;
      for (const step of allSteps(check.steps, kinds)) {
        for (const expr of templateExpressions(step)) {
          const fn = /^([A-Za-z0-9_-]+):/.exec(expr)?.[1];
          if (fn && !BUILTIN_FUNCTIONS.has(fn) && !kinds.templateFunction(fn))
            throw new SuiteLoadError(`${where}: unknown substitution function "${fn}" in {{${expr}}}`);
          const fact = /^facts\.([A-Za-z0-9_-]+)/.exec(expr)?.[1];
          if (fact !== undefined && !kinds.factPublisher(fact)) throw new SuiteLoadError(`${where}: unknown fact "${fact}" in {{${expr}}}`);
        }
        for (const f of factsRead(step, kinds)) {
          const publisher = kinds.factPublisher(f)!;
          if (publisher !== check.id && !runsBefore(publisher, check, suites, position)) {
            throw new SuiteLoadError(
              `${where}: reads fact "${f}", whose publisher ${publisher} must be in a suite that runs earlier (or a serial check listed before it in the same suite, the reader serial too)`,
            );
          }
        }
        if (step.prerequisite !== undefined) {
          const at = position.get(step.prerequisite);
          if (at === undefined) throw new SuiteLoadError(`${where}: prerequisite ${step.prerequisite} is not a check of any suite`);
          if (at > position.get(check.id)!)
            throw new SuiteLoadError(`${where}: prerequisite ${step.prerequisite} must be in this suite or one that runs earlier`);
        }
      }
    }
  }
}

/**
 * Has `prerequisite` finished whenever `check` starts? True when it is in a suite that runs
 * earlier, or when both are serial checks of the same suite and it is listed first (serial
 * checks run one at a time, in order).
 */
export function runsBefore(prerequisite: string, check: CheckDef, suites: readonly SuiteDef[], position?: ReadonlyMap<string, number>): boolean {
  const at = position ?? suitePositions(suites);
  const mine = at.get(check.id);
  const theirs = at.get(prerequisite);
  if (mine === undefined || theirs === undefined) return false;
  if (theirs < mine) return true;
  if (theirs > mine || !check.serial) return false;
  const suite = suites.find((s) => s.checks.some((c) => c.id === check.id))!;
  const p = suite.checks.findIndex((c) => c.id === prerequisite);
  return p >= 0 && suite.checks[p].serial === true && p < suite.checks.findIndex((c) => c.id === check.id);
}

/** Check id → position of its suite in run order. */
export function suitePositions(suites: readonly SuiteDef[]): Map<string, number> {
  const position = new Map<string, number>();
  orderSuites(suites).forEach((s, i) => {
    for (const c of s.checks) position.set(c.id, i);
  });
  return position;
}

const ORDER = { first: 0, normal: 1, last: 2 } as const;

/** Suites in run order: `first`, then `normal`, then `last`, each class in the given order. */
export function orderSuites(suites: readonly SuiteDef[]): SuiteDef[] {
  return suites
    .map((s, i) => ({ s, i }))
    .sort((a, b) => ORDER[a.s.order ?? 'normal'] - ORDER[b.s.order ?? 'normal'] || a.i - b.i)
    .map(({ s }) => s);
}
