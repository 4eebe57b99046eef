/**
 * `discovery_agents`: every agent adagents.json authorizes (the first MAX_AGENTS, protocol mcp or
 * a2a) is called over its declared protocol, from the rest column, and must list each capability the
 * file says it serves (MCP tools/list, A2A agent card skills). The calls go through the run's
 * recorder and address policy; the run's bearer token only to the origins the user named for the
 * agent (RunFacts.agentCredentials), never to another agent a file names.
 */
import { createRecorder } from '../../../harness/core/transport/capture.js';
import { createTransport } from '../../../harness/core/transport/factory.js';
import { resolveEndpoints } from '../../../harness/core/transport/endpoints.js';
import { DEFAULT_TRANSPORT_LIMITS, type AgentTransportKind } from '../../../harness/core/transport/types.js';
import { AddressPolicy } from '../../../harness/core/net/address-policy.js';
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import type { Transport } from '../../../harness/core/transport/types.js';
import { RegistryFaceTransport } from '../../../harness/core/registry-face/transport.js';
import { fetchDocument } from './files.js';

/** Agents of one file called at most (a file may list many; the first ones judge the file). */
export const MAX_AGENTS = 8;

type Entry = { url?: unknown; protocol?: unknown; capabilities?: unknown };

/**
 * A transport to an agent a discovery file names, recorded and under the run's address policy;
 * the run's bearer token only when the user named this agent's origin. Throws
 * TransportConfigError when `agentUrl` is no agent URL.
 */
export function discoveredAgentTransport(ctx: CheckContext, agentUrl: string, kind: AgentTransportKind): Transport {
  const credentials = ctx.run.agentCredentials;
  return createTransport(
    kind,
    {
      agentUrl,
      token: ctx.ids.token,
      ...(credentials ? { authToken: credentials.token, credentialOrigins: credentials.origins } : { credentialOrigins: [] }),
      ...DEFAULT_TRANSPORT_LIMITS,
      capture: createRecorder({ token: ctx.ids.token, ...(ctx.run.redactor ? { redactor: ctx.run.redactor } : {}) }),
      addressPolicy: ctx.run.addressPolicy ?? new AddressPolicy({}),
    },
    resolveEndpoints(agentUrl),
  );
}

/** An HTTP status that means "not without credentials": the agent is a gap, not a failure. */
export function refusedWithoutCredentials(status: number | undefined): boolean {
  return status === 401 || status === 403;
}

export const discoveryAgents: StepKind = {
  name: 'discovery_agents',
  fields: {},
  async run(_step, ctx) {
    const url = ctx.transport instanceof RegistryFaceTransport ? ctx.transport.target.adagentsUrl : undefined;
    if (!url) return { verdict: { status: 'not_applicable', message: 'no adagents.json under test: give one with --publisher DOMAIN|URL' } };
    const doc = await fetchDocument(ctx, url, 'adagents.json');
    if (!doc.ok) return { verdict: { status: 'unmet', message: (doc.verdict as { message: string }).message, blocked_by: 'discovery.adagents.schema' } };
    const all = Array.isArray(doc.value.agents) ? (doc.value.agents as Entry[]) : [];
    // A malformed entry is discovery.adagents.schema's to judge: here it only blocks.
    if (all.some((a) => !a || typeof a !== 'object' || typeof a.url !== 'string' || (a.capabilities !== undefined && !Array.isArray(a.capabilities))))
      return {
        verdict: {
          status: 'unmet',
          message: 'adagents.json has an agents[] entry without a url string or a capabilities array',
          blocked_by: 'discovery.adagents.schema',
        },
      };
    const entries = all.filter((a) => (a.protocol === 'mcp' || a.protocol === 'a2a') && Array.isArray(a.capabilities));
    if (entries.length === 0)
      return { verdict: { status: 'gap', message: 'adagents.json names no agent with protocol mcp or a2a and capabilities[]', gap: 'an authorized agent' } };
    const gaps: string[] = [];
    for (const a of entries.slice(0, MAX_AGENTS)) {
      const kind = a.protocol as AgentTransportKind;
      const agentUrl = a.url as string;
      let transport: Transport;
      try {
        transport = discoveredAgentTransport(ctx, agentUrl, kind);
      } catch (e) {
        return { verdict: { status: 'failed', message: `adagents.json names ${agentUrl}, which is no agent URL: ${(e as Error).message}` } };
      }
      try {
        const opened = await transport.open(ctx.signal);
        ctx.exchanges.push(...opened.exchanges);
        const status = opened.failure?.httpStatus;
        if (refusedWithoutCredentials(status)) {
          gaps.push(`${agentUrl} refused the harness without credentials for its origin (HTTP ${status})`);
          continue;
        }
        if (opened.failure) return { verdict: { status: 'failed', message: `${agentUrl} does not answer over ${kind}: ${opened.failure.message}` } };
        const list = await transport.listTasks(ctx.signal);
        ctx.exchanges.push(...list.exchanges);
        if (list.failure) return { verdict: { status: 'failed', message: `${agentUrl} lists no task over ${kind}: ${list.failure.message}` } };
        const missing = (a.capabilities as unknown[]).filter((c) => typeof c === 'string' && !list.names.includes(c));
        if (missing.length)
          return {
            verdict: {
              status: 'failed',
              message: `adagents.json says ${agentUrl} serves ${missing.map((m) => JSON.stringify(m)).join(', ')}, which its ${list.source} does not list`,
              expected: missing,
              actual: list.names,
            } satisfies StepVerdict,
          };
      } finally {
        await transport.close();
      }
    }
    if (gaps.length) return { verdict: { status: 'gap', message: gaps.join('; '), gap: 'credentials for an agent adagents.json names' } };
    return { verdict: { status: 'ok' } };
  },
};
