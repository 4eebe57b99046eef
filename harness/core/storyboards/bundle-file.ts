/**
 * One YAML file of a storyboard bundle, read with the bundle's bounds: its size, YAML aliases, no
 * duplicate keys. A file that breaks them, or is not YAML, is a StoryboardBundleError naming it
 * (a bad bundle is the caller's usage error, never a run of what could be read).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';

export class StoryboardBundleError extends Error {}

/** Bounds on what a bundle may hold. */
export const BUNDLE_LIMITS = { maxFileBytes: 1024 * 1024, maxFiles: 2000, maxAliases: 100 } as const;

/** The parsed YAML of `file` (`rel`: its name in errors); throws StoryboardBundleError. */
export function readBundleYaml(file: string, rel: string): unknown {
  if (!existsSync(file)) throw new StoryboardBundleError(`${rel}: named by index.json, but missing`);
  if (statSync(file).size > BUNDLE_LIMITS.maxFileBytes) throw new StoryboardBundleError(`${rel}: larger than ${BUNDLE_LIMITS.maxFileBytes} bytes`);
  try {
    return parse(readFileSync(file, 'utf8'), { maxAliasCount: BUNDLE_LIMITS.maxAliases, uniqueKeys: true, prettyErrors: false });
  } catch (e) {
    throw new StoryboardBundleError(`${rel}: not YAML (${(e as Error).message.split('\n')[0]})`);
  }
}
