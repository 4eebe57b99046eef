/**
 * Fuzzer throughput (issue 13), in one run against the built-in mock seller: generated cases per
 * second of `proto-comply fuzz` (get_products, the two request properties, MCP: generation, the call through
 * the harness transport, judging, and fast-check's bookkeeping) next to bare undici get_products
 * calls per second on an MCP session of the same mock, with the ratio.
 */
import { randomBytes } from 'node:crypto';
import { startMockSeller } from '../mocks/seller/index.js';
import { protocolIds } from '../harness/token.js';
import { runFuzz } from '../harness/fuzz/run.js';
import { nearValidRefused } from '../harness/fuzz/properties/near-valid-refused.js';
import { validAccepted } from '../harness/fuzz/properties/valid-accepted.js';
import type { BenchResult } from '../harness/signing/bench/bench.js';
import { openMcpContenders } from './bare-mcp.js';

export async function fuzzBench(opts: { calls?: number; runs?: number } = {}): Promise<BenchResult[]> {
  const calls = opts.calls ?? 400;
  const runs = opts.runs ?? 200;
  const authToken = randomBytes(18).toString('base64url');
  const seller = await startMockSeller({ authToken });
  const ids = protocolIds();
  const { transport, bare } = await openMcpContenders(seller, authToken).catch(async (e: unknown) => {
    await seller.close();
    throw e;
  });
  try {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await bare();
    const bareOps = (calls * 1000) / (performance.now() - t0);

    const t1 = performance.now();
    const run = await runFuzz({
      agentUrl: seller.baseUrl,
      transports: ['mcp'],
      token: ids.token,
      authToken,
      seed: 1,
      runs,
      tasks: ['get_products'],
      // one call per case: the request properties (a model case is a whole command sequence)
      properties: [nearValidRefused, validAccepted],
      reportFile: 'bench',
      command: 'bench',
    });
    const ms = performance.now() - t1;
    if (run.overall_status !== 'passing') throw new Error(`fuzz bench run is ${run.overall_status}: ${run.headline}`);
    const cases = runs * run.checks.length;
    const fuzzOps = (cases * 1000) / ms;
    return [
      { name: 'mcp get_products, bare undici calls', ops_per_sec: bareOps, iterations: calls },
      {
        name: `fuzz cases (get_products, ${run.checks.length} properties, setup included)`,
        ops_per_sec: fuzzOps,
        iterations: cases,
        baseline: 'mcp get_products, bare undici calls',
        ratio: fuzzOps / bareOps,
      },
    ];
  } finally {
    await transport.close();
    await seller.close();
  }
}
