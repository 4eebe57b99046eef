/**
 * A `protected_resource_metadata` step carrying `oauth_metadata_graph` (3.2 oauth-setup): the
 * runner follows the agent's whole OAuth discovery graph (oauth-graph-walk.ts) with the
 * credential-free, SSRF-safe fetch (oauth-graph-fetch.ts), and the protected-resource metadata it
 * fetched is the reply the step's other validations judge (its URLs shown with secrets replaced).
 * Only for an agent whose capabilities say `oauth.supported: true` exactly: otherwise the step is
 * not applicable and nothing is fetched. A graph the run's address policy kept the harness from
 * following, without the agent being wrong, is a gap naming the host, never a pass or a failure.
 */
import type { CheckContext } from '../engine/kinds/types.js';
import { AddressPolicy } from '../net/address-policy.js';
import type { StepOutcome } from './judge.js';
import type { StoryboardStep } from './model.js';
import { isPublicHost, safeGraphFetch, type GraphFetch } from './oauth-graph-fetch.js';
import { shownUrl } from './oauth-graph-rules.js';
import { jsonObject, walkOAuthGraph } from './oauth-graph-walk.js';
import type { StoryboardState } from './state.js';
import { failureOf, requiredOf, skipped, type StepOutput } from './step-output.js';
import { judgeValidation } from './validations.js';

const GAP = 'an OAuth metadata host the run may fetch';

/** True for the step this file runs. */
export const followsGraph = (step: StoryboardStep, task: string) =>
  task === 'protected_resource_metadata' && step.validations.some((v) => v.check === 'oauth_metadata_graph');

/** The agent's `oauth.supported`, exactly true, or why not. */
export function oauthDeclared(capabilities: Record<string, unknown> | undefined): true | string {
  const block = capabilities?.oauth;
  const supported = block && typeof block === 'object' ? (block as { supported?: unknown }).supported : undefined;
  if (supported === true) return true;
  return `the agent's capabilities declare oauth.supported ${supported === undefined ? 'nowhere' : `as ${JSON.stringify(supported)?.slice(0, 40)}`}, not true`;
}

export async function graphStep(ctx: CheckContext, step: StoryboardStep, state: StoryboardState, fetch?: GraphFetch): Promise<StepOutput> {
  const declared = oauthDeclared(ctx.profile.capabilities);
  if (declared !== true)
    return skipped({ status: 'not_applicable', message: `${declared}: the OAuth metadata graph is not graded, nothing fetched` }, 'not_applicable');
  const agentUrl = ctx.transport.endpoint;
  const policy = ctx.run.addressPolicy ?? new AddressPolicy();
  const walk = await walkOAuthGraph({
    agentUrl,
    fetch: fetch ?? safeGraphFetch(agentUrl, policy),
    agentPublic: await isPublicHost(new URL(agentUrl).hostname, policy),
  });
  ctx.notes.push(`OAuth metadata graph followed without credentials: ${walk.observations.join('; ') || 'nothing fetched'}`);
  if (walk.prm.kind === 'refused' && walk.gaps.length > 0) {
    const message = `${walk.prmUrl} cannot be fetched under the run's address policy: ${walk.gaps.join('; ')}`;
    return skipped({ status: 'gap', gap: GAP, message }, 'unsatisfied_contract', `${message}; allow-list the host to judge it`);
  }
  const doc = walk.prm.kind === 'response' && walk.prm.status === 200 ? jsonObject(walk.prm) : undefined;
  const status = walk.prm.kind === 'response' ? walk.prm.status : undefined;
  const outcome: StepOutcome = { ok: doc !== undefined, payload: doc ?? {}, ...(status ? { httpStatus: status } : {}) };
  state.outcomes.set(step.id, outcome);
  state.priorSteps.set(step.id, outcome.payload);
  const shown: StepOutcome = { ...outcome, payload: shownDocument(outcome.payload) };
  const results = requiredOf(step).map((v) => judgeValidation(v, shown, { context: state.context, agentUrl, oauthGraph: walk }));
  const failure = failureOf(ctx, results);
  if (failure) return { verdict: failure.verdict, storyboard: { validations: failure.validations } };
  if (walk.gaps.length > 0) {
    const message = `the OAuth metadata graph could not be followed wholly under the run's address policy: ${walk.gaps.join('; ')}`;
    return {
      verdict: { status: 'gap', gap: GAP, message },
      storyboard: { validations: results, skip: { reason: 'unsatisfied_contract', detail: `${message}; allow-list the host to judge it` } },
    };
  }
  return { verdict: { status: 'ok' }, storyboard: { validations: results } };
}

/** The metadata as judged and recorded: its `resource` and `authorization_servers` shown with secrets replaced. */
function shownDocument(doc: unknown): unknown {
  if (!doc || typeof doc !== 'object') return doc;
  const d = { ...(doc as Record<string, unknown>) };
  const show = (v: unknown) => (typeof v === 'string' && /[@?#]/.test(v) ? shownUrl(v) : v);
  d.resource = show(d.resource);
  if (Array.isArray(d.authorization_servers)) d.authorization_servers = d.authorization_servers.map(show);
  return d;
}
