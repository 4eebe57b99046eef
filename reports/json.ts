/**
 * `agent-compliance.json`: the RunResult plus its `compliance_detail` projection, keys in the
 * order of the committed JSON Schema, validated against that schema (ajv, draft 2020-12) and
 * against the cross-field facts a schema cannot express (counts add up, references resolve,
 * the projection is the one `toComplianceDetail` computes). A document that fails validation
 * is a harness bug: the writer throws instead of writing it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { OUTCOMES, emptyCounts } from '../harness/core/engine/result.js';
import type { CheckResult, OutcomeCounts, RunResult } from '../harness/core/engine/result.js';
import { toComplianceDetail } from './compliance-detail.js';
import type { ComplianceDetail } from './compliance-detail.js';
import { writeFileAtomic } from './fs.js';

export const AGENT_COMPLIANCE_FILE = 'agent-compliance.json';
export const AGENT_COMPLIANCE_SCHEMA_URL = new URL('./agent-compliance.schema.json', import.meta.url);

export type AgentComplianceDocument = RunResult & { compliance_detail: ComplianceDetail };

export interface ValidationOutcome {
  valid: boolean;
  /** `<instance path>: <message>` lines; empty when valid. */
  errors: string[];
}

export class AgentComplianceValidationError extends Error {
  constructor(readonly errors: string[]) {
    super(`agent-compliance document is invalid (harness bug):\n  ${errors.slice(0, 50).join('\n  ')}`);
    this.name = 'AgentComplianceValidationError';
  }
}

type JsonSchema = { [key: string]: unknown };

let cached: { schema: JsonSchema; validate: ValidateFunction } | undefined;

/** ajv-formats is CommonJS; under NodeNext its default import is the module object. */
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => Ajv2020;

function compiled(): { schema: JsonSchema; validate: ValidateFunction } {
  if (!cached) {
    const schema = JSON.parse(readFileSync(AGENT_COMPLIANCE_SCHEMA_URL, 'utf8')) as JsonSchema;
    // The committed schema is checked against the 2020-12 meta-schema by json.test.ts, not at every
    // run: compiling the meta-schema took a quarter of this compile, on the way to the reports.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateSchema: false });
    addFormats(ajv);
    cached = { schema, validate: ajv.compile(schema) };
  }
  return cached;
}

/** The committed schema, parsed. */
export function agentComplianceSchema(): JsonSchema {
  return compiled().schema;
}

function formatAjvError(e: ErrorObject): string {
  const where = e.instancePath || '(root)';
  const params = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
  return `${where}: ${e.message ?? e.keyword}${params}`;
}

function tally(checks: CheckResult[]): OutcomeCounts {
  const counts = emptyCounts();
  for (const c of checks) counts[c.outcome] += 1;
  return counts;
}

function countsDiff(where: string, declared: OutcomeCounts, actual: OutcomeCounts): string[] {
  return OUTCOMES.filter((o) => declared[o] !== actual[o]).map((o) => `${where}.${o}: declares ${declared[o]}, the checks give ${actual[o]}`);
}

/** With a `baseline`: every baselined check is excused by one of its entries, and the entries' tallies add up. */
function baselineErrors(doc: AgentComplianceDocument): string[] {
  const errors: string[] = [];
  if (!doc.baseline) return errors;
  const entries = doc.baseline.entries;
  const covers = (e: (typeof entries)[number], c: CheckResult) => e.check_id === c.check_id && (e.transport === undefined || e.transport === c.transport);
  doc.checks.forEach((c, i) => {
    if (c.baselined && !entries.some((e) => covers(e, c))) errors.push(`/checks/${i}/baselined: no baseline entry covers ${c.check_id} [${c.transport}]`);
  });
  entries.forEach((e, i) => {
    const matched = doc.checks.filter((c) => c.baselined && covers(e, c)).length;
    if (matched !== e.matched) errors.push(`/baseline/entries/${i}/matched: declares ${e.matched}, the checks give ${matched}`);
    if ((e.status === 'expected') !== matched > 0) errors.push(`/baseline/entries/${i}/status: ${e.status} with ${matched} baselined result(s)`);
  });
  return errors;
}

/** Facts between fields. Only called on documents the schema accepted. */
function consistencyErrors(doc: AgentComplianceDocument): string[] {
  const errors: string[] = [];
  if (Date.parse(doc.finished_at) < Date.parse(doc.started_at)) errors.push('/finished_at: before started_at');
  errors.push(...countsDiff('/counts', doc.counts, tally(doc.checks)));
  const suiteIds = new Set(doc.suites.map((s) => s.suite_id));
  if (suiteIds.size !== doc.suites.length) errors.push('/suites: duplicate suite_id');
  const seen = new Set<string>();
  doc.checks.forEach((c, i) => {
    if (!suiteIds.has(c.suite_id)) errors.push(`/checks/${i}/suite_id: no suite ${JSON.stringify(c.suite_id)}`);
    if (!doc.transports.includes(c.transport)) errors.push(`/checks/${i}/transport: ${c.transport} is not a transport of the run`);
    const key = JSON.stringify([c.suite_id, c.check_id, c.transport]);
    if (seen.has(key)) errors.push(`/checks/${i}: duplicate result for ${c.check_id} [${c.transport}]`);
    seen.add(key);
  });
  doc.suites.forEach((suite, i) => {
    const own = doc.checks.filter((c) => c.suite_id === suite.suite_id);
    errors.push(...countsDiff(`/suites/${i}/counts`, suite.counts, tally(own)));
    for (const [transport, summary] of Object.entries(suite.by_transport)) {
      if (!summary) continue;
      const mine = own.filter((c) => c.transport === transport);
      errors.push(...countsDiff(`/suites/${i}/by_transport/${transport}/counts`, summary.counts, tally(mine)));
    }
    const ff = suite.first_failure;
    if (ff && !own.some((c) => c.check_id === ff.check_id && c.transport === ff.transport)) {
      errors.push(`/suites/${i}/first_failure: no check ${ff.check_id} [${ff.transport}] in the suite`);
    }
  });
  errors.push(...baselineErrors(doc));
  const { compliance_detail: detail, ...run } = doc;
  if (errors.length === 0 && !isDeepStrictEqual(detail, toComplianceDetail(run))) {
    errors.push('/compliance_detail: differs from toComplianceDetail(run)');
  }
  return errors;
}

/** Validate a parsed agent-compliance document (schema, then cross-field consistency). */
export function validateAgentCompliance(doc: unknown): ValidationOutcome {
  const { validate } = compiled();
  if (!validate(doc)) {
    return { valid: false, errors: (validate.errors ?? []).map(formatAjvError) };
  }
  const errors = consistencyErrors(doc as unknown as AgentComplianceDocument);
  return { valid: errors.length === 0, errors };
}

function resolveRef(node: JsonSchema, root: JsonSchema): JsonSchema {
  let current = node;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) return current;
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) target = (target as JsonSchema | undefined)?.[part];
    current = (target ?? {}) as JsonSchema;
  }
  return current;
}

/** Copy `value` with object keys in the schema's property order. */
function orderBySchema(value: unknown, node: unknown, root: JsonSchema): unknown {
  if (typeof node !== 'object' || node === null) return value;
  const schema = resolveRef(node as JsonSchema, root);
  if (Array.isArray(value)) return value.map((item) => orderBySchema(item, schema.items, root));
  if (typeof value !== 'object' || value === null) return value;
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  if (Object.keys(props).length === 0 && !schema.additionalProperties) return value;
  const input = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(props)) {
    if (Object.hasOwn(input, key)) out[key] = orderBySchema(input[key], props[key], root);
  }
  // Map keys: in the order of a `propertyNames` enum when there is one (by_transport → mcp, a2a),
  // otherwise as given (headers keep their wire order).
  const names = schema.propertyNames ? resolveRef(schema.propertyNames as JsonSchema, root).enum : undefined;
  const rest = Object.keys(input).filter((key) => !Object.hasOwn(props, key));
  if (Array.isArray(names)) {
    const rank = (key: string): number => (names.includes(key) ? names.indexOf(key) : names.length);
    rest.sort((a, b) => rank(a) - rank(b));
  }
  for (const key of rest) out[key] = orderBySchema(input[key], schema.additionalProperties, root);
  return out;
}

/** The document (RunResult + compliance_detail) with keys in schema order. Not validated. */
export function buildAgentCompliance(run: RunResult): AgentComplianceDocument {
  const { schema } = compiled();
  const doc = { ...run, compliance_detail: toComplianceDetail(run) };
  return orderBySchema(doc, schema, schema) as AgentComplianceDocument;
}

/** Pretty JSON text of the validated document; throws AgentComplianceValidationError. */
export function renderAgentComplianceJson(run: RunResult): string {
  const text = `${JSON.stringify(buildAgentCompliance(run), null, 2)}\n`;
  // Validate what is written (after JSON's own conversions: NaN → null, undefined dropped).
  const result = validateAgentCompliance(JSON.parse(text));
  if (!result.valid) throw new AgentComplianceValidationError(result.errors);
  return text;
}

/** Writes `<dir>/agent-compliance.json` and returns its path. */
export async function writeAgentComplianceJson(run: RunResult, dir: string): Promise<string> {
  const text = renderAgentComplianceJson(run);
  const path = join(dir, AGENT_COMPLIANCE_FILE);
  await writeFileAtomic(path, text);
  return path;
}
