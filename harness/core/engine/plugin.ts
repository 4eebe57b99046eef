/**
 * The contract between the engine and a suite. A suite is a folder under suites/ holding its
 * YAML file and, when it needs code-only checks, its own step and expectation kinds; its
 * `plugin.ts` describes it with a SuitePlugin, and suites/index.ts lists every plugin. The
 * engine knows only the generic kinds (engine/kinds/steps, engine/kinds/expect) and whatever the
 * plugins it is given register; it never imports a suite.
 */
import type { ExpectationKind, StepKind } from './kinds/types.js';
import type { TemplateScope } from './template.js';

/** `{{<name>:<arg>}}` in suite data. */
export interface TemplateFunction {
  /** Facts the function reads: a check using it needs their publishers (blocked when they did not pass). */
  needs?: readonly string[];
  /** The value; throw TemplateError (MissingFactError, TemplateGapError) when there is none. */
  resolve(arg: string, scope: TemplateScope): unknown;
}

export interface SuitePlugin {
  /** The suite id; its YAML file is `<id>.yaml` and declares the same id. */
  id: string;
  /** The suite's YAML file. */
  file: URL;
  /** Code-only step kinds the suite's checks use (names unique across every plugin). */
  stepKinds?: readonly StepKind[];
  /** Code-only expectation kinds the suite's checks use. */
  expectationKinds?: readonly ExpectationKind[];
  /**
   * Facts this suite's checks publish for later checks on the same transport (`ctx.facts.publish`),
   * each with the check that publishes it. A check whose templates read a fact (`{{facts.<name>}}`,
   * or a template function that needs it) runs after that check and is blocked when it did not pass.
   */
  facts?: Readonly<Record<string, string>>;
  /** Template functions (`{{<name>:<arg>}}`) any suite may use. */
  templateFunctions?: Readonly<Record<string, TemplateFunction>>;
}

/** A suite whose checks use only generic kinds and whatever `kinds` lists: `<dir>/<id>.yaml`. */
export function suitePlugin(dirUrl: string, id: string, kinds: Omit<SuitePlugin, 'id' | 'file'> = {}): SuitePlugin {
  return { id, file: new URL(`./${id}.yaml`, dirUrl), ...kinds };
}
