/**
 * The contract between the engine and a suite. A suite is a folder under suites/ holding its
 * YAML file and, when it needs code-only checks, its own step and expectation kinds; its
 * `plugin.ts` describes it with a SuitePlugin, and suites/index.ts lists every plugin. The
 * engine knows only the generic kinds (engine/kinds/steps, engine/kinds/expect) and whatever the
 * plugins it is given register; it never imports a suite.
 */
import type { ExpectationKind, StepKind } from './kinds/types.js';

export interface SuitePlugin {
  /** The suite id; its YAML file is `<id>.yaml` and declares the same id. */
  id: string;
  /** The suite's YAML file. */
  file: URL;
  /** Code-only step kinds the suite's checks use (names unique across every plugin). */
  stepKinds?: readonly StepKind[];
  /** Code-only expectation kinds the suite's checks use. */
  expectationKinds?: readonly ExpectationKind[];
}

/** A suite whose checks use only generic kinds and whatever `kinds` lists: `<dir>/<id>.yaml`. */
export function suitePlugin(dirUrl: string, id: string, kinds: Omit<SuitePlugin, 'id' | 'file'> = {}): SuitePlugin {
  return { id, file: new URL(`./${id}.yaml`, dirUrl), ...kinds };
}
