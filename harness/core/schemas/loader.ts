/**
 * Loads the JSON Schema files of fixtures/schemas and turns them into documents for one
 * protocol token. Schema files are templates: `{token}` / `{TOKEN}` in member names and in
 * string values are replaced through `protocolIds(token).expand` (harness/core/token.ts), so the
 * token is spelled in exactly one place.
 *
 * A schema object may say how it differs by protocol line: `"x-from-line": {"3.1": {<keywords>}}`
 * replaces those keywords of the object for every target from that line on (e.g. `required`
 * gaining `revision` in 3.1). The documents are built for one target line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { protocolIds, type ProtocolIds } from '../token.js';
import { DEFAULT_TARGET, isProtocolLine, PROTOCOL_LINES, type ProtocolLine } from '../protocol/lines.js';

export const SCHEMA_BASE_URI = 'https://proto-comply.local/schemas/';
export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
export const DEFAULT_SCHEMA_DIR = fileURLToPath(new URL('../../../fixtures/schemas/', import.meta.url));

export class SchemaLoadError extends Error {}

/** The `$id` of the schema named `name` (`product`, `get_products-response`, ...). */
export const schemaIdOf = (name: string): string => `${SCHEMA_BASE_URI}${name}.json`;

export interface SchemaDocument {
  /** File name without `.json`, e.g. `product`, `get_products-response`. */
  name: string;
  /** Absolute path of the file. */
  file: string;
  /** `$id` of the schema. */
  id: string;
  /** The schema with token placeholders expanded. */
  schema: Record<string, unknown>;
}

/**
 * Deep copy of `value` with `{token}`/`{TOKEN}` expanded in object keys and string values.
 * A forbidden member written `properties: {x: false}` becomes the equivalent `{not: {}}`:
 * ajv reports a boolean schema without a parent object, and the validator locates every
 * error through its parent schema object (validator.ts `schemaLocations`).
 */
export function expandTokenPlaceholders<T>(value: T, ids: ProtocolIds): T {
  return expand(value, ids) as T;
}

function expand(value: unknown, ids: ProtocolIds, inProperties = false): unknown {
  if (typeof value === 'string') return ids.expand(value);
  if (Array.isArray(value)) return value.map((v) => expand(v, ids));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[ids.expand(k)] = inProperties && v === false ? { not: {} } : expand(v, ids, k === 'properties');
    }
    return out;
  }
  return value;
}

/** The member naming an object's keywords per protocol line. */
export const FROM_LINE = 'x-from-line';

/**
 * `schema` as it reads under `target`: every `x-from-line` member is removed, and the keywords of
 * each of its lines up to the target (oldest first) replace the object's own. Throws
 * SchemaLoadError for a line that is not a protocol line or an entry that is not an object.
 */
export function applyLineVariants<T>(schema: T, target: ProtocolLine, where: string): T {
  return variant(schema, target, where, '') as T;
}

function variant(value: unknown, target: ProtocolLine, where: string, pointer: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => variant(v, target, where, `${pointer}/${i}`));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== FROM_LINE) out[k] = variant(v, target, where, `${pointer}/${k}`);
  const lines = (value as Record<string, unknown>)[FROM_LINE];
  if (lines === undefined) return out;
  if (lines === null || typeof lines !== 'object' || Array.isArray(lines)) throw new SchemaLoadError(`${where}#${pointer}: ${FROM_LINE} must be an object`);
  for (const [line, keywords] of Object.entries(lines)) {
    if (!isProtocolLine(line))
      throw new SchemaLoadError(`${where}#${pointer}: ${FROM_LINE} names ${JSON.stringify(line)}, not one of ${PROTOCOL_LINES.join(', ')}`);
    if (keywords === null || typeof keywords !== 'object' || Array.isArray(keywords))
      throw new SchemaLoadError(`${where}#${pointer}: ${FROM_LINE}.${line} must be an object of keywords`);
  }
  for (const line of PROTOCOL_LINES) {
    if (PROTOCOL_LINES.indexOf(line) > PROTOCOL_LINES.indexOf(target)) break;
    const keywords = (lines as Record<string, Record<string, unknown>>)[line];
    if (keywords) Object.assign(out, variant(keywords, target, where, `${pointer}/${FROM_LINE}/${line}`));
  }
  return out;
}

/** Every object inside `schema`, keyed by identity, to `<name>.json#<pointer>`. */
export function indexSchemaObjects(name: string, schema: unknown, into: WeakMap<object, string>, pointer = ''): void {
  if (schema === null || typeof schema !== 'object') return;
  into.set(schema, `${name}.json#${pointer}`);
  for (const [k, v] of Object.entries(schema)) {
    indexSchemaObjects(name, v, into, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  }
}

/** Reads every `*.json` of `dir`, checks `$schema`/`$id`, expands the token, takes the `target` line's variant. Sorted by name. */
export function loadSchemaDocuments(token: string, dir: string = DEFAULT_SCHEMA_DIR, target: ProtocolLine = DEFAULT_TARGET): SchemaDocument[] {
  const ids = protocolIds(token);
  const root = resolve(dir);
  let files: string[];
  try {
    files = readdirSync(root).filter((f) => f.endsWith('.json'));
  } catch (err) {
    throw new SchemaLoadError(`cannot read schema directory ${root}: ${(err as Error).message}`);
  }
  if (files.length === 0) throw new SchemaLoadError(`no *.json schema files in ${root}`);
  return files
    .map((f) => {
      const file = join(root, f);
      const name = f.slice(0, -'.json'.length);
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new SchemaLoadError(`schema ${f}: not valid JSON: ${(err as Error).message}`);
      }
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        throw new SchemaLoadError(`schema ${f}: the top level must be an object`);
      }
      const schema = applyLineVariants(expandTokenPlaceholders(raw as Record<string, unknown>, ids), target, f);
      if (schema.$schema !== SCHEMA_DIALECT) {
        throw new SchemaLoadError(`schema ${f}: $schema must be ${SCHEMA_DIALECT}`);
      }
      const id = schemaIdOf(name);
      if (schema.$id !== id) {
        throw new SchemaLoadError(`schema ${f}: $id must be ${id} (got ${JSON.stringify(schema.$id)})`);
      }
      return { name, file, id, schema };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
