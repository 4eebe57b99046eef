/**
 * A released schema set (read.ts) as the engine's ReleasedSchemaSet: a task's response schema is
 * read with the files its `$ref`s reach and compiled the first time a reply of that task is judged,
 * with ajv under the dialect each file declares (draft-07 or 2020-12) and ajv-formats, not strict
 * (released schemas carry keywords of their own, e.g. `discriminator`), all errors. Every `$id`
 * ends with the file's path in the set (`/schemas/3.0.6/core/product.json` for
 * `core/product.json`, as released), which is how a `$ref` finds its file. Errors are located in
 * their file (`core/product.json#/required`). A file that cannot be read or compiled is an error
 * naming it, for that task only. An interim reply (`status` submitted, working or input-required)
 * is judged against the task's schema of that status when the set has one (read.ts).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { ReleasedSchemaSet, ReleasedVerdict } from '../../engine/kinds/types.js';
import { indexSchemaObjects } from '../loader.js';
import { toSchemaErrors } from '../validator.js';
import { readJson, readSchemaSet, SchemaSetError, SET_PATH, type SchemaSetFiles } from './read.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv | Ajv2020) => void;

/** The dialects a file may declare in `$schema`. */
const DIALECTS: Record<string, 'draft-07' | '2020-12'> = {
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft-07/schema': 'draft-07',
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
};
type Dialect = (typeof DIALECTS)[string];

/** A base for `$id`s written as paths (`/schemas/3.0.6/...`), so they resolve as URLs. */
const BASE = 'https://schema-set.invalid/';

export interface SchemaSet extends ReleasedSchemaSet {
  /** Each task's response schema file, by task. */
  readonly responses: ReadonlyMap<string, string>;
  /** Tasks the manifest names whose file the set lacks. */
  readonly missing: ReadonlyMap<string, string>;
}

/** Reads `dir` (throws SchemaSetError for a bad one); schemas are compiled when first needed. */
export function openSchemaSet(dir: string): SchemaSet {
  return compileLazily(readSchemaSet(dir));
}

interface Loaded {
  id: string;
  url: URL;
  dialect: Dialect;
  schema: Record<string, unknown>;
}

function compileLazily(set: SchemaSetFiles): SchemaSet {
  const ajvs = new Map<Dialect, Ajv | Ajv2020>();
  const loaded = new Map<string, Loaded>();
  const compiled = new Map<string, ValidateFunction | SchemaSetError>();
  const locations = new WeakMap<object, string>();
  let prefix: string | undefined;

  const ajvFor = (d: Dialect) => {
    let ajv = ajvs.get(d);
    if (!ajv) {
      const options = { inlineRefs: false, strict: false, allErrors: true, verbose: true, allowUnionTypes: true, logger: false as const };
      ajv = d === '2020-12' ? new Ajv2020(options) : new Ajv(options);
      addFormats(ajv);
      ajvs.set(d, ajv);
    }
    return ajv;
  };

  /** One file: parsed, its dialect and `$id` checked, added to its dialect's ajv. */
  const load = (rel: string): Loaded => {
    const seen = loaded.get(rel);
    if (seen) return seen;
    const schema = readJson(set.dir, rel);
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new SchemaSetError(`${rel}: not a JSON object`);
    const s = schema as Record<string, unknown>;
    const dialect = typeof s.$schema === 'string' ? DIALECTS[s.$schema.replace(/#$/, '')] : undefined;
    if (!dialect) throw new SchemaSetError(`${rel}: $schema ${JSON.stringify(s.$schema)} is neither draft-07 nor 2020-12`);
    if (typeof s.$id !== 'string') throw new SchemaSetError(`${rel}: no $id`);
    const url = new URL(s.$id, BASE);
    const filePrefix = url.href.endsWith(`/${rel}`) ? url.href.slice(0, -rel.length) : undefined;
    if (!filePrefix) throw new SchemaSetError(`${rel}: its $id ${s.$id} does not end with its path in the set`);
    if (prefix !== undefined && filePrefix !== prefix) throw new SchemaSetError(`${rel}: its $id ${s.$id} is not under ${prefix.replace(BASE, '/')}`);
    prefix = filePrefix;
    try {
      ajvFor(dialect).addSchema(s);
    } catch (e) {
      throw new SchemaSetError(`${rel}: ${(e as Error).message}`);
    }
    const entry = { id: s.$id, url, dialect, schema: s };
    loaded.set(rel, entry);
    indexSchemaObjects(rel.slice(0, -'.json'.length), s, locations);
    return entry;
  };

  /** The file of the set a `$ref` of `from` names, if it names one. */
  const fileOf = (ref: string, from: Loaded): string | undefined => {
    if (ref.startsWith('#') || prefix === undefined) return undefined;
    let href: string;
    try {
      href = new URL(ref, from.url).href.replace(/#.*$/, '');
    } catch {
      return undefined;
    }
    const rel = href.startsWith(prefix) ? decodeURIComponent(href.slice(prefix.length)) : undefined;
    return rel !== undefined && set.files.has(rel) ? rel : undefined;
  };

  /** A file and every file of the set its `$ref`s reach (a reference to no file of the set is left for ajv to report, if reached). */
  const loadClosure = (rel: string) => {
    const queue = [rel];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      const entry = load(next);
      for (const ref of refsIn(entry.schema)) {
        const file = fileOf(ref, entry);
        if (file && !loaded.has(file)) queue.push(file);
      }
    }
    return loaded.get(rel) as Loaded;
  };

  const compile = (rel: string): ValidateFunction => {
    let fn = compiled.get(rel);
    if (!fn) {
      try {
        const entry = loadClosure(rel);
        const got = ajvFor(entry.dialect).getSchema(entry.id);
        if (!got) throw new SchemaSetError(`${rel}: ajv returned no validator`);
        fn = got;
      } catch (e) {
        fn = e instanceof SchemaSetError ? e : new SchemaSetError(`${rel} does not compile: ${(e as Error).message}`);
      }
      compiled.set(rel, fn);
    }
    if (fn instanceof SchemaSetError) throw fn;
    return fn;
  };

  return {
    dir: set.dir,
    version: set.version,
    line: set.line,
    responses: set.responses,
    missing: set.missing,
    validateTaskResponse(task, payload, ref) {
      const asked = ref?.replace(/^\.?\//, '');
      const named = asked !== undefined && SET_PATH.test(asked) && set.files.has(asked) ? asked : undefined;
      // An interim reply (the async contract's submitted, working, input-required) has its own schema when the set has one.
      const status = (payload as { status?: unknown } | null)?.status;
      const interim = typeof status === 'string' ? set.interim.get(task)?.get(status) : undefined;
      const file = interim ?? named ?? set.responses.get(task);
      if (!file) return undefined;
      const note =
        ref === undefined || file === named
          ? undefined
          : interim
            ? `an interim reply (status ${status}): the set's ${interim} was applied`
            : `the set holds no ${JSON.stringify(ref).slice(0, 120)}; its ${task} response schema ${file} was applied`;
      const fn = compile(file);
      const valid = fn(payload) as boolean;
      const verdict: ReleasedVerdict = {
        valid,
        errors: valid ? [] : toSchemaErrors(file.slice(0, -'.json'.length), fn.errors ?? [], locations),
        schema: { id: (loaded.get(file) as Loaded).id, file },
      };
      return note ? { ...verdict, note } : verdict;
    },
  };
}

/** Every `$ref` string in a schema (in any member: a reference inside an example that names no file is ignored). */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  return out;
}
