/**
 * Harness benchmarks (issue 2), measured side by side in one run against the built-in mock seller:
 * - per-call overhead: N get_products calls through the MCP transport (wire capture, payload
 *   decoding, schema validation) against the same N JSON-RPC calls made with bare undici on the
 *   same session (send, read the SSE body), target >= 0.80 of it, and against the official MCP
 *   TypeScript SDK client (`Client` + `StreamableHTTPClientTransport`, callTool and parse the
 *   text, on its own session of the same mock), target >= 1.0 (at least as fast);
 * - the wall time of a full `run` (every suite, MCP and A2A) against the mock: the first in the
 *   process and the second at the concurrency `proto-comply run` uses against the built-in mocks,
 *   and a third at the default for an agent URL.
 * Blocks of calls alternate between two contenders (harness/core/signing/bench/bench-timing.ts:
 * the median per-pair ratio, timed in process CPU time as the signing bench is, so time spent
 * descheduled on the shared machine does not count; the wall-clock ratio is printed beside it).
 * The mock runs in this process, so each contender's CPU includes the mock's work for its call,
 * as its wall time on a quiet machine does (the call waits for it).
 */
import { randomBytes } from 'node:crypto';
import { startMockSeller } from '../mocks/seller/index.js';
import { certify, DEFAULT_CONCURRENCY } from '../harness/certify/index.js';
import { BUILTIN_MOCK_CONCURRENCY } from '../harness/cli/builtin-mocks.js';
import { createSchemaValidator } from '../harness/core/schemas/validator.js';
import { protocolIds } from '../harness/core/token.js';
import { type BenchResult, pairedRow } from '../harness/core/signing/bench/bench.js';
import { pairedTiming } from '../harness/core/signing/bench/bench-timing.js';
import { GET_PRODUCTS_ARGS, openMcpContenders, openSdkContender } from './bare-mcp.js';

const BARE = 'mcp get_products, bare undici';
const SDK = 'mcp get_products, official MCP SDK client (callTool + parse)';
const HARNESS = 'mcp get_products, harness transport + capture + schema validation';

export async function harnessBench(opts: { calls?: number; block?: number } = {}): Promise<BenchResult[]> {
  const calls = opts.calls ?? 600;
  const block = opts.block ?? 20;
  const authToken = randomBytes(18).toString('base64url');
  const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken });
  const ids = protocolIds();
  const { transport, bare } = await openMcpContenders(seller, authToken).catch(async (e: unknown) => {
    await seller.close();
    throw e;
  });
  const sdk = await openSdkContender(seller, authToken).catch(async (e: unknown) => {
    await transport.close();
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
      await sdk.call();
    }
    const vsBare = await pairedTiming(harness, bare, { iterations: calls, block });
    const vsSdk = await pairedTiming(harness, sdk.call, { iterations: calls, block });

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
      { name: BARE, ops_per_sec: vsBare.opsB, iterations: vsBare.iterations },
      pairedRow(HARNESS, BARE, vsBare, 0.8),
      { name: SDK, ops_per_sec: vsSdk.opsB, iterations: vsSdk.iterations },
      pairedRow(HARNESS, SDK, vsSdk, 1),
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
    await sdk.close();
    await transport.close();
    await seller.close();
  }
}
