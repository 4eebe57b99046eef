/**
 * Loads the JSON Schema files of fixtures/schemas and turns them into documents for one
 * protocol token. Schema files are templates: `{token}` / `{TOKEN}` in member names and in
 * string values are replaced through `protocolIds(token).expand` (harness/token.ts), so the
 * token is spelled in exactly one place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { protocolIds, type ProtocolIds } from '../token.js';

export const SCHEMA_BASE_URI = 'https://proto-comply.local/schemas/';
export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
export const DEFAULT_SCHEMA_DIR = fileURLToPath(new URL('../../fixtures/schemas/', import.meta.url));

export class SchemaLoadError extends Error {}

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

/** Every object inside `schema`, keyed by identity, to `<name>.json#<pointer>`. */
export function indexSchemaObjects(name: string, schema: unknown, into: WeakMap<object, string>, pointer = ''): void {
  if (schema === null || typeof schema !== 'object') return;
  into.set(schema, `${name}.json#${pointer}`);
  for (const [k, v] of Object.entries(schema)) {
    indexSchemaObjects(name, v, into, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  }
}

/** Reads every `*.json` of `dir`, checks `$schema`/`$id`, expands the token. Sorted by name. */
export function loadSchemaDocuments(token: string, dir: string = DEFAULT_SCHEMA_DIR): SchemaDocument[] {
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
      const schema = expandTokenPlaceholders(raw as Record<string, unknown>, ids);
      if (schema.$schema !== SCHEMA_DIALECT) {
        throw new SchemaLoadError(`schema ${f}: $schema must be ${SCHEMA_DIALECT}`);
      }
      const id = `${SCHEMA_BASE_URI}${name}.json`;
      if (schema.$id !== id) {
        throw new SchemaLoadError(`schema ${f}: $id must be ${id} (got ${JSON.stringify(schema.$id)})`);
      }
      return { name, file, id, schema };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
