/** The shape every validation kind is judged in (validations.ts and the kinds beside it). */
import type { SchemaIdentity, ValidationRecord } from '../engine/storyboard-step.js';
import type { StoryboardValidation } from './model.js';
import type { GraphWalk } from './oauth-graph-walk.js';
import type { V1Registry } from './v1-registry.js';

/** What one step got back. */
export interface StepOutcome {
  /** The task answered without an error. */
  ok: boolean;
  /** The response (a success's payload or the error's details). */
  payload: unknown;
  /** The error code, when the answer was an error. */
  errorCode?: string;
  /** The HTTP status of the exchange, when there was one. */
  httpStatus?: number;
  /** The response headers of that exchange (lower-case names), for `on_401_require_header`. */
  headers?: Readonly<Record<string, string>>;
  /** How the reply came (`a2a_submitted_artifact`): the transport, the A2A task's ids and state, where the payload was read. */
  reply?: { transport: string; taskId?: string; contextId?: string; status?: string; payloadSource?: string; sentContextId?: string };
}

/** A response judged against a schema, or why no schema could judge it. */
export type SchemaJudgement =
  | { valid: boolean; errors: ReadonlyArray<{ pointer: string; message: string; keyword: string; schemaPath: string }>; schema: SchemaIdentity; note?: string }
  | { problem: string };

export interface ValidationEnv {
  /** Values captured by earlier steps (for the `*_context*` kinds). */
  context: ReadonlyMap<string, unknown>;
  /** `response_schema`: the step's response against its schema; undefined when there is no schema to judge with. */
  responseSchema?(outcome: StepOutcome): SchemaJudgement | undefined;
  /** The responses of the storyboard's earlier steps, by step id, in order (`refs_resolve` from context). */
  priorSteps?: ReadonlyMap<string, unknown>;
  /** The URL the run calls the agent at (`refs_resolve` scope `$agent_url`). */
  agentUrl?: string;
  /** The test controller's record of the agent's upstream calls (`upstream_traffic`, upstream-traffic.ts). */
  upstream?: UpstreamQueries;
  /** A parallel dispatch's resolved responses (`cross_response_*`); absent on a single call. */
  crossResponses?: readonly unknown[];
  /** The OAuth metadata graph the runner followed (`oauth_metadata_graph`, oauth-graph-walk.ts); absent on any other step. */
  oauthGraph?: GraphWalk;
  /** The request this step sent (`canonical_format_satisfaction`). */
  sent?: unknown;
  /** The released set's v1 → canonical registry (`canonical_format_satisfaction`, v1-registry.ts); absent when the run has none. */
  v1Registry?: V1Registry;
  /** The rate-limit trip's RATE_LIMITED answer and its replay (`replay_not_cached_rate_limit`, rate-limit-trip.ts); absent on any other step. */
  rateLimitTrip?: { trip: StepOutcome; replay: StepOutcome };
}

export type Judge = (v: StoryboardValidation, o: StepOutcome, env: ValidationEnv) => Omit<ValidationRecord, 'check' | 'severity' | 'description'>;

export const pass = { outcome: 'passed' } as const;
export const na = (message: string) => ({ outcome: 'not_applicable' as const, message });
export const fail = (message: string, expected: unknown, actual: unknown, pointer?: string) => ({
  outcome: 'failed' as const,
  message,
  expected,
  actual,
  ...(pointer !== undefined ? { pointer } : {}),
});

/** The controller's answers, by the since timestamp each query used. */
export interface UpstreamQueries {
  advertised: boolean;
  /** The since timestamp of this step, and of each earlier step by id. */
  thisStepSince: string;
  sinceOf: ReadonlyMap<string, string>;
  answers: ReadonlyMap<string, { calls: unknown[] } | { error: string }>;
  /** The request the step sent (identifier_paths read it). */
  sent: unknown;
}
