/**
 * Latency-bound runs (issue 36, target 3): a full MCP certification of the built-in mock seller
 * behind the auditing proxy holding every task call 100 ms (`proxy --inject call:delay:100ms`),
 * both in another process as an agent is (latency-agent.ts), at the default concurrency for an
 * agent URL. The floor is (delayed calls x 100 ms / concurrency): the run should take at most 1.2
 * times that. The run's own timing summary (engine/timing.ts, the `timing` member of
 * agent-compliance.json) is printed with it: where the time went, and the floor computed from
 * what the calls really took (the agent's own time included).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { certify, DEFAULT_CONCURRENCY } from '../harness/certify/index.js';
import { timingLine } from '../harness/core/engine/timing.js';
import type { BenchResult } from '../harness/core/signing/bench/bench.js';

const DELAY_MS = 100;
const WITHIN = 1.2;

export async function latencyBench(): Promise<BenchResult[]> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./latency-agent.ts', import.meta.url)), String(DELAY_MS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done) throw new Error('the latency bench agent exited');
    return JSON.parse(line.value) as T;
  };
  try {
    const agent = await next<{ url: string; direct: string; authToken: string }>();
    const delayed = async () => {
      child.stdin!.write('count\n');
      return (await next<{ delayed: number }>()).delayed;
    };
    const options = { authToken: agent.authToken, transports: ['mcp' as const], concurrency: DEFAULT_CONCURRENCY };
    // Warm this process (schemas compiled, JIT) and the agent's without the delay: a CLI run's first seconds are not what this measures.
    await certify({ agentUrl: agent.direct, ...options });
    const before = await delayed();
    const t0 = performance.now();
    const run = await certify({ agentUrl: agent.url, ...options });
    const wall = performance.now() - t0;
    const calls = (await delayed()) - before;
    const floor = (calls * DELAY_MS) / DEFAULT_CONCURRENCY;
    if (run.overall_status !== 'passing') throw new Error(`the mock behind the delaying proxy is ${run.overall_status}: ${run.headline}`);
    return [
      {
        name: `full MCP run, every task call +${DELAY_MS} ms, concurrency ${DEFAULT_CONCURRENCY}: within ${WITHIN}x of ${calls} calls x ${DELAY_MS} ms / ${DEFAULT_CONCURRENCY} = ${(floor / 1000).toFixed(1)} s (wall ${(wall / 1000).toFixed(1)} s)`,
        ops_per_sec: 1000 / wall,
        iterations: 1,
        baseline: `${WITHIN}x the floor`,
        ratio: (WITHIN * floor) / wall,
        target_ratio: 1,
        note: run.timing ? timingLine(run.timing) : 'no timing in the result',
      },
    ];
  } finally {
    child.stdin!.end();
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}
