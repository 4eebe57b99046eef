/**
 * What a check compiled from a storyboard step carries on its result (`CheckResult.storyboard_step`),
 * on every outcome, passes included: where the step is authored (set by the compiler,
 * harness/core/storyboards/compile.ts) and what the step kind found when it ran (the reply it
 * judged, each validation as judged, why the step did not run). The runner output contract
 * (reports/runner-output.ts) is rendered from it without judging anything again.
 */
import type { PayloadSource, TaskReply } from '../transport/types.js';

/** Skip reasons of the runner output contract (digest 6.1, `skip_result.reason`). */
export const RUNNER_SKIP_REASONS = [
  'not_applicable',
  'no_phases',
  'prerequisite_failed',
  'missing_tool',
  'missing_test_controller',
  'unsatisfied_contract',
  'peer_branch_taken',
  'peer_substituted',
] as const;
export type RunnerSkipReason = (typeof RUNNER_SKIP_REASONS)[number];

/** One validation as the step judged it: an authored one, or the runner's own (`expect_error`, `transport`, ...). */
export interface ValidationRecord {
  check: string;
  outcome: 'passed' | 'failed' | 'not_applicable';
  severity: 'required' | 'advisory';
  /** The storyboard's own words for it. */
  description?: string;
  /** Why it failed, or why it could not be judged. */
  message?: string;
  expected?: unknown;
  actual?: unknown;
  /** RFC 6901 pointer to the failing field of the response. */
  pointer?: string;
  /** `response_schema`: the schema applied. */
  schema?: SchemaIdentity;
}

/** The schema a `response_schema` validation applied, and whose it is. */
export interface SchemaIdentity {
  /** `released`: the run's released set (storyboards/response-schema.ts); `harness`: the harness's own (fixtures/schemas). */
  set: 'released' | 'harness';
  /** Its `$id`. */
  id: string;
  /** Its file: a path in the released set, or a file of fixtures/schemas. */
  file: string;
  /** The protocol line it is of, and the released set's version. */
  line: string;
  version?: string;
}

/** Where the step is authored. */
export interface StoryboardStepRef {
  storyboard_id: string;
  phase_id: string;
  step_id: string;
  task: string;
  /** The check of the step's advisory validations (`….advisory`). */
  advisory?: true;
  /** The storyboard's controller seeding (`prerequisites.controller_seeding`), not an authored step. */
  seeding?: true;
  /** The branch set of the step's optional phase. */
  branch_set?: string;
  /** The flag the step contributes when it passes (`contributes_to`, or its phase's branch set). */
  contributes?: string;
}

/** Why the step was not run, in the contract's terms; `whole_storyboard`: every step of the storyboard takes it. */
export interface StoryboardSkip {
  reason: RunnerSkipReason;
  detail: string;
  whole_storyboard?: true;
  /** The run's selection excluded the step before it ran (its line, its transport): the runner output's steps_not_selected. */
  not_selected?: true;
}

/** What the step kind found when it ran. */
export interface StoryboardStepFindings {
  /** The reply the step judged (the last one, for the seeding); absent when it called nothing. */
  reply?: { payload_source: PayloadSource; is_error: boolean; failure?: string };
  /** Each validation judged, in authored order; absent when the step judged none. */
  validations?: ValidationRecord[];
  skip?: StoryboardSkip;
  /** The task the step called when it is not the step's own (a rate-limit trip's target): its last call is the step's request and response. */
  called?: string;
}

export type StoryboardStepInfo = StoryboardStepRef & StoryboardStepFindings;

/** The reply a step judged, for the record. */
export function replyRecord(reply: TaskReply): NonNullable<StoryboardStepFindings['reply']> {
  return {
    payload_source: reply.payloadSource,
    is_error: reply.isError,
    ...(reply.failure ? { failure: `${reply.failure.kind}: ${reply.failure.message}` } : {}),
  };
}
