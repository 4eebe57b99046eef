/**
 * Fuzzer throughput (issue 13), in one run against the built-in mock seller: generated cases per
 * second of `proto-comply fuzz` (get_products, both properties, MCP: generation, the call through
 * the harness transport, judging, and fast-check's bookkeeping) next to bare undici get_products
 * calls per second on an MCP session of the same mock, with the ratio.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { startMockSeller } from '../mocks/seller/index.js';
import { createRecorder, createTransport, resolveEndpoints, DEFAULT_TRANSPORT_LIMITS } from '../harness/transport/index.js';
import { protocolIds } from '../harness/token.js';
import { runFuzz } from '../harness/fuzz/run.js';
import { FUZZ_PROPERTIES } from '../harness/fuzz/properties/index.js';
import type { BenchResult } from '../harness/signing/bench/bench.js';

const ARGS = { buying_mode: 'brief', brief: 'Video campaign for a sports drink', brand: { domain: 'example.com' } };

export async function fuzzBench(opts: { calls?: number; runs?: number } = {}): Promise<BenchResult[]> {
  const calls = opts.calls ?? 400;
  const runs = opts.runs ?? 200;
  const authToken = randomBytes(18).toString('base64url');
  const seller = await startMockSeller({ authToken });
  const ids = protocolIds();
  const transport = createTransport(
    'mcp',
    { agentUrl: seller.baseUrl, token: ids.token, authToken, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder({ secrets: [authToken] }) },
    resolveEndpoints(seller.baseUrl),
  );
  try {
    const open = await transport.open();
    if (open.failure) throw new Error(`cannot open the MCP session: ${open.failure.message}`);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${authToken}`,
      ...(open.sessionId ? { 'mcp-session-id': open.sessionId } : {}),
      ...(open.protocolVersion ? { 'mcp-protocol-version': open.protocolVersion } : {}),
    };
    let id = 1;
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'get_products', arguments: ARGS } });
      const res = await request(seller.mcpUrl, { method: 'POST', headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.includes('products')) throw new Error(`bare call failed: HTTP ${res.statusCode}`);
    }
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
      properties: FUZZ_PROPERTIES,
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
