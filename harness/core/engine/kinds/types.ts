/**
 * The contract between the engine and its check kinds. A step kind performs one action against
 * the agent (a task call, a burst of concurrent calls, a task listing...); an expectation kind
 * judges what came back. Both declare the fields they accept as a JSON Schema, so a suite with a
 * misspelt field fails to load instead of silently passing.
 */
import type { ProtocolIds } from '../../token.js';
import type { CallOptions, TaskListReply, TaskReply, Transport, TransportKind, WireExchange } from '../../transport/types.js';
import type { AgentProfile } from '../profile.js';
import type { ScopedRandom } from '../rng.js';
import type { ExpectationDef, StepDef } from '../model.js';
import type { ObservedReplies } from '../observed.js';
import type { RunFacts, RunResources } from '../resources.js';
import type { ProtocolLine } from '../../protocol/lines.js';
import type { StoryboardStepFindings } from '../storyboard-step.js';

/** What a step leaves behind for later templates: `{{steps.<id>.payload.media_buy_id}}`. */
export interface StepRecord {
  task?: string;
  ok?: boolean;
  status?: string;
  payload?: unknown;
  is_error?: boolean;
  error?: { code: string; message: string; raw?: unknown };
  task_id?: string;
  http_status?: number;
  /** Concurrent calls: one record per reply. */
  replies?: StepRecord[];
  /** Task listings. */
  names?: string[];
}

export interface Judgement {
  ok: boolean;
  message?: string;
  expected?: unknown;
  actual?: unknown;
  pointer?: string;
  /** The failed expectation's `owner`: the check whose rule it judges (model.ts ExpectationDef). */
  owner?: string;
}

export type StepVerdict =
  | { status: 'ok' }
  /** An expectation of the step failed: a probe step fails the check; a setup step blocks it
   *  (by the step's `prerequisite`, the check that tests the call the setup needed). */
  | { status: 'failed'; message: string; expected?: unknown; actual?: unknown; pointer?: string; owner?: string }
  /** The step could not be carried out: the check is blocked by `blocked_by` (or the step's
   *  `prerequisite`); with neither named, the harness could not run it (error). */
  | { status: 'unmet'; message: string; blocked_by?: string; expected?: unknown; actual?: unknown; pointer?: string }
  /** The agent (or the run's configuration) lacks an optional feature the step needs: a coverage gap. */
  | { status: 'gap'; message: string; gap: string }
  /** Nothing to judge (e.g. no reply of a task was ever observed and the agent lists no such task). */
  | { status: 'not_applicable'; message: string };

export interface SchemaVerdict {
  valid: boolean;
  errors: { pointer: string; message: string; keyword: string; schemaPath: string }[];
}

export interface SchemaChecker {
  validateTaskResponse(task: string, payload: unknown): SchemaVerdict;
  validate(schemaName: string, value: unknown): SchemaVerdict;
  hasTaskSchema(task: string): boolean;
  hasSchema(name: string): boolean;
  /** The harness's schema a task's reply is judged against (`<task>-response`, `capabilities`). */
  taskSchemaName?(task: string): string | undefined;
  /** The released JSON Schemas of one protocol line named for the run (`run --schemas`, or found beside a storyboard bundle). */
  released?: ReleasedSchemaSet;
}

/** A released JSON Schema set of one protocol line (harness/core/schemas/schema-set/), compiled lazily per schema file. */
export interface ReleasedSchemaSet {
  /** The set's directory. */
  readonly dir: string;
  /** Its release version (`3.0.6`) and protocol line (`3.0`). */
  readonly version: string;
  readonly line: ProtocolLine;
  /**
   * A task's reply against the set's response schema of the task: the file `ref` names (a path in
   * the set, a storyboard step's `response_schema_ref`) when the set holds it, else the task's own.
   * Undefined when the set has no response schema of the task. Throws when the schema, or a file it
   * refers to, cannot be read or compiled: the set's defect, named in the message.
   */
  validateTaskResponse(task: string, payload: unknown, ref?: string): ReleasedVerdict | undefined;
}

export interface ReleasedVerdict extends SchemaVerdict {
  /** The schema applied: its `$id` and its file, a path in the set (`media-buy/get-products-response.json`). */
  schema: { id: string; file: string };
  /** Why the file applied is not the `ref` asked for (the set does not hold it). */
  note?: string;
}

export interface CheckContext {
  checkId: string;
  transport: Transport;
  kind: TransportKind;
  ids: ProtocolIds;
  /** The protocol line judged against: steps and expectations of other lines are skipped; kinds may shape what they judge by it. */
  target: ProtocolLine;
  profile: AgentProfile;
  /** The profiles of the run's other transports (a rule comparing transports reads them; empty when one runs). */
  peers: readonly AgentProfile[];
  random: ScopedRandom;
  runStartedAt: Date;
  signal: AbortSignal;
  /**
   * Wait without calling the agent (a webhook wait, a quiet period, a poll pause): the check's
   * concurrency slot goes to a queued check meanwhile and is taken back when `wait` settles.
   */
  idle<T>(wait: () => Promise<T>): Promise<T>;
  steps: Record<string, StepRecord>;
  /** Every exchange of this check, in order (evidence). */
  exchanges: WireExchange[];
  notes: string[];
  observed: ObservedReplies;
  schemas: SchemaChecker;
  /** Run-scoped resources (receivers, key servers) shared by every check and closed at run end. */
  resources: RunResources;
  run: RunFacts;
  /** Facts of this transport: read what earlier checks published, publish for later ones (engine/plugin.ts). */
  facts: { get(name: string): unknown; publish(name: string, value: unknown): void };
  /** Expand `{{...}}` templates against this check's scope. */
  expand(value: unknown): unknown;
  /** Call a task through the transport; records exchanges and the observed reply. */
  call(task: string, args: Record<string, unknown>, options?: CallOptions): Promise<TaskReply>;
  listTasks(): Promise<TaskListReply>;
  /** Judge a subject with a list of expectation definitions (first failure wins). */
  judge(expectations: ExpectationDef[] | undefined, subject: Subject): Judgement;
  /**
   * Run steps in order, stopping at the first that does not end ok. Without `scope` they run in
   * this check's scope; with one, in that scope (its own step records and fresh values, e.g. a
   * flow shared by several checks), with this check's transport, evidence and notes.
   */
  runSteps(steps: readonly StepDef[], scope?: StepScope): Promise<StepRun>;
}

/** Where steps save their records and draw their fresh values. */
export interface StepScope {
  steps: Record<string, StepRecord>;
  random: ScopedRandom;
}

/** What a list of steps came to: ok, or the first step that was not ok (1-based), its role and its prerequisite. */
export interface StepRun {
  verdict: StepVerdict;
  failedStep?: number;
  failedRole?: 'setup' | 'probe';
  /** The failing step's `prerequisite` (the check that tests the call it needed). */
  failedPrerequisite?: string;
  /** What a storyboard step found (the last step that said), for the check's result. */
  storyboard?: StoryboardStepFindings;
}

/** What expectations look at. */
export interface Subject {
  reply?: TaskReply;
  record: StepRecord;
  replies?: TaskReply[];
  list?: TaskListReply;
}

export interface StepKind {
  name: string;
  /** JSON Schema `properties` of the kind's own fields (besides kind, id, role). */
  fields: Record<string, unknown>;
  required?: string[];
  /** Field names holding nested expectation lists (validated recursively at load). */
  expectationFields?: string[];
  /** Field names holding nested step lists (validated recursively at load), e.g. a shared flow. */
  stepFields?: string[];
  /** Facts the kind reads in code (engine/plugin.ts), so checks using it depend on their publishers like a template does. */
  reads?: readonly string[];
  /**
   * The step spends most of its time waiting without calling the agent (through ctx.idle): a
   * check with such a step is given a concurrency slot before the others, so its wait overlaps
   * their calls instead of ending the run after them (engine/run.ts).
   */
  waits?: boolean;
  /** `storyboard`: what a storyboard step found, kept on the check's result (storyboard-step.ts). */
  run(step: StepDef, ctx: CheckContext): Promise<{ verdict: StepVerdict; record?: StepRecord; storyboard?: StoryboardStepFindings }>;
}

export interface ExpectationKind {
  name: string;
  fields: Record<string, unknown>;
  required?: string[];
  expectationFields?: string[];
  evaluate(exp: ExpectationDef, subject: Subject, ctx: CheckContext): Judgement;
}

export function recordOf(reply: TaskReply): StepRecord {
  return {
    task: reply.task,
    ok: reply.ok,
    status: reply.status,
    payload: reply.payload,
    is_error: reply.isError,
    error: reply.error ? { code: reply.error.code, message: reply.error.message, raw: reply.error.raw } : undefined,
    task_id: reply.taskId,
    http_status: reply.httpStatus ?? reply.failure?.httpStatus,
  };
}

/** One line describing a reply, for failure messages. */
export function describeReply(reply: TaskReply): string {
  if (reply.failure) return `no task reply (${reply.failure.kind}: ${reply.failure.message})`;
  if (reply.isError) {
    return reply.error ? `error ${reply.error.code || '(no code)'}: ${reply.error.message}` : 'an error without a readable error object';
  }
  return `a ${reply.status} reply`;
}
