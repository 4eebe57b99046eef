/**
 * The manual probe limits (digest 6.3): one per agent per 60 s and 30 per caller per hour, shared
 * by `POST …/refresh` and the storyboard run, step and compare operations. Over a limit: 429
 * `{error, retry_after}` with a Retry-After header.
 */
import type { AgentRow } from '../types.js';
import { type Caller, callerKey } from '../http/callers.js';
import { HttpError } from '../http/respond.js';
import type { ServiceContext } from './context.js';

/** Takes one manual probe of `agent` for `caller` from the store's limits, or throws the 429. */
export async function takeManualProbe(s: ServiceContext, agent: AgentRow, caller: Caller): Promise<void> {
  const taken = await s.store.takeRefresh(agent.url, callerKey(caller), s.now(), s.refreshLimits);
  if (taken.ok) return;
  const why = taken.limit === 'agent' ? `${agent.url} was probed less than a minute ago` : 'you have used your refreshes for this hour';
  throw new HttpError(429, `${why}; retry after ${taken.retryAfterS} s`, { 'retry-after': String(taken.retryAfterS) }, { retry_after: taken.retryAfterS });
}
