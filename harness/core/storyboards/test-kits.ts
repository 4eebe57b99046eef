/**
 * Test kits (digest 6.1 `prerequisites.test_kit`; the bundle's storyboard schema, "Test kit
 * flavors"): the bundle's `test-kits/*.yaml`, brand kits (an identity, `auth.api_key`,
 * `auth.probe_task`) and runner contracts (`applies_to`, e.g. the webhook receiver contract). A
 * storyboard names its kit by path (`test-kits/acme-outdoor.yaml`), file name or id; its steps read
 * it through `$test_kit.<path>` in task names and request values, and its phases through
 * `skip_if: "!test_kit.<path>"`. What a kit does not hold is the runner's missing input: a gap
 * naming the kit and the path, never the agent's failure.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Storyboard, StoryboardBundle, StoryboardPhase, StoryboardStep, TestKit } from './model.js';
import { BUNDLE_LIMITS, readBundleYaml, StoryboardBundleError } from './bundle-file.js';
import { resolveStoryboardPath } from './path.js';
import { TEST_KIT_GAP, UnresolvedSubstitution } from './substitute.js';

export const TEST_KIT_DIR = 'test-kits';

/** Every YAML file of `<root>/test-kits/` (counted against the bundle's file budget); none without the folder. */
export function loadTestKits(root: string, budget: { files: number }): TestKit[] {
  const dir = join(root, TEST_KIT_DIR);
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) return [];
    names = readdirSync(dir).filter((n) => /\.ya?ml$/.test(n));
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    const rel = `${TEST_KIT_DIR}/${name}`;
    if (++budget.files > BUNDLE_LIMITS.maxFiles) throw new StoryboardBundleError(`${root}: more than ${BUNDLE_LIMITS.maxFiles} files`);
    const data = readBundleYaml(join(dir, name), rel);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new StoryboardBundleError(`${rel}: a test kit is a mapping`);
    const id = (data as { id?: unknown }).id;
    return { file: rel, ...(typeof id === 'string' ? { id } : {}), data: data as Record<string, unknown> };
  });
}

/** A storyboard's kit: the one `prerequisites.test_kit` names, found or not; none when it names none. */
export type KitOf = { named?: undefined; kit?: undefined } | { named: string; kit?: TestKit };

const stem = (s: string) => basename(s).replace(/\.ya?ml$/, '');

export function testKitOf(bundle: StoryboardBundle, sb: Storyboard): KitOf {
  const named = (sb.raw.prerequisites as { test_kit?: unknown } | undefined)?.test_kit;
  if (typeof named !== 'string' || named.trim() === '') return {};
  const path = named.trim().replace(/^\.\//, '');
  const kit =
    bundle.testKits.find((k) => k.file === path || path.endsWith(`/${k.file}`)) ??
    bundle.testKits.find((k) => stem(k.file) === stem(path)) ??
    bundle.testKits.find((k) => k.id === path);
  return { named, ...(kit ? { kit } : {}) };
}

/** The value at `path` in the kit; throws UnresolvedSubstitution (a gap naming the kit and path) when there is none. */
export function kitValue(of: KitOf, path: string): unknown {
  const token = `$test_kit.${path}`;
  if (of.named === undefined) throw new UnresolvedSubstitution(token, 'the storyboard names no test kit (prerequisites.test_kit)', TEST_KIT_GAP);
  if (!of.kit) throw new UnresolvedSubstitution(token, `the test kit ${of.named} is not in the bundle`, TEST_KIT_GAP);
  let v: unknown;
  try {
    v = resolveStoryboardPath(of.kit.data, path);
  } catch {
    throw new UnresolvedSubstitution(token, 'malformed path');
  }
  if (v === undefined || v === null) throw new UnresolvedSubstitution(token, `the test kit ${of.kit.file} has no ${path}`, TEST_KIT_GAP);
  return v;
}

/**
 * The task a step calls: its `task`, or for `$test_kit.<path>` the kit's value, falling back on
 * `task_default` when the kit has none (the schema's rule for runner contracts, which carry no
 * operations). Throws UnresolvedSubstitution when neither gives a task name.
 */
export function taskOf(step: StoryboardStep, of: KitOf): string {
  const m = /^\$test_kit\.(.+)$/.exec(step.task);
  if (!m) return step.task;
  const fallback = typeof step.raw.task_default === 'string' && step.raw.task_default !== '' ? step.raw.task_default : undefined;
  try {
    const v = kitValue(of, m[1]);
    if (typeof v === 'string' && v !== '') return v;
    if (fallback) return fallback;
    throw new UnresolvedSubstitution(step.task, `the test kit's ${m[1]} is not a task name`, TEST_KIT_GAP);
  } catch (e) {
    if (fallback && e instanceof UnresolvedSubstitution) return fallback;
    throw e;
  }
}

/**
 * Why a phase is skipped by its `skip_if` (the one grammar the schema gives: `[!]test_kit.<path>`,
 * true when the kit's value is truthy), or undefined when it runs. Any other expression runs the
 * phase, as the reference runner does.
 */
export function phaseSkip(phase: StoryboardPhase, of: KitOf): string | undefined {
  const expr = typeof phase.raw.skip_if === 'string' ? phase.raw.skip_if.trim() : '';
  const m = /^(!?)test_kit\.([A-Za-z0-9_.]+)$/.exec(expr);
  if (!m) return undefined;
  let v: unknown;
  try {
    v = kitValue(of, m[2]);
  } catch {
    v = undefined;
  }
  const truthy = Boolean(v);
  if (m[1] === '!' ? truthy : !truthy) return undefined;
  const kit = of.kit?.file ?? of.named ?? 'no test kit';
  return `phase ${phase.id} is skipped (skip_if: ${expr}): ${truthy ? `the test kit ${kit} has` : `${kit} has no`} ${m[2]}`;
}
