/**
 * The `oauth_metadata_graph` validation (3.2 oauth-setup storyboard; its runner contract
 * `adcp/oauth-metadata-graph/v1`): judged on the graph the runner followed for the step
 * (oauth-graph-step.ts, oauth-graph-walk.ts). Passed when no finding was made and nothing was left
 * unfollowed; failed with the first finding's diagnostic code, its expected value the contract's
 * profile object and its actual `{code, url?, issuer?, field?, http_status?, detail}`, pointing at
 * the member of the protected-resource metadata (the step's reply) the failure stems from; not
 * applicable on a step where no graph was followed, or when part of it could not be fetched under
 * the run's address policy without the agent being wrong (then the step is a gap).
 */
import { fail, na, type Judge } from './judge.js';
import type { GraphFinding } from './oauth-graph-walk.js';

/** The contract's exact `expected` of this check. */
export const GRAPH_EXPECTED = Object.freeze({
  profile: 'adcp/oauth-metadata-graph/v1',
  require_authorization_servers: true,
  follow_all_authorization_servers: true,
  probe_advertised_endpoints: true,
});

/** The member of the protected-resource metadata a finding stems from. */
export function graphPointer(f: GraphFinding): string {
  if (f.server !== undefined) return `/authorization_servers/${f.server}`;
  if (f.field === 'resource' || f.field === 'authorization_servers') return `/${f.field}`;
  return '';
}

export const oauthMetadataGraph: Judge = (_v, _o, env) => {
  const walk = env.oauthGraph;
  if (!walk) return na('judged on a protected_resource_metadata step only, where the runner follows the OAuth metadata graph');
  const first = walk.findings[0];
  if (first) {
    const more =
      walk.findings.length > 1
        ? ` (+${walk.findings.length - 1} more: ${walk.findings
            .slice(1, 4)
            .map((f) => f.code)
            .join(', ')})`
        : '';
    const actual = {
      code: first.code,
      ...(first.url ? { url: first.url } : {}),
      ...(first.issuer ? { issuer: first.issuer } : {}),
      ...(first.field ? { field: first.field } : {}),
      ...(first.httpStatus ? { http_status: first.httpStatus } : {}),
      detail: first.detail,
    };
    return fail(`${first.code}: ${first.detail}${more}`, { ...GRAPH_EXPECTED }, actual, graphPointer(first));
  }
  if (walk.gaps.length > 0)
    return na(`part of the graph could not be fetched under the run's address policy: ${walk.gaps.join('; ')}; allow-list the host to judge it`);
  return { outcome: 'passed', message: `the graph holds: ${walk.requests} requests, ${walk.observations.length} answers` };
};
