/**
 * Which suites a run executes: all, the ones named, or ones already loaded. Named suites bring
 * along the checks that publish the facts they read (setup checks: the account, the product).
 */
import { factPublishersOf, type SuiteCatalog } from '../core/engine/loader.js';
import type { SuiteDef } from '../core/engine/model.js';
import { builtinSuites } from '../../suites/index.js';

export class UnknownSuiteError extends Error {}

/** Suite ids (default all) or already loaded suites. */
export type SuiteSelection = string[] | SuiteDef[] | undefined;

/** The selected suites of `catalog` (default the built-in ones), with the fact publishers they need, recursively. */
export function pickSuites(selection: SuiteSelection, catalog: SuiteCatalog = builtinSuites()): SuiteDef[] {
  const all = catalog.suites;
  if (!selection) return all;
  if (selection.length > 0 && typeof selection[0] !== 'string') return selection as SuiteDef[];
  const ids = selection as string[];
  const known = new Set(all.map((s) => s.id));
  const unknown = ids.filter((s) => !known.has(s));
  if (unknown.length) {
    throw new UnknownSuiteError(`unknown suite ${unknown.map((s) => JSON.stringify(s)).join(', ')} (suites: ${[...known].join(', ')})`);
  }
  // Of the suites not named, only the checks publishing facts the named ones read (recursively).
  const byId = new Map(all.flatMap((s) => s.checks.map((c) => [c.id, c] as const)));
  const needed = new Set<string>();
  const need = (id: string) => {
    if (needed.has(id)) return;
    needed.add(id);
    for (const p of factPublishersOf(byId.get(id)!, catalog.kinds)) need(p);
  };
  for (const s of all) if (ids.includes(s.id)) for (const c of s.checks) for (const p of factPublishersOf(c, catalog.kinds)) need(p);
  return all.map((s) => (ids.includes(s.id) ? s : { ...s, checks: s.checks.filter((c) => needed.has(c.id)) })).filter((s) => s.checks.length > 0);
}

/** The suites given as loaded definitions (a caller that selected them itself), or undefined for ids. */
export function loadedSuites(selection: SuiteSelection): SuiteDef[] | undefined {
  return selection !== undefined && selection.length > 0 && typeof selection[0] !== 'string' ? (selection as SuiteDef[]) : undefined;
}
