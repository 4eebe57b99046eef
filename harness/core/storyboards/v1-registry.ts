/**
 * The v1 → canonical mapping registry of a released schema set (`registries/v1-canonical-mapping.json`,
 * 3.1+): a legacy named format's id projected to a canonical `format_kind` and params by the
 * first `format_id_glob` entry matching it (`*` any run of characters). Structural entries need
 * the named format's own definition and are not read. A set without the file (the 3.0 sets) or
 * with an unreadable one has no registry: normalizing through it is then not possible, and
 * canonical-format.ts says so. Read once per set directory; at most 2 MiB and 2 000 entries.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CanonicalProjection {
  format_kind: string;
  params: Record<string, unknown>;
  /** The glob that matched. */
  glob: string;
}
/** The projection of a named format's id, or undefined when no entry matches. */
export type V1Registry = (id: string) => CanonicalProjection | undefined;

const MAX_BYTES = 2 * 1024 * 1024;
const MAX_ENTRIES = 2_000;
const cache = new Map<string, V1Registry | undefined>();

const globRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'u',
  );

/** The registry of a set directory, or undefined when the set has none that can be read. */
export function v1RegistryOf(setDir: string | undefined): V1Registry | undefined {
  if (!setDir) return undefined;
  if (cache.has(setDir)) return cache.get(setDir);
  let registry: V1Registry | undefined;
  try {
    const file = join(setDir, 'registries', 'v1-canonical-mapping.json');
    if (statSync(file).size <= MAX_BYTES) registry = registryFrom(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    registry = undefined;
  }
  cache.set(setDir, registry);
  return registry;
}

/** A registry from the file's parsed content (exported for tests). */
export function registryFrom(doc: unknown): V1Registry | undefined {
  const mappings = (doc as { mappings?: unknown } | null)?.mappings;
  if (!Array.isArray(mappings)) return undefined;
  const entries: { re: RegExp; glob: string; kind: string; params: Record<string, unknown> }[] = [];
  for (const m of mappings.slice(0, MAX_ENTRIES)) {
    const glob = (m as { v1_pattern?: { format_id_glob?: unknown } })?.v1_pattern?.format_id_glob;
    const v2 = (m as { v2?: { canonical?: unknown; parameters?: unknown } })?.v2;
    if (typeof glob !== 'string' || glob === '' || typeof v2?.canonical !== 'string') continue;
    const params = v2.parameters && typeof v2.parameters === 'object' && !Array.isArray(v2.parameters) ? (v2.parameters as Record<string, unknown>) : {};
    entries.push({ re: globRegExp(glob), glob, kind: v2.canonical, params });
  }
  return (id) => {
    const hit = entries.find((e) => e.re.test(id));
    return hit ? { format_kind: hit.kind, params: structuredClone(hit.params), glob: hit.glob } : undefined;
  };
}
