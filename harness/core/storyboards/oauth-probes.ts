/**
 * The storyboards' OAuth metadata probes, steps the runner carries out itself (digest 6.1; the
 * bundle's security storyboard): `protected_resource_metadata` fetches the agent's RFC 9728
 * document (`<origin>/.well-known/oauth-protected-resource<path of the endpoint called>`), and
 * `oauth_auth_server_metadata` the RFC 8414 document of the first authorization server it names
 * (`<issuer origin>/.well-known/oauth-authorization-server<issuer path>`). Both are fetched
 * SSRF-safe under the run's address policy, https only (http and loopback only when the agent
 * and the document's host are both on loopback), no redirects, 64 KiB, 10 s, and never with the
 * run's credentials. The document is the step's reply, judged by its validations
 * (`resource_equals_agent_url` among them); a status other than 200 is the reply's status. A
 * `protected_resource_metadata` step carrying `oauth_metadata_graph` follows the whole graph
 * instead (oauth-graph-step.ts).
 */
import { fetchDiscoveryJson } from '../discovery/fetch.js';
import type { CheckContext, StepVerdict } from '../engine/kinds/types.js';
import { isLoopbackHost } from '../webhooks/emission/config.js';
import type { StepOutcome } from './judge.js';
import { authServerMetadataUrl, protectedResourceUrl } from './oauth-urls.js';

export { authServerMetadataUrl, protectedResourceUrl };

export const OAUTH_PROBES = new Set(['protected_resource_metadata', 'oauth_auth_server_metadata']);

const MAX_BYTES = 64 * 1024;

/** The URL the probe fetches, or why it has none. */
export function probeUrl(task: string, endpoint: string, prmDocuments: readonly unknown[]): string | { unmet: string } {
  if (task === 'protected_resource_metadata') return protectedResourceUrl(endpoint);
  const prm = prmDocuments.at(-1);
  const servers = (prm as { authorization_servers?: unknown } | undefined)?.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : undefined;
  if (!issuer || !URL.canParse(issuer))
    return { unmet: 'no protected-resource metadata of this storyboard named an authorization server (authorization_servers[0])' };
  return authServerMetadataUrl(issuer);
}

/** The fetched document as the step's outcome; a verdict when nothing could be fetched. */
export async function probe(ctx: CheckContext, url: string): Promise<StepOutcome | StepVerdict> {
  const local = isLoopbackHost(new URL(ctx.transport.endpoint).hostname) && isLoopbackHost(new URL(url).hostname);
  const got = await fetchDiscoveryJson(url, { policy: ctx.run.addressPolicy, allowInsecureLoopback: local, maxBytes: MAX_BYTES, totalTimeoutMs: 10_000 });
  ctx.notes.push(`fetched ${url} without credentials`);
  if (got.ok) return { ok: true, payload: got.value, httpStatus: got.status };
  const status = got.kind === 'status' ? Number(/HTTP (\d{3})/.exec(got.message)?.[1]) : undefined;
  if (status) return { ok: false, payload: {}, httpStatus: status };
  if (got.kind === 'address' || got.kind === 'scheme')
    return {
      status: 'gap',
      gap: 'an OAuth metadata host the run may fetch',
      message: `${got.message} (the run's address policy or https-only rule refuses it)`,
    };
  return { status: 'failed', message: `the metadata could not be fetched: ${got.message}`, expected: 'a JSON document with HTTP 200', actual: got.kind };
}
