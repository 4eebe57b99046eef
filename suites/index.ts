/**
 * The plugin index: every suite the harness runs, one line each. A suite is a folder holding
 * `<id>.yaml`, a `plugin.ts` (default export: its SuitePlugin) and, for code-only checks,
 * `kinds/`; adding one means adding its folder and its line below.
 */
import { loadSuites, type SuiteCatalog } from '../harness/core/engine/loader.js';
import type { SuitePlugin } from '../harness/core/engine/plugin.js';
/** One line per suite, in run order (within each suite's `order` class). */
export const SUITE_PLUGINS: readonly SuitePlugin[] = (
  await Promise.all([
    import('./setup/plugin.js'),
    import('./capabilities/plugin.js'),
    import('./errors/plugin.js'),
    import('./state-machine/plugin.js'),
    import('./idempotency/plugin.js'),
    import('./schemas/plugin.js'),
    import('./signatures/plugin.js'),
    import('./webhook-receiver/plugin.js'),
    import('./webhooks/plugin.js'),
    import('./controller/plugin.js'),
    import('./caller/plugin.js'),
    import('./products/plugin.js'),
    import('./records/plugin.js'),
    import('./reporting/plugin.js'),
    import('./creative/plugin.js'),
    import('./signals/plugin.js'),
    import('./governance/plugin.js'),
    import('./brand/plugin.js'),
    import('./registry/plugin.js'),
    import('./registry-compliance/plugin.js'),
    import('./discovery/plugin.js'),
  ])
).map((m) => m.default);

let builtin: SuiteCatalog | undefined;

/** The suites of SUITE_PLUGINS and their kind registry, loaded once per process. */
export function builtinSuites(): SuiteCatalog {
  builtin ??= loadSuites(SUITE_PLUGINS);
  return builtin;
}

/** Every check id of the built-in suites. */
export function builtinCheckIds(): Set<string> {
  return new Set(builtinSuites().suites.flatMap((s) => s.checks.map((c) => c.id)));
}

/** The traceability maps (suites/traceability/: the spec's rules and the checks that test them). */
export { traceMaps } from './traceability/index.js';
