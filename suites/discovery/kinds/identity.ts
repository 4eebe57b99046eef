/**
 * `discovery_identity_agents`: every identity agent brand.json names (`brands[].identity_agent`,
 * interface spec 2.3; the first MAX_AGENTS) answers `get_brand_identity` (4.3) for its brand with
 * a reply that is no error and fits the task's response schema. brand.json gives no protocol for an
 * identity agent, so its URL decides (…/mcp: MCP; …/a2a or an agent card: A2A) and a base URL is
 * tried over MCP, then A2A. The request carries the brand reference both ways the brand is known:
 * `brand_id` (the identity agent's `id`, else the brand's `id`) and `brand: {domain}` (the house).
 */
import type { CheckContext, StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { RegistryFaceTransport } from '../../../harness/core/registry-face/transport.js';
import { protocolNamedBy } from '../../../harness/core/transport/endpoints.js';
import type { AgentTransportKind, Transport } from '../../../harness/core/transport/types.js';
import { discoveredAgentTransport, MAX_AGENTS, refusedWithoutCredentials } from './agents.js';
import { fetchDocument } from './files.js';

type Doc = Record<string, unknown>;

const TASK = 'get_brand_identity';

/** The protocols to try: the one the URL names, else MCP then A2A (an unusable URL fails when its transport is made). */
function protocolsOf(url: string): AgentTransportKind[] {
  let named: AgentTransportKind | undefined;
  try {
    named = protocolNamedBy(url);
  } catch {
    named = undefined;
  }
  return named ? [named] : ['mcp', 'a2a'];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

type Outcome = { kind: 'ok' } | { kind: 'gap'; message: string } | { kind: 'failed'; verdict: StepVerdict } | { kind: 'unreachable'; message: string };

export const discoveryIdentityAgents: StepKind = {
  name: 'discovery_identity_agents',
  fields: {},
  async run(_step, ctx) {
    const url = ctx.transport instanceof RegistryFaceTransport ? ctx.transport.target.brandUrl : undefined;
    if (!url) return { verdict: { status: 'not_applicable', message: 'no brand.json under test: give one with --brand DOMAIN|URL' } };
    const doc = await fetchDocument(ctx, url, 'brand.json');
    if (!doc.ok) return { verdict: { status: 'unmet', message: (doc.verdict as { message: string }).message, blocked_by: 'discovery.brand.schema' } };
    const brands = Array.isArray(doc.value.brands) ? (doc.value.brands as unknown[]) : [];
    const house = doc.value.house && typeof doc.value.house === 'object' ? (doc.value.house as Doc) : {};
    const named = brands
      .filter((b): b is Doc => b !== null && typeof b === 'object')
      .map((b) => ({ brand: b, agent: b.identity_agent && typeof b.identity_agent === 'object' ? (b.identity_agent as Doc) : undefined }))
      .filter((e): e is { brand: Doc; agent: Doc } => e.agent !== undefined);
    // An identity agent without a url string is discovery.brand.schema's to judge: here it only blocks.
    if (named.some((e) => typeof e.agent.url !== 'string'))
      return { verdict: { status: 'unmet', message: 'brand.json has a brands[].identity_agent without a url string', blocked_by: 'discovery.brand.schema' } };
    if (named.length === 0)
      return { verdict: { status: 'gap', message: 'brand.json names no identity agent (brands[].identity_agent)', gap: 'a brand identity agent' } };
    const gaps: string[] = [];
    for (const { brand, agent } of named.slice(0, MAX_AGENTS)) {
      const agentUrl = agent.url as string;
      const brandId = str(agent.id) ?? str(brand.id);
      const domain = str(house.domain);
      const args: Doc = { ...(brandId ? { brand_id: brandId } : {}), ...(domain ? { brand: { domain } } : {}) };
      const tried: string[] = [];
      let outcome: Outcome | undefined;
      for (const kind of protocolsOf(agentUrl)) {
        outcome = await askIdentity(ctx, agentUrl, kind, args);
        if (outcome.kind !== 'unreachable') break;
        tried.push(outcome.message);
      }
      if (!outcome || outcome.kind === 'unreachable')
        return {
          verdict: { status: 'failed', message: `identity agent ${agentUrl} of brand ${JSON.stringify(brandId ?? '?')} does not answer: ${tried.join('; ')}` },
        };
      if (outcome.kind === 'failed') return { verdict: outcome.verdict };
      if (outcome.kind === 'gap') gaps.push(outcome.message);
    }
    if (gaps.length) return { verdict: { status: 'gap', message: gaps.join('; '), gap: 'credentials for an identity agent brand.json names' } };
    return { verdict: { status: 'ok' } };
  },
};

async function askIdentity(ctx: CheckContext, agentUrl: string, kind: AgentTransportKind, args: Doc): Promise<Outcome> {
  let transport: Transport;
  try {
    transport = discoveredAgentTransport(ctx, agentUrl, kind);
  } catch (e) {
    return {
      kind: 'failed',
      verdict: { status: 'failed', message: `brand.json names identity agent ${agentUrl}, which is no agent URL: ${(e as Error).message}` },
    };
  }
  try {
    const opened = await transport.open(ctx.signal);
    ctx.exchanges.push(...opened.exchanges);
    if (refusedWithoutCredentials(opened.failure?.httpStatus))
      return { kind: 'gap', message: `identity agent ${agentUrl} refused the harness without credentials for its origin (HTTP ${opened.failure!.httpStatus})` };
    if (opened.failure) return { kind: 'unreachable', message: `over ${kind}: ${opened.failure.message}` };
    const reply = await transport.call(TASK, args, { signal: ctx.signal, purpose: `discovery ${TASK}` });
    ctx.exchanges.push(...reply.exchanges);
    const what = `identity agent ${agentUrl} (${kind}) ${TASK} ${JSON.stringify(args)}`;
    if (refusedWithoutCredentials(reply.failure?.httpStatus))
      return { kind: 'gap', message: `identity agent ${agentUrl} refused ${TASK} without credentials for its origin (HTTP ${reply.failure!.httpStatus})` };
    if (reply.failure) return { kind: 'failed', verdict: { status: 'failed', message: `${what}: no reply (${reply.failure.message})` } };
    if (!reply.ok)
      return {
        kind: 'failed',
        verdict: {
          status: 'failed',
          message: `${what}: error ${reply.error?.code ?? reply.status}${reply.error ? ` (${reply.error.message})` : ''}`,
          actual: reply.payload,
        },
      };
    const v = ctx.schemas.validate(`${TASK}-response`, reply.payload);
    if (!v.valid) {
      const e = v.errors[0]!;
      return {
        kind: 'failed',
        verdict: { status: 'failed', message: `${what}: reply at ${e.pointer || '/'}: ${e.message}`, pointer: e.pointer, actual: v.errors.slice(0, 10) },
      };
    }
    return { kind: 'ok' };
  } finally {
    await transport.close();
  }
}
