/**
 * Suite definitions. A suite is data (a YAML file in suites/); a check is a list of steps;
 * each step and each expectation names a kind that the engine's small registry interprets.
 * An unknown kind or an unknown field is a load error, never a silent pass.
 */
import type { Interpretation, Level, SpecRef } from './result.js';
import type { TransportKind } from '../transport/types.js';
import type { AgentKind } from '../protocol/agent-kinds.js';
import type { ProtocolLine } from '../protocol/lines.js';
import type { LifecycleStage } from './lifecycle.js';
import type { StoryboardStepRef } from './storyboard-step.js';

/** Condition on the agent profile (its declared capabilities and listed tasks). */
export type Condition =
  /** `capability` is a JSON pointer (or a list tried in order) into the capability declaration;
   *  `{token}` in it is replaced by the protocol token. */
  | { capability: string | string[]; equals?: unknown; present?: boolean; in?: unknown[]; contains?: unknown }
  | { task_declared: string }
  /** The agent claims this kind (harness/core/protocol/agent-kinds.ts: `supported_protocols` or a defining task). */
  | { agent_kind: AgentKind }
  /** `agent_card` is a JSON pointer into the A2A agent card (none over MCP: the condition is then false). */
  | { agent_card: string; equals?: unknown; present?: boolean }
  /** Facts about the run itself, e.g. `auth_token`: the user gave a bearer token. */
  | { run: 'auth_token' }
  /** The agent's lifecycle stage is one of these (given by the user, or shown by its declaration: lifecycle.ts). */
  | { lifecycle_stage: LifecycleStage[] }
  /** The agent's sandbox test controller offers this scenario: declared in `compliance_testing.scenarios`
   *  or listed by its `list_scenarios` answer (profile.ts). The 3.0 capability schema closes the
   *  declared list to six names, so a 3.0 seller can offer the others only through list_scenarios. */
  | { controller_scenario: string }
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };

export interface StepDef {
  kind: string;
  /** Name under which the step's result is saved for later templates (`{{steps.<id>...}}`). */
  id?: string;
  /** `setup`: a failed expectation means the check could not be verified (blocked by the step's `prerequisite`).
   *  `probe` (default): a failed expectation fails the check. */
  role?: 'setup' | 'probe';
  /** The check (in a suite that runs earlier) that tests the call this step needs. When that check
   *  did not pass on the same transport, this check is not run (blocked by it, or a gap when it was
   *  one); when this step fails or cannot be carried out, the check is blocked by it. */
  prerequisite?: string;
  /** The protocol lines the step belongs to (harness/core/protocol/lines.ts); under another target it is skipped. */
  lines?: ProtocolLine[];
  /** Kind-specific fields, validated by the kind's own schema. */
  [field: string]: unknown;
}

export interface ExpectationDef {
  kind: string;
  /** The protocol lines the expectation belongs to; under another target it is not judged. */
  lines?: ProtocolLine[];
  /**
   * The check whose rule this expectation is about, when it is not the check's own (a read-back
   * must succeed before it can show anything): when it fails, the check is blocked by that check
   * instead of failing on evidence about another rule.
   */
  owner?: string;
  [field: string]: unknown;
}

export interface CheckDef {
  /** Stable dotted id: `<suite>.<area>.<rule>`; never a position number. */
  id: string;
  title: string;
  level: Level;
  spec: SpecRef;
  /** What the check verifies and why, for people reading the report. */
  description?: string;
  /** The protocol lines the check's rule belongs to (absent: every line); under another target the check is not applicable. */
  lines?: ProtocolLine[];
  /** Where the spec leaves room for more than one reading: the sentence the check rests on and the reading it applies (shown in every report). */
  interpretation?: Interpretation;
  /**
   * Checks whose failure on the same transport is most likely this check's failure too: the same
   * defect seen through another rule. When one of them failed, this check's failure names that
   * one's root cause (`root_cause`) and reports group them as one defect.
   */
  rests_on?: string[];
  applies_when?: Condition;
  /** Why the check is not applicable when `applies_when` is false (shown in the report). */
  not_applicable_reason?: string;
  /** A prerequisite the agent must offer for the check to be testable (e.g. the test
   *  controller). When false the check is a coverage gap with `requires_reason`. */
  requires?: Condition;
  requires_reason?: string;
  /** The optional feature `requires` asks for, in a few words (`test controller`); groups gaps in reports. */
  requires_feature?: string;
  /** Restrict to some transports (others report not_applicable). */
  transports?: TransportKind[];
  /** Run alone (not concurrently with other checks of the same suite and transport). */
  serial?: boolean;
  /** The storyboard step the check was compiled from (`run --storyboards`): recorded on its result, which then keeps its evidence on a pass too. */
  storyboard_step?: StoryboardStepRef;
  steps: StepDef[];
}

export interface SuiteDef {
  id: string;
  /** The compliance track the suite counts toward in the registry's terms (a storyboard's `track`); default its id. */
  track?: string;
  /** The storyboard the suite was compiled from (`run --storyboards`), by its own id. */
  storyboard_id?: string;
  /** YAML anchors for steps shared by several checks; not interpreted by the engine. */
  fragments?: unknown;
  title: string;
  description?: string;
  /** `first` runs before other suites (capabilities); `last` after them (schemas, which grades every observed reply). */
  order?: 'first' | 'normal' | 'last';
  /**
   * What the suite certifies: the agent (default; it runs on the mcp and a2a columns) or the
   * registry face (the registry's REST API and the discovery files; it runs on the rest column).
   */
  face?: 'agent' | 'registry';
  checks: CheckDef[];
}

/** Does `suite` run on the column of transport `kind`? The agent suites on mcp/a2a, the registry face on rest. */
export function suiteRunsOn(suite: Pick<SuiteDef, 'face'>, kind: TransportKind): boolean {
  return (suite.face === 'registry') === (kind === 'rest');
}
