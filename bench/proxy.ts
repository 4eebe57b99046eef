/**
 * The auditing proxy's cost (issue 14), in one run against the built-in mock seller: bare undici
 * get_products calls straight to the mock next to the same calls through `proto-comply proxy`'s
 * reverse proxy with the passive audit on, in alternating blocks; calls per second of each, the
 * ratio, and the p50 latency the proxy adds.
 */
import { randomBytes } from 'node:crypto';
import { startMockSeller } from '../mocks/seller/index.js';
import { startAuditingProxy } from '../harness/proxy/session.js';
import type { BenchResult } from '../harness/core/signing/bench/bench.js';
import { median, openMcpContenders } from './bare-mcp.js';

export async function proxyBench(opts: { calls?: number; block?: number } = {}): Promise<BenchResult[]> {
  const calls = opts.calls ?? 3000;
  const block = opts.block ?? 100;
  const authToken = randomBytes(18).toString('base64url');
  const seller = await startMockSeller({ authToken });
  const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto' });
  const closeAll = async () => {
    await proxy.close();
    await seller.close();
  };
  try {
    const direct = await openMcpContenders(seller, authToken);
    const via = await openMcpContenders({ ...seller, baseUrl: proxy.url, mcpUrl: `${proxy.url}/mcp` }, authToken);
    const latency: [number[], number[]] = [[], []];
    const blocks: [number[], number[]] = [[], []];
    const contenders = [direct.bare, via.bare];
    for (let i = 0; i < block; i++) for (const f of contenders) await f(); // warm-up
    for (let done = 0; done < calls; done += block) {
      for (const [k, f] of contenders.entries()) {
        const t0 = performance.now();
        for (let i = 0; i < block; i++) {
          const c0 = performance.now();
          await f();
          latency[k].push(performance.now() - c0);
        }
        blocks[k].push((performance.now() - t0) / block);
      }
    }
    await direct.transport.close();
    await via.transport.close();
    const stats = proxy.stats();
    if (stats.findings > 0) throw new Error(`the audit found ${stats.findings} problem(s) in the mock's answers`);
    if (stats.calls < calls) throw new Error(`the audit saw ${stats.calls} task calls of ${calls}`);
    const directOps = 1000 / median(blocks[0]);
    const viaOps = 1000 / median(blocks[1]);
    const added = median(latency[1]) - median(latency[0]);
    const DIRECT = 'mcp get_products, bare undici straight to the mock';
    return [
      { name: DIRECT, ops_per_sec: directOps, iterations: calls },
      {
        name: 'the same calls through the proxy, audit on',
        ops_per_sec: viaOps,
        iterations: calls,
        baseline: DIRECT,
        ratio: median(blocks[0].map((d, i) => d / blocks[1][i])),
        note: `p50 latency ${median(latency[0]).toFixed(2)} ms direct, ${median(latency[1]).toFixed(2)} ms through the proxy: +${added.toFixed(2)} ms; ${stats.verdicts} audit verdicts`,
      },
    ];
  } finally {
    await closeAll();
  }
}
