/**
 * The plugin index: every suite the harness runs, one line each. A suite is a folder holding
 * `<id>.yaml`, a `plugin.ts` and, for code-only checks, `kinds/`; adding one means adding its
 * folder and its line here. Order here is the order suites run in (within their `order` class).
 */
import { loadSuites, type SuiteCatalog } from '../harness/engine/loader.js';
import type { SuitePlugin } from '../harness/engine/plugin.js';
import capabilities from './capabilities/plugin.js';
import errors from './errors/plugin.js';
import idempotency from './idempotency/plugin.js';
import schemas from './schemas/plugin.js';
import setup from './setup/plugin.js';
import signatures from './signatures/plugin.js';
import stateMachine from './state-machine/plugin.js';
import webhookReceiver from './webhook-receiver/plugin.js';
import webhooks from './webhooks/plugin.js';

export const SUITE_PLUGINS: readonly SuitePlugin[] = [setup, capabilities, errors, stateMachine, idempotency, schemas, signatures, webhookReceiver, webhooks];

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
