/**
 * Harness benchmarks (issue 2), measured side by side in one run against the built-in mock seller:
 * - per-call overhead: N get_products calls through the MCP transport (wire capture, payload
 *   decoding, schema validation) against the same N JSON-RPC calls made with bare undici on the
 *   same session (send, read the SSE body) — printed as a ratio;
 * - the wall time of a full `run` (every suite, MCP and A2A) against the mock: the first in the
 *   process and the second at the concurrency `proto-comply run` uses against the built-in mocks,
 *   and a third at the default for an agent URL.
 * Blocks of calls alternate between the two contenders so machine noise hits both alike.
 */
import { randomBytes } from 'node:crypto';
import { startMockSeller } from '../mocks/seller/index.js';
import { certify, DEFAULT_CONCURRENCY } from '../harness/certify/index.js';
import { BUILTIN_MOCK_CONCURRENCY } from '../harness/cli/builtin-mocks.js';
import { createSchemaValidator } from '../harness/core/schemas/validator.js';
import { protocolIds } from '../harness/core/token.js';
import type { BenchResult } from '../harness/core/signing/bench/bench.js';
import { GET_PRODUCTS_ARGS, median, openMcpContenders } from './bare-mcp.js';

export async function harnessBench(opts: { calls?: number; block?: number } = {}): Promise<BenchResult[]> {
  const calls = opts.calls ?? 400;
  const block = opts.block ?? 20;
  const authToken = randomBytes(18).toString('base64url');
  const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken });
  const ids = protocolIds();
  const { transport, bare } = await openMcpContenders(seller, authToken).catch(async (e: unknown) => {
    await seller.close();
    throw e;
  });
  const schemas = createSchemaValidator({ token: ids.token });
  try {
    const harness = async () => {
      const reply = await transport.call('get_products', GET_PRODUCTS_ARGS);
      if (!reply.ok || !schemas.validateTaskResponse('get_products', reply.payload).valid) throw new Error('harness call failed');
    };
    for (let i = 0; i < block; i++) {
      await bare();
      await harness();
    }
    const times: [number[], number[]] = [[], []];
    for (let done = 0; done < calls; done += block) {
      for (const [k, fn] of [bare, harness].entries()) {
        const t0 = performance.now();
        for (let i = 0; i < block; i++) await fn();
        times[k].push((performance.now() - t0) / block);
      }
    }
    const bareOps = 1000 / median(times[0]);
    const harnessOps = 1000 / median(times[1]);

    // The first run in a process also compiles schemas and warms the JIT (what one CLI run pays);
    // the second is what each run of a long-lived process (the registry's prober) costs. Both at
    // the concurrency `proto-comply run` uses against the built-in mocks, then a warm run at the
    // default for an agent URL.
    const timedRun = async (concurrency: number) => {
      const t0 = performance.now();
      const run = await certify({ agentUrl: seller.baseUrl, authToken, concurrency });
      return { run, ms: performance.now() - t0, concurrency };
    };
    const cold = await timedRun(BUILTIN_MOCK_CONCURRENCY);
    const warm = await timedRun(BUILTIN_MOCK_CONCURRENCY);
    const polite = await timedRun(DEFAULT_CONCURRENCY);
    return [
      { name: 'mcp get_products, bare undici', ops_per_sec: bareOps, iterations: calls },
      {
        name: 'mcp get_products, harness transport + capture + schema validation',
        ops_per_sec: harnessOps,
        iterations: calls,
        baseline: 'mcp get_products, bare undici',
        ratio: harnessOps / bareOps,
      },
      ...(
        [
          ['first', cold],
          ['second', warm],
          ['third', polite],
        ] as const
      ).map(([which, { run, ms, concurrency }]) => ({
        name: `full run against the mock, ${which} in the process, concurrency ${concurrency} (${run.checks.length} check runs, ${run.overall_status}), runs per second (wall ${Math.round(ms)} ms)`,
        ops_per_sec: 1000 / ms,
        iterations: 1,
      })),
    ];
  } finally {
    await transport.close();
    await seller.close();
  }
}
