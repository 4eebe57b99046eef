/** The interpretation notes of the built-in suites' checks, by check id (for the fuzzer's properties that judge the same rules). */
import type { SuiteCatalog } from '../core/engine/loader.js';
import type { Interpretation } from '../core/engine/result.js';
import { builtinSuites } from '../../suites/index.js';

export function interpretationLookup(catalog: SuiteCatalog = builtinSuites()): (checkId: string) => Interpretation | undefined {
  const byId = new Map(catalog.suites.flatMap((s) => s.checks.flatMap((c) => (c.interpretation ? [[c.id, c.interpretation] as const] : []))));
  return (id) => byId.get(id);
}
