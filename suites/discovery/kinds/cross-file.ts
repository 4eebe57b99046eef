/**
 * `discovery_cross_file`: where both files are given, the brand's sales agents (brand.json
 * `agents[].url`, 2.3) and the publisher's authorized agents (adagents.json `agents[].url`, 2.2)
 * describe one chain: at least one sales agent is authorized, and none is written two ways. A
 * verifier finds an agent's keys only through a brand.json `agents[].url` that byte-equals the
 * agent URL (digest 1.11 step 5), so `https://a.example/mcp` in one file and `https://A.example/mcp/`
 * in the other break key resolution for that agent even though they name one address.
 */
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';
import { RegistryFaceTransport } from '../../../harness/core/registry-face/transport.js';
import { fetchDocument } from './files.js';

type Doc = Record<string, unknown>;

/** `agents[].url` strings of a file, in order. */
function agentUrls(doc: Doc): string[] {
  const agents = Array.isArray(doc.agents) ? (doc.agents as unknown[]) : [];
  return agents.map((a) => (a && typeof a === 'object' ? (a as Doc).url : undefined)).filter((u): u is string => typeof u === 'string');
}

/** The address a URL names, whatever its spelling (case of scheme and host, default port, trailing slash). */
function sameAddress(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return undefined;
  }
}

export const discoveryCrossFile: StepKind = {
  name: 'discovery_cross_file',
  fields: {},
  async run(_step, ctx) {
    const target = ctx.transport instanceof RegistryFaceTransport ? ctx.transport.target : undefined;
    if (!target?.adagentsUrl || !target.brandUrl)
      return {
        verdict: { status: 'not_applicable', message: 'the two files are compared only when both are given: --publisher DOMAIN|URL and --brand DOMAIN|URL' },
      };
    const brand = await fetchDocument(ctx, target.brandUrl, 'brand.json');
    if (!brand.ok) return { verdict: { status: 'unmet', message: (brand.verdict as { message: string }).message, blocked_by: 'discovery.brand.schema' } };
    const publisher = await fetchDocument(ctx, target.adagentsUrl, 'adagents.json');
    if (!publisher.ok)
      return { verdict: { status: 'unmet', message: (publisher.verdict as { message: string }).message, blocked_by: 'discovery.adagents.schema' } };
    const sales = agentUrls(brand.value);
    const authorized = agentUrls(publisher.value);
    if (sales.length === 0) return { verdict: { status: 'gap', message: 'brand.json names no sales agent (agents[].url)', gap: 'brand.json agents[]' } };
    const exact = new Set(authorized);
    for (const [i, url] of sales.entries()) {
      if (exact.has(url)) continue;
      const address = sameAddress(url);
      const j = address === undefined ? -1 : authorized.findIndex((a) => sameAddress(a) === address);
      if (j >= 0)
        return {
          verdict: {
            status: 'failed',
            message: `brand.json agents[${i}].url ${JSON.stringify(url)} and adagents.json agents[${j}].url ${JSON.stringify(authorized[j])} name one agent spelled two ways: its keys resolve only through a byte-equal URL (digest 1.11 step 5)`,
            pointer: `/agents/${i}/url`,
            expected: authorized[j],
            actual: url,
          },
        };
    }
    if (!sales.some((u) => exact.has(u)))
      return {
        verdict: {
          status: 'failed',
          message: `the publisher authorizes none of the brand's ${sales.length} sales agent(s): brand.json names ${sales
            .slice(0, 4)
            .map((u) => JSON.stringify(u))
            .join(', ')}; adagents.json authorizes ${
            authorized.length
              ? authorized
                  .slice(0, 4)
                  .map((u) => JSON.stringify(u))
                  .join(', ')
              : 'no agent'
          }`,
          expected: sales.slice(0, 10),
          actual: authorized.slice(0, 10),
        },
      };
    return { verdict: { status: 'ok' } };
  },
};
