/**
 * Read a storyboard bundle: a directory with its `index.json` (universal storyboards, protocol
 * baselines, specialisms; digest 6.2), or one storyboard file. Every YAML file is parsed with
 * bounds (size, count, aliases) and its shape checked with a JSON Schema of the members the
 * harness acts on; a file that is not a storyboard (the runner output contract, reference data)
 * is listed, not loaded. A bad bundle is a StoryboardBundleError naming the file and the member.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type {
  BundleEntry,
  CapabilityRequirement,
  Storyboard,
  StoryboardBundle,
  StoryboardKind,
  StoryboardPhase,
  StoryboardStep,
  StoryboardValidation,
} from './model.js';
import { STORYBOARD_SHAPE } from './shape.js';
import { BUNDLE_LIMITS, readBundleYaml, StoryboardBundleError } from './bundle-file.js';
import { severityOf } from './runner-capability.js';
import { loadTestKits } from './test-kits.js';

export { BUNDLE_LIMITS, StoryboardBundleError } from './bundle-file.js';

// Compiled on first use: `run` imports this module but loads a bundle only with --storyboards.
let validateShapeFn: ValidateFunction | undefined;
const validateShape = (): ValidateFunction => (validateShapeFn ??= new Ajv2020({ allErrors: false, strict: false }).compile(STORYBOARD_SHAPE));

/** A bundle directory (with index.json) or a single storyboard file. */
export function loadStoryboardBundle(path: string): StoryboardBundle {
  if (!existsSync(path)) throw new StoryboardBundleError(`${path}: no such file or directory`);
  if (statSync(path).isFile()) return loadSingleFile(path);
  const indexFile = join(path, 'index.json');
  if (!existsSync(indexFile))
    throw new StoryboardBundleError(`${path}: not a storyboard bundle (no index.json); give the bundle directory or one storyboard file`);
  const index = readIndex(indexFile);
  const budget = { files: 0 };
  const bundle: StoryboardBundle = {
    root: path,
    version: index.adcp_version,
    entries: [],
    storyboards: new Map(),
    otherFiles: [],
    testKits: loadTestKits(path, budget),
  };
  const add = (kind: BundleEntry['kind'], id: string, files: string[], extra: Partial<BundleEntry> = {}) => {
    const ids: string[] = [];
    for (const file of files) {
      const sb = readStoryboardFile(path, file, kind === 'universal' ? 'universal' : undefined, budget);
      if (!sb) {
        bundle.otherFiles.push(relative(path, file));
        continue;
      }
      if (kind !== 'universal' && sb.id.includes('/')) sb.kind = 'scenario';
      else if (kind !== 'universal') sb.kind = kind;
      if (!sb.protocol && extra.protocol) sb.protocol = extra.protocol;
      if (kind === 'protocol' && !sb.protocol) sb.protocol = id;
      const seen = bundle.storyboards.get(sb.id);
      if (seen && seen.file !== sb.file) throw new StoryboardBundleError(`${sb.file}: storyboard id ${JSON.stringify(sb.id)} is also the id of ${seen.file}`);
      bundle.storyboards.set(sb.id, sb);
      ids.push(sb.id);
    }
    bundle.entries.push({ kind, id, storyboards: ids, ...extra });
  };
  for (const name of index.universal) add('universal', name, [join(path, 'universal', `${name}.yaml`)]);
  for (const p of index.protocols) if (p.has_baseline !== false) add('protocol', p.id, yamlFilesUnder(join(path, p.path ?? `protocols/${p.id}`)));
  for (const s of index.specialisms)
    add('specialism', s.id, yamlFilesUnder(join(path, s.path ?? `specialisms/${s.id}`)), {
      ...(s.protocol ? { protocol: s.protocol } : {}),
      ...(s.required_tools ? { requiredTools: s.required_tools } : {}),
    });
  for (const sb of bundle.storyboards.values())
    for (const ref of sb.requiresScenarios)
      if (!bundle.storyboards.has(ref))
        throw new StoryboardBundleError(`${sb.file}: requires_scenarios names ${JSON.stringify(ref)}, which no storyboard of the bundle is`);
  return bundle;
}

interface IndexFile {
  adcp_version?: string;
  universal: string[];
  protocols: Array<{ id: string; path?: string; has_baseline?: boolean }>;
  specialisms: Array<{ id: string; path?: string; protocol?: string; required_tools?: string[] }>;
}

const INDEX_SHAPE = {
  type: 'object',
  required: ['universal', 'protocols', 'specialisms'],
  properties: {
    adcp_version: { type: 'string', maxLength: 64 },
    universal: { type: 'array', maxItems: 500, items: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' } },
    protocols: { type: 'array', maxItems: 100, items: { $ref: '#/$defs/entry' } },
    specialisms: { type: 'array', maxItems: 500, items: { $ref: '#/$defs/entry' } },
  },
  $defs: {
    entry: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' },
        path: { type: 'string', pattern: '^[a-z0-9][a-z0-9_/-]{0,255}$' },
        protocol: { type: 'string', maxLength: 128 },
        has_baseline: { type: 'boolean' },
        required_tools: { type: 'array', items: { type: 'string' } },
      },
    },
  },
} as const;
let validateIndexFn: ValidateFunction | undefined;
const validateIndex = (): ValidateFunction => (validateIndexFn ??= new Ajv2020({ strict: false }).compile(INDEX_SHAPE));

function readIndex(file: string): IndexFile {
  if (statSync(file).size > BUNDLE_LIMITS.maxFileBytes) throw new StoryboardBundleError(`${file}: larger than ${BUNDLE_LIMITS.maxFileBytes} bytes`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new StoryboardBundleError(`${file}: not JSON (${(e as Error).message})`);
  }
  if (!validateIndex()(data)) throw new StoryboardBundleError(`${file}: ${describe(validateIndex().errors)}`);
  return data as IndexFile;
}

/** The YAML files under a directory, recursively, `index.yaml` first in each directory (as the reference runner orders them). */
function yamlFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).sort((a, b) => (a === 'index.yaml' ? -1 : b === 'index.yaml' ? 1 : a.localeCompare(b)));
  const out: string[] = [];
  for (const name of names) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...yamlFilesUnder(full));
    else if (/\.ya?ml$/.test(name)) out.push(full);
  }
  return out;
}

function loadSingleFile(file: string): StoryboardBundle {
  const root = dirname(file);
  const budget = { files: 0 };
  const sb = readStoryboardFile(root, file, 'file', budget);
  if (!sb) throw new StoryboardBundleError(`${file}: not a storyboard (a storyboard has an id and phases)`);
  // The file's own directory holds the kits, or, for a file of a bundle's universal/, its parent does.
  const kitRoot = existsSync(join(root, 'test-kits')) ? root : dirname(root);
  return { root, entries: [], storyboards: new Map([[sb.id, sb]]), otherFiles: [], testKits: loadTestKits(kitRoot, budget) };
}

/** One storyboard file; undefined for a YAML file that is not a storyboard (no `phases`). */
function readStoryboardFile(root: string, file: string, kind: StoryboardKind | undefined, budget: { files: number }): Storyboard | undefined {
  const rel = relative(root, file) || basename(file);
  if (++budget.files > BUNDLE_LIMITS.maxFiles) throw new StoryboardBundleError(`${root}: more than ${BUNDLE_LIMITS.maxFiles} files`);
  const data = readBundleYaml(file, rel);
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('phases' in data)) return undefined;
  if (!validateShape()(data)) throw new StoryboardBundleError(`${rel}: ${describe(validateShape().errors)}`);
  return toStoryboard(data as unknown as Record<string, unknown>, rel, kind ?? 'file');
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'invalid';
}

/** The strings of a list an author wrote (anything else in it, or a non-list, left out). */
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const requirement = (v: unknown): CapabilityRequirement | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as CapabilityRequirement) : undefined;

function toStoryboard(d: Record<string, unknown>, file: string, kind: StoryboardKind): Storyboard {
  return {
    id: d.id as string,
    title: (d.title as string | undefined) ?? (d.id as string),
    ...(typeof d.version === 'string' ? { version: d.version } : {}),
    ...(typeof d.category === 'string' ? { category: d.category } : {}),
    ...(typeof d.track === 'string' ? { track: d.track } : {}),
    ...(typeof d.protocol === 'string' ? { protocol: d.protocol } : {}),
    requiredTools: strings(d.required_tools),
    requiredAnyOfTools: Array.isArray(d.required_any_of_tools)
      ? (d.required_any_of_tools as Array<{ tools: string[]; rationale?: string }>).map((g) => ({
          tools: strings(g.tools),
          ...(g.rationale ? { rationale: g.rationale } : {}),
        }))
      : [],
    ...(requirement(d.requires_capability) ? { requiresCapability: requirement(d.requires_capability) } : {}),
    requiresAllCapabilities: Array.isArray(d.requires_all_capabilities) ? (d.requires_all_capabilities as CapabilityRequirement[]) : [],
    requiresScenarios: strings(d.requires_scenarios),
    ...(typeof d.introduced_in === 'string' ? { introducedIn: d.introduced_in } : {}),
    phases: ((d.phases as Array<Record<string, unknown>> | null) ?? []).map(toPhase),
    kind,
    file,
    raw: d,
  };
}

function toPhase(p: Record<string, unknown>): StoryboardPhase {
  return {
    id: p.id as string,
    ...(typeof p.title === 'string' ? { title: p.title } : {}),
    dependsOn: typeof p.depends_on === 'string' ? [p.depends_on] : strings(p.depends_on),
    optional: p.optional === true,
    ...(requirement(p.requires_capability) ? { requiresCapability: requirement(p.requires_capability) } : {}),
    steps: ((p.steps as Array<Record<string, unknown>> | undefined) ?? []).map(toStep),
    raw: p,
  };
}

function toStep(s: Record<string, unknown>): StoryboardStep {
  return {
    id: s.id as string,
    ...(typeof s.title === 'string' ? { title: s.title } : {}),
    task: s.task as string,
    ...(typeof s.requires_tool === 'string' ? { requiresTool: s.requires_tool } : {}),
    stateful: s.stateful === true,
    expectError: s.expect_error === true,
    ...('sample_request' in s ? { sampleRequest: s.sample_request } : {}),
    contextOutputs: Array.isArray(s.context_outputs)
      ? (s.context_outputs as Array<{ name?: string; key?: string; path: string }>).map((o) => ({ name: (o.name ?? o.key) as string, path: o.path }))
      : [],
    validations: ((s.validations as Array<Record<string, unknown>> | undefined) ?? []).map(toValidation),
    raw: s,
  };
}

function toValidation(v: Record<string, unknown>): StoryboardValidation {
  return {
    check: v.check as string,
    ...(typeof v.id === 'string' ? { id: v.id } : {}),
    ...(typeof v.path === 'string' ? { path: v.path } : {}),
    ...('value' in v ? { value: v.value } : {}),
    ...(Array.isArray(v.allowed_values) ? { allowed_values: v.allowed_values } : {}),
    ...(typeof v.description === 'string' ? { description: v.description } : {}),
    ...(typeof v.expires_after_version === 'string' ? { expires_after_version: v.expires_after_version } : {}),
    // An advisory past its expires_after_version is judged as required (runner-capability.ts).
    ...(v.severity === 'advisory' || v.severity === 'required'
      ? {
          severity: severityOf({
            severity: v.severity,
            ...(typeof v.expires_after_version === 'string' ? { expires_after_version: v.expires_after_version } : {}),
          }),
        }
      : {}),
    raw: v,
  };
}
