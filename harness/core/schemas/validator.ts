/**
 * The schema validator: every JSON Schema of fixtures/schemas compiled once per process per
 * (token, directory) with ajv (draft 2020-12, strict, all errors) + ajv-formats, plus the
 * cross-field rules of cross-field.ts. Task `<task>` maps to schema `<task>-response`;
 * `get_<token>_capabilities` maps to `capabilities`.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { resolve } from 'node:path';
import { DEFAULT_TOKEN, protocolIds, type ProtocolIds } from '../token.js';
import { DEFAULT_TARGET, type ProtocolLine } from '../protocol/lines.js';
import { applyCrossFieldRules, crossFieldRules } from './cross-field.js';
import { DEFAULT_SCHEMA_DIR, SCHEMA_BASE_URI, SchemaLoadError, indexSchemaObjects, loadSchemaDocuments } from './loader.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object's default.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

export interface SchemaError {
  /** RFC 6901 pointer into the validated value (`''` is the value itself). */
  pointer: string;
  message: string;
  /** ajv keyword (`required`, `type`, `enum`, `false schema`, ...) or `crossField`. */
  keyword: string;
  /** `<file>.json#/<path>` of the failing schema keyword. */
  schemaPath: string;
}

export interface SchemaVerdict {
  valid: boolean;
  errors: SchemaError[];
}

export type WebhookFormat = 'mcp' | 'a2a' | 'unknown';

export interface WebhookVerdict extends SchemaVerdict {
  /** Envelope detected per interface spec 6.2 (`status` object with `state` → A2A; string → MCP). */
  format: WebhookFormat;
  /** Schema the envelope was judged against. */
  schemaName: string;
}

export interface SchemaValidator {
  readonly token: string;
  /** Validates a task's reply payload against `<task>-response` (or `capabilities`). Throws
   *  UnknownSchemaError when the task has no schema (ask `hasTaskSchema` first). */
  validateTaskResponse(task: string, payload: unknown): SchemaVerdict;
  /** Validates against a schema by name (`product`, `error`, `mcp-webhook-payload`, ...). */
  validate(schemaName: string, value: unknown): SchemaVerdict;
  /** Validates a task error object (interface spec 7; digest 3.6). */
  validateError(value: unknown): SchemaVerdict;
  /** Validates a webhook POST body: the detected envelope, and for a `completed` MCP envelope
   *  whose task_type has a response schema, its `result` against that schema (pointers under `/result`). */
  validateWebhookPayload(body: unknown): WebhookVerdict;
  hasTaskSchema(task: string): boolean;
  hasSchema(name: string): boolean;
  /** Name of the schema a task's reply is judged against, if any. */
  taskSchemaName(task: string): string | undefined;
  /** Every schema name, sorted. */
  schemaNames(): string[];
  /** Every task that has a response schema, sorted. */
  taskNames(): string[];
}

export interface SchemaValidatorOptions {
  /** Protocol token (default `proto`). */
  token?: string;
  /** Directory of schema files (default fixtures/schemas). */
  schemaDir?: string;
  /** The protocol line whose variant of the schemas is judged (default DEFAULT_TARGET; loader.ts `x-from-line`). */
  target?: ProtocolLine;
}

export class UnknownSchemaError extends Error {}

const RESPONSE_SUFFIX = '-response';
const cache = new Map<string, SchemaValidator>();

/** Returns the validator for a token, compiling the schemas on first use only. */
export function createSchemaValidator(options: SchemaValidatorOptions = {}): SchemaValidator {
  const ids = protocolIds(options.token ?? DEFAULT_TOKEN);
  const dir = resolve(options.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const target = options.target ?? DEFAULT_TARGET;
  const key = `${ids.token}\u0000${dir}\u0000${target}`;
  let validator = cache.get(key);
  if (!validator) {
    validator = buildValidator(ids, dir, target);
    cache.set(key, validator);
  }
  return validator;
}

function buildValidator(ids: ProtocolIds, dir: string, target: ProtocolLine): SchemaValidator {
  const docs = loadSchemaDocuments(ids.token, dir, target);
  // verbose: errors carry their parent schema object, located through `locations`. Generated code
  // is not optimized: compiling the schemas takes about 0.15 s less at every start, and
  // validation measured no slower (the verdicts are the same code paths either way).
  // The built-in files are checked against the 2020-12 meta-schema by their tests, not at every
  // start (compiling the meta-schema and checking 49 files took 60-80 ms); another directory is.
  const builtIn = dir === resolve(DEFAULT_SCHEMA_DIR);
  const ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true, code: { optimize: false }, validateSchema: !builtIn });
  addFormats(ajv);
  const locations = new WeakMap<object, string>();
  for (const doc of docs) indexSchemaObjects(doc.name, doc.schema, locations);
  for (const doc of docs) {
    try {
      ajv.addSchema(doc.schema);
    } catch (err) {
      throw new SchemaLoadError(`schema ${doc.name}.json: ${(err as Error).message}`);
    }
  }
  const compiled = new Map<string, ValidateFunction>();
  for (const doc of docs) {
    try {
      const fn = ajv.getSchema(doc.id);
      if (!fn) throw new Error('ajv returned no validator');
      compiled.set(doc.name, fn);
    } catch (err) {
      throw new SchemaLoadError(`schema ${doc.name}.json does not compile: ${(err as Error).message}`);
    }
  }

  const rules = crossFieldRules(ids);
  const taskToSchema = new Map<string, string>();
  for (const name of compiled.keys()) {
    if (name.endsWith(RESPONSE_SUFFIX)) taskToSchema.set(name.slice(0, -RESPONSE_SUFFIX.length), name);
  }
  if (compiled.has('capabilities')) taskToSchema.set(ids.capabilitiesTask, 'capabilities');
  const names = [...compiled.keys()].sort();
  const tasks = [...taskToSchema.keys()].sort();

  function validate(schemaName: string, value: unknown): SchemaVerdict {
    const fn = compiled.get(schemaName);
    if (!fn) {
      throw new UnknownSchemaError(`no schema named ${JSON.stringify(schemaName)}; known: ${names.join(', ')}`);
    }
    const ok = fn(value) as boolean;
    const errors = ok ? [] : toSchemaErrors(schemaName, fn.errors ?? [], locations);
    errors.push(...applyCrossFieldRules(rules.get(schemaName), value));
    return { valid: errors.length === 0, errors };
  }

  function validateTaskResponse(task: string, payload: unknown): SchemaVerdict {
    const schemaName = taskToSchema.get(task);
    if (!schemaName) {
      throw new UnknownSchemaError(`no response schema for task ${JSON.stringify(task)}; known: ${tasks.join(', ')}`);
    }
    return validate(schemaName, payload);
  }

  function validateWebhookPayload(body: unknown): WebhookVerdict {
    const format = detectWebhookFormat(body);
    const schemaName = format === 'a2a' ? 'a2a-task' : 'mcp-webhook-payload';
    const verdict = validate(schemaName, body);
    if (format === 'mcp' && isObject(body) && body.status === 'completed' && isObject(body.result)) {
      const taskType = body.task_type;
      const resultSchema = typeof taskType === 'string' ? taskToSchema.get(taskType) : undefined;
      if (resultSchema) {
        const inner = validate(resultSchema, body.result);
        verdict.errors.push(...inner.errors.map((e) => ({ ...e, pointer: `/result${e.pointer}` })));
      }
    }
    return { valid: verdict.errors.length === 0, errors: verdict.errors, format, schemaName };
  }

  return {
    token: ids.token,
    validate,
    validateTaskResponse,
    validateError: (value) => validate('error', value),
    validateWebhookPayload,
    hasTaskSchema: (task) => taskToSchema.has(task),
    hasSchema: (name) => compiled.has(name),
    taskSchemaName: (task) => taskToSchema.get(task),
    schemaNames: () => [...names],
    taskNames: () => [...tasks],
  };
}

/** interface spec 6.2: `status` an object with `state` → A2A; `status` a string plus `task_id` → MCP. */
export function detectWebhookFormat(body: unknown): WebhookFormat {
  if (!isObject(body)) return 'unknown';
  if (isObject(body.status) && 'state' in body.status) return 'a2a';
  if (typeof body.status === 'string' && 'task_id' in body) return 'mcp';
  return 'unknown';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** ajv's errors (compiled with `verbose`) as SchemaErrors, each located in its file through `locations` (loader.ts indexSchemaObjects). */
export function toSchemaErrors(rootName: string, errors: ErrorObject[], locations: WeakMap<object, string>): SchemaError[] {
  const out: SchemaError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // `if` errors only say "must match then/else schema"; the failing inner errors are reported too.
    if (e.keyword === 'if') continue;
    const forbidden = e.keyword === 'false schema' || (e.keyword === 'not' && isEmptySchema(e.schema));
    const err: SchemaError = {
      pointer: e.instancePath,
      message: forbidden ? 'must be absent' : describe(e),
      // A forbidden member (`x: false`, loaded as `{not: {}}`) is reported as the file states it.
      keyword: forbidden ? 'false schema' : e.keyword,
      schemaPath: locate(rootName, e, locations, forbidden),
    };
    const k = `${err.pointer}\u0000${err.keyword}\u0000${err.message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(err);
  }
  return out;
}

function locate(rootName: string, e: ErrorObject, locations: WeakMap<object, string>, forbidden: boolean): string {
  const parent = e.parentSchema;
  const loc = parent !== null && typeof parent === 'object' ? locations.get(parent) : undefined;
  if (loc === undefined) return normaliseSchemaPath(rootName, e.schemaPath);
  return forbidden ? loc : `${loc}/${e.keyword}`;
}

function isEmptySchema(s: unknown): boolean {
  return s !== null && typeof s === 'object' && Object.keys(s).length === 0;
}

function describe(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** ajv reports `#/...` for the root schema and `<file>.json/...` or full URIs inside `$ref`s. */
export function normaliseSchemaPath(rootName: string, schemaPath: string): string {
  const p = schemaPath.startsWith(SCHEMA_BASE_URI) ? schemaPath.slice(SCHEMA_BASE_URI.length) : schemaPath;
  if (p.startsWith('#')) return `${rootName}.json${p}`;
  const m = /^([^#/]+\.json)#?(.*)$/.exec(p);
  if (!m) return p;
  const rest = m[2] ?? '';
  return `${m[1]}#${rest.startsWith('/') || rest === '' ? rest : `/${rest}`}`;
}
