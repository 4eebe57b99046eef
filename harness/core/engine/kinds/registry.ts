/**
 * The registry of what suite plugins contribute, built once per set of plugins: the engine's
 * generic kinds plus every kind a plugin registers, the facts plugins publish (with the check
 * that publishes each) and their template functions. Suites may only use kinds, facts and
 * functions registered here, kinds with exactly the fields they declare; `loader.ts` enforces
 * it when a suite is loaded, and the runner looks them up here. Two contributions of the same
 * name are an error, never a silent override.
 */
import type { ExpectationKind, StepKind } from './types.js';
import type { SuitePlugin, TemplateFunction } from '../plugin.js';
import { BUILTIN_FUNCTIONS } from '../template.js';
import { GENERIC_STEP_KINDS } from './steps/index.js';
import { GENERIC_EXPECTATION_KINDS } from './expect/index.js';

export class KindRegistry {
  private readonly steps = new Map<string, StepKind>();
  private readonly expectations = new Map<string, ExpectationKind>();
  private readonly facts = new Map<string, { name: string; publisher: string }>();
  private readonly functions = new Map<string, { name: string; fn: TemplateFunction }>();
  /** Who registered each contribution (`step:<name>`, `fact:<name>`…), for the duplicate error. */
  private readonly owners = new Map<string, string>();

  constructor(plugins: readonly SuitePlugin[] = []) {
    for (const k of GENERIC_STEP_KINDS) this.add(this.steps, k, 'the engine', 'step');
    for (const k of GENERIC_EXPECTATION_KINDS) this.add(this.expectations, k, 'the engine', 'expectation');
    for (const p of plugins) {
      for (const k of p.stepKinds ?? []) this.add(this.steps, k, `suite ${p.id}`, 'step');
      for (const k of p.expectationKinds ?? []) this.add(this.expectations, k, `suite ${p.id}`, 'expectation');
      for (const [name, publisher] of Object.entries(p.facts ?? {})) {
        if (!publisher.startsWith(`${p.id}.`)) throw new Error(`fact "${name}" of suite ${p.id}: its publisher ${publisher} is not a check of that suite`);
        this.add(this.facts, { name, publisher }, `suite ${p.id}`, 'fact');
      }
      for (const [name, fn] of Object.entries(p.templateFunctions ?? {})) {
        if (BUILTIN_FUNCTIONS.has(name)) throw new Error(`template function "${name}" of suite ${p.id} is a built-in`);
        for (const need of fn.needs ?? [])
          if (!this.facts.has(need)) throw new Error(`template function "${name}" of suite ${p.id} needs unknown fact "${need}"`);
        this.add(this.functions, { name, fn }, `suite ${p.id}`, 'template function');
      }
    }
    for (const k of this.steps.values()) {
      for (const f of k.reads ?? []) if (!this.facts.has(f)) throw new Error(`step kind "${k.name}" reads unknown fact "${f}"`);
    }
  }

  /** The check that publishes a fact. */
  factPublisher(name: string): string | undefined {
    return this.facts.get(name)?.publisher;
  }

  templateFunction(name: string): TemplateFunction | undefined {
    return this.functions.get(name)?.fn;
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
