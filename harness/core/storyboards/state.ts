/**
 * What the steps of one storyboard share on one transport during a run: the values captured by
 * `context_outputs` (with the check that captured each), the responses of earlier steps, the
 * UUIDs generated per alias, and each step's outcome for its advisory check. Kept in the run's
 * resources, so it lives exactly as long as the run.
 */
import type { CheckContext } from '../engine/kinds/types.js';
import type { StepOutcome } from './validations.js';
import type { ChainBreak } from './stateful-chain.js';
import type { StoryboardSelection } from './select.js';
import type { Capture } from '../webhooks/emission/receiver.js';

export interface StoryboardState {
  context: Map<string, unknown>;
  /** The check that captured each context value, or that was to capture it and did not pass. */
  capturedBy: Map<string, string>;
  priorSteps: Map<string, unknown>;
  generated: Map<string, string>;
  outcomes: Map<string, StepOutcome>;
  /** Branch-set flags contributed by passing steps (branch-sets.ts). */
  contributions: Set<string>;
  /** Flags whose contributing step was a gap or blocked: flag → why (branch-sets.ts). */
  unverifiedContributions: Map<string, string>;
  /** The first stateful step that did not hold, when one did not (stateful-chain.ts). */
  chain?: ChainBreak;
  /** Steps that passed, and why each step that was not judged was not (a gap): for `contributes_if`. */
  passed: Set<string>;
  notJudged: Map<string, string>;
  /** The request each step sent (after substitution), by step id. */
  sent: Map<string, Record<string, unknown>>;
  /** When each step's request started (ISO), by step id: `upstream_traffic` windows. */
  requestStarts: Map<string, string>;
  /** The receiver capture behind each `{{runner.webhook_url:<step>}}`, by that step id (runner-webhooks.ts). */
  hooks: Map<string, Capture>;
  /** The `{{runner.webhook_url:<step>}}` step ids each step's request used. */
  hookUrlsOf: Map<string, string[]>;
}

export function storyboardState(ctx: CheckContext, storyboardId: string): Promise<StoryboardState> {
  return ctx.resources.get(`storyboard-state:${ctx.kind}:${storyboardId}`, async () => ({
    value: {
      context: new Map(),
      capturedBy: new Map(),
      priorSteps: new Map(),
      generated: new Map(),
      outcomes: new Map(),
      contributions: new Set(),
      unverifiedContributions: new Map(),
      passed: new Set(),
      notJudged: new Map(),
      sent: new Map(),
      requestStarts: new Map(),
      hooks: new Map(),
      hookUrlsOf: new Map(),
    },
    close: async () => undefined,
  }));
}

/** The selection of the bundle for this transport's agent, made once per run and transport. */
export function selectionOn(ctx: CheckContext, select: () => StoryboardSelection[]): Promise<Map<string, StoryboardSelection>> {
  return ctx.resources.get(`storyboard-selection:${ctx.kind}`, async () => ({
    value: new Map(select().map((s) => [s.storyboard.id, s])),
    close: async () => undefined,
  }));
}
