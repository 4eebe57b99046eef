/**
 * The test controller's record of the agent's upstream calls for a step's `upstream_traffic`
 * validations (upstream-traffic.ts): one `query_upstream_traffic` per window (the step's own
 * start, and the start of each earlier step a validation's `since` names), 250 ms early for clock
 * skew, at most 100 calls each, under the step's own account marked sandbox (the controller is
 * sandbox-only). Not asked when the controller does not offer the scenario.
 */
import type { CheckContext } from '../engine/kinds/types.js';
import { offersScenario } from '../engine/conditions.js';
import { CONTROLLER_TASK } from '../protocol/tasks.js';
import type { UpstreamQueries } from './judge.js';
import type { StoryboardStep } from './model.js';
import type { StoryboardState } from './state.js';
import { QUERY_LIMIT, SKEW_MS } from './upstream-traffic.js';

export async function upstreamQueries(
  ctx: CheckContext,
  step: StoryboardStep,
  state: Pick<StoryboardState, 'requestStarts'>,
  thisStepSince: string,
  sent: unknown,
): Promise<UpstreamQueries> {
  const sinceOf = new Map([...state.requestStarts].filter(([id]) => id !== step.id));
  const advertised = offersScenario(ctx.profile, 'query_upstream_traffic', ctx.ids);
  const answers = new Map<string, { calls: unknown[] } | { error: string }>();
  if (!advertised) return { advertised, thisStepSince, sinceOf, answers, sent };
  const windows = new Set([thisStepSince]);
  for (const v of step.validations)
    if (v.check === 'upstream_traffic' && typeof v.raw.since === 'string' && sinceOf.has(v.raw.since)) windows.add(sinceOf.get(v.raw.since) as string);
  for (const since of windows) {
    const params = { since_timestamp: new Date(Date.parse(since) - SKEW_MS).toISOString(), limit: QUERY_LIMIT };
    const reply = await ctx.call(CONTROLLER_TASK, { scenario: 'query_upstream_traffic', params, ...accountOf(sent) });
    const payload = (reply.isError && reply.errorEnvelope ? reply.errorEnvelope : reply.payload) as
      | { success?: unknown; recorded_calls?: unknown; error?: unknown; error_detail?: unknown }
      | undefined;
    if (reply.failure) answers.set(since, { error: `${reply.failure.kind}: ${reply.failure.message}` });
    else if (payload?.success === true && (payload.recorded_calls === undefined || Array.isArray(payload.recorded_calls)))
      answers.set(since, { calls: ((payload.recorded_calls as unknown[] | undefined) ?? []).slice(0, QUERY_LIMIT) });
    else
      answers.set(since, {
        error: [payload?.error, payload?.error_detail].filter((x) => typeof x === 'string').join(': ') || reply.error?.code || 'a non-success answer',
      });
  }
  ctx.notes.push(`query_upstream_traffic asked for ${windows.size} window(s) since ${[...windows].join(', ')}`);
  return { advertised, thisStepSince, sinceOf, answers, sent };
}

/** The controller is sandbox-only (digest 4.6): the step's own account, marked sandbox, when it sent one. */
function accountOf(sent: unknown): { account?: Record<string, unknown> } {
  const account = sent && typeof sent === 'object' ? (sent as { account?: unknown }).account : undefined;
  return account && typeof account === 'object' && !Array.isArray(account) ? { account: { ...(account as Record<string, unknown>), sandbox: true } } : {};
}
