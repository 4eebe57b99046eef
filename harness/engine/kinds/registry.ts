/**
 * The registry of check kinds. Suites may only use kinds registered here, with exactly the
 * fields each kind declares; `loader.ts` enforces both when a suite is loaded.
 */
import type { ExpectationKind, StepKind } from './types.js';
import { STEP_KINDS } from './steps/index.js';
import { EXPECTATION_KINDS } from './expect/index.js';

const steps = new Map<string, StepKind>(STEP_KINDS.map((k) => [k.name, k]));
const expectations = new Map<string, ExpectationKind>(EXPECTATION_KINDS.map((k) => [k.name, k]));

export function stepKind(name: string): StepKind | undefined {
  return steps.get(name);
}

export function expectationKind(name: string): ExpectationKind | undefined {
  return expectations.get(name);
}

export function stepKindNames(): string[] {
  return [...steps.keys()].sort();
}

export function expectationKindNames(): string[] {
  return [...expectations.keys()].sort();
}

/** Register an extra kind (code-only checks of later suites: signature probing, webhooks). */
export function registerStepKind(kind: StepKind): void {
  if (steps.has(kind.name)) throw new Error(`step kind "${kind.name}" is already registered`);
  steps.set(kind.name, kind);
}

export function registerExpectationKind(kind: ExpectationKind): void {
  if (expectations.has(kind.name)) throw new Error(`expectation kind "${kind.name}" is already registered`);
  expectations.set(kind.name, kind);
}
