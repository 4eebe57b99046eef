/**
 * The registry of check kinds, built once per set of suite plugins: the engine's generic kinds
 * plus every kind a plugin registers. Suites may only use kinds registered here, with exactly
 * the fields each kind declares; `loader.ts` enforces both when a suite is loaded, and the
 * runner looks kinds up here. Two kinds of the same name are an error, never a silent override.
 */
import type { ExpectationKind, StepKind } from './types.js';
import type { SuitePlugin } from '../plugin.js';
import { GENERIC_STEP_KINDS } from './steps/index.js';
import { GENERIC_EXPECTATION_KINDS } from './expect/index.js';

export class KindRegistry {
  private readonly steps = new Map<string, StepKind>();
  private readonly expectations = new Map<string, ExpectationKind>();
  /** Who registered each kind (`step:<name>` / `expectation:<name>`), for the duplicate error. */
  private readonly owners = new Map<string, string>();

  constructor(plugins: readonly SuitePlugin[] = []) {
    for (const k of GENERIC_STEP_KINDS) this.add(this.steps, k, 'the engine', 'step');
    for (const k of GENERIC_EXPECTATION_KINDS) this.add(this.expectations, k, 'the engine', 'expectation');
    for (const p of plugins) {
      for (const k of p.stepKinds ?? []) this.add(this.steps, k, `suite ${p.id}`, 'step');
      for (const k of p.expectationKinds ?? []) this.add(this.expectations, k, `suite ${p.id}`, 'expectation');
    }
  }

  private add<K extends { name: string }>(map: Map<string, K>, kind: K, owner: string, what: string): void {
    const key = `${what}:${kind.name}`;
    if (map.has(kind.name)) throw new Error(`${what} kind "${kind.name}" of ${owner} is already registered by ${this.owners.get(key)}`);
    map.set(kind.name, kind);
    this.owners.set(key, owner);
  }

  stepKind(name: string): StepKind | undefined {
    return this.steps.get(name);
  }

  expectationKind(name: string): ExpectationKind | undefined {
    return this.expectations.get(name);
  }

  stepKindNames(): string[] {
    return [...this.steps.keys()].sort();
  }

  expectationKindNames(): string[] {
    return [...this.expectations.keys()].sort();
  }
}
