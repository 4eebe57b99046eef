/**
 * Read a directory of released JSON Schemas for one protocol line (`run --schemas DIR`), as the
 * spec repository publishes them under `dist/schemas/<version>/` and `@adcp/sdk` ships them under
 * `dist/lib/schemas-data/<line>/`: the files are listed with bounds (count, size, depth; links
 * inside are not followed), the release version is read from `manifest.json` or `index.json`
 * (`adcp_version`), and each task's response schema is found: the manifest's
 * `tools.<task>.response_schema`, or without a manifest the file named `<task, - for _>-response.json`
 * (the shallowest when several are); an interim reply's (`status` submitted, working or
 * input-required) from the manifest's `async_response_schemas` or the files named
 * `<task>-async-response-<status>.json`. Nothing else is parsed here: schemas are read and compiled
 * when a task needs them (compile.ts). A bad directory is a SchemaSetError naming the file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { lineOfVersion, PROTOCOL_LINES, type ProtocolLine } from '../../protocol/lines.js';

export class SchemaSetError extends Error {}

/** Bounds on what a schema set may hold (the SDK's 3.0 set: 576 files, the largest 630 KB). */
export const SCHEMA_SET_LIMITS = { maxFiles: 2000, maxFileBytes: 2 * 1024 * 1024, maxDepth: 8 } as const;

export interface SchemaSetFiles {
  /** The directory, absolute. */
  dir: string;
  /** The release version (`3.0.6`) and its line. */
  version: string;
  line: ProtocolLine;
  /** Every `*.json` file, by its path in the set (`/`-separated). */
  files: ReadonlySet<string>;
  /** Each task's response schema file, by task name. */
  responses: ReadonlyMap<string, string>;
  /** Each task's schemas of an interim reply by its status (`submitted`, `working`, `input-required`), the async contract's variants. */
  interim: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Tasks whose response schema the manifest names but the set does not hold, with that path. */
  missing: ReadonlyMap<string, string>;
}

/** A version as a report may carry it (the set's own text otherwise never reaches a report). */
const VERSION = /^[0-9A-Za-z.+-]{1,64}$/;
/** A path in the set: relative, `/`-separated, no `..`. */
export const SET_PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\.json$/;

export function readSchemaSet(path: string): SchemaSetFiles {
  const dir = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new SchemaSetError(`${path}: no such directory`);
  }
  if (!isDir) throw new SchemaSetError(`${path}: not a directory (give the directory of one protocol line's released JSON Schemas)`);
  const files = listJson(dir);
  const manifest = files.has('manifest.json') ? readJsonObject(dir, 'manifest.json') : undefined;
  const index = files.has('index.json') ? readJsonObject(dir, 'index.json') : undefined;
  const version = versionOf(path, manifest, index);
  const line = lineOfVersion(version);
  if (!line) throw new SchemaSetError(`${path}: version ${version} is of no protocol line the harness judges (${PROTOCOL_LINES.join(', ')})`);
  const { responses, interim, missing } = manifest ? fromManifest(manifest, files) : byName(files);
  if (responses.size === 0) throw new SchemaSetError(`${path}: holds no response schema of any task (no manifest.json tools, no *-response.json file)`);
  return { dir, version, line, files, responses, interim, missing };
}

/** The `*.json` files under `dir`, bounded; a file too large is an error naming it. */
function listJson(root: string): Set<string> {
  const out = new Set<string>();
  const walk = (rel: string, depth: number) => {
    if (depth > SCHEMA_SET_LIMITS.maxDepth) throw new SchemaSetError(`${root}: directories nested deeper than ${SCHEMA_SET_LIMITS.maxDepth} (${rel})`);
    for (const e of readdirSync(join(root, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith('.json') && SET_PATH.test(p)) {
        if (out.size >= SCHEMA_SET_LIMITS.maxFiles) throw new SchemaSetError(`${root}: more than ${SCHEMA_SET_LIMITS.maxFiles} JSON files`);
        if (statSync(join(root, p)).size > SCHEMA_SET_LIMITS.maxFileBytes)
          throw new SchemaSetError(`${p}: larger than ${SCHEMA_SET_LIMITS.maxFileBytes} bytes`);
        out.add(p);
      }
    }
  };
  walk('', 0);
  if (out.size === 0) throw new SchemaSetError(`${root}: no *.json files`);
  return out;
}

/** A file of the set parsed as JSON (its size was bounded when listed); an error names the file. */
export function readJson(dir: string, rel: string): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, rel), 'utf8'));
  } catch (e) {
    throw new SchemaSetError(`${rel}: not JSON (${(e as Error).message})`);
  }
}

function readJsonObject(dir: string, rel: string): Record<string, unknown> {
  const v = readJson(dir, rel);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new SchemaSetError(`${rel}: not a JSON object`);
  return v as Record<string, unknown>;
}

/** `adcp_version` of manifest.json or index.json (they must agree), else the directory's name when it reads as a version. */
function versionOf(path: string, ...docs: Array<Record<string, unknown> | undefined>): string {
  const named = docs.map((d) => d?.adcp_version).filter((v) => v !== undefined);
  for (const v of named) if (typeof v !== 'string' || !VERSION.test(v)) throw new SchemaSetError(`${path}: adcp_version ${JSON.stringify(v)} is not a version`);
  if (new Set(named).size > 1) throw new SchemaSetError(`${path}: manifest.json and index.json name different versions (${named.join(', ')})`);
  if (named.length > 0) return named[0] as string;
  const name = basename(resolve(path));
  if (/^\d+\.\d+(\.\d+)?$/.test(name)) return name;
  throw new SchemaSetError(`${path}: names no release version (adcp_version in manifest.json or index.json, or a directory named for it)`);
}

/** manifest.json `tools.<task>.response_schema`. */
function fromManifest(manifest: Record<string, unknown>, files: ReadonlySet<string>) {
  const responses = new Map<string, string>();
  const interim = new Map<string, Map<string, string>>();
  const missing = new Map<string, string>();
  const tools = manifest.tools;
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools)) throw new SchemaSetError('manifest.json: tools must be an object of tasks');
  for (const [task, entry] of Object.entries(tools)) {
    const variants = (entry as { async_response_schemas?: unknown } | null)?.async_response_schemas;
    for (const v of Array.isArray(variants) ? variants : []) addInterim(interim, task, v, files);
    const file = (entry as { response_schema?: unknown } | null)?.response_schema;
    if (file === undefined) continue;
    if (typeof file !== 'string' || !SET_PATH.test(file)) throw new SchemaSetError(`manifest.json: tools.${task}.response_schema must be a path in the set`);
    if (files.has(file)) responses.set(task, file);
    else missing.set(task, file);
  }
  return { responses, interim, missing };
}

/** Without a manifest: `<task>-response.json` by name, the shallowest first. */
function byName(files: ReadonlySet<string>) {
  const responses = new Map<string, string>();
  const interim = new Map<string, Map<string, string>>();
  const depth = (p: string) => p.split('/').length;
  for (const p of [...files].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))) {
    const m = /^([a-z0-9][a-z0-9-]*?)-(?:async-response-(?:submitted|working|input-required)|response)\.json$/.exec(basename(p));
    const task = m?.[1]?.replaceAll('-', '_');
    if (!task) continue;
    if (p.endsWith('-response.json')) {
      if (!responses.has(task)) responses.set(task, p);
    } else addInterim(interim, task, p, files);
  }
  return { responses, interim, missing: new Map<string, string>() };
}

/** An interim reply's schema by the status its name ends with, when the set holds it (the first of a status wins). */
function addInterim(into: Map<string, Map<string, string>>, task: string, file: unknown, files: ReadonlySet<string>): void {
  const status = typeof file === 'string' && files.has(file) ? /-async-response-(submitted|working|input-required)\.json$/.exec(file)?.[1] : undefined;
  if (!status) return;
  const byStatus = into.get(task) ?? new Map<string, string>();
  if (!byStatus.has(status)) byStatus.set(status, file as string);
  into.set(task, byStatus);
}
