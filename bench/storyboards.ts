/**
 * Issue 33: the full applicable 3.0.6 storyboard bundle (the one @adcp/sdk ships) against the SDK's
 * non-guaranteed example seller, timed as whole processes, what a user waits for:
 * - proto-comply `run --storyboards` over MCP and A2A, one run (the transports one after another);
 * - the SDK's reference runner `adcp storyboard run --webhook-receiver` over MCP (it runs one
 *   transport);
 * - for scale, proto-comply over MCP alone.
 * Each measured run meets a fresh copy of the seller (served over MCP and A2A), started before the
 * clock starts and stopped after it stops. The three alternate, in a rotating order, after one
 * uncounted round (file cache, tsx's transform cache); medians of each, and the ratio of the
 * reference's median to ours (above 1: ours takes less time).
 */
import type { BenchResult } from '../harness/core/signing/bench/bench.js';
import { INTEROP_AGENTS, launch, stop, type Launched } from '../suites/interop/testing/agents.js';
import { runOurs, runReference, sdkInstalled } from '../suites/interop/testing/storyboard-runs.js';
import { median } from './bare-mcp.js';

interface Contender {
  name: string;
  /** The whole process, its own reported duration (without starting up and writing reports), how many steps or checks. */
  run: (l: Launched) => Promise<{ wallMs: number; innerMs: number; steps: number }>;
  times: number[];
  inner: number[];
  steps: number;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

export async function storyboardsBench(opts: { rounds?: number } = {}): Promise<BenchResult[]> {
  if (!sdkInstalled()) return [{ name: 'skipped: @adcp/sdk is not installed (npm ci in suites/interop/adcp-sdk-sellers)', ops_per_sec: 0, iterations: 0 }];
  const agent = INTEROP_AGENTS.find((a) => a.id === 'non-guaranteed')!;
  const rounds = opts.rounds ?? 5;
  const seed = '20261129';
  const contender = (name: string, run: Contender['run']): Contender => ({ name, run, times: [], inner: [], steps: 0 });
  const ours = async (l: Launched, transports: 'served' | 'mcp') => {
    const r = await runOurs(l, seed, transports);
    return { wallMs: r.wallMs, innerMs: r.json.duration_ms, steps: r.json.checks.length };
  };
  const contenders = [
    contender('adcp storyboard run (reference runner, MCP)', async (l) => {
      const r = await runReference(l);
      return { wallMs: r.wallMs, innerMs: r.json.total_duration_ms ?? 0, steps: r.json.summary?.total_steps ?? 0 };
    }),
    contender('proto-comply run --storyboards (MCP then A2A, one run)', (l) => ours(l, 'served')),
    contender('proto-comply run --storyboards (MCP only)', (l) => ours(l, 'mcp')),
  ];
  for (let round = -1; round < rounds; round++) {
    const k = Math.max(0, round) % contenders.length;
    for (const c of [...contenders.slice(k), ...contenders.slice(0, k)]) {
      const l = await launch(agent, { a2a: true });
      try {
        const { wallMs, innerMs, steps } = await c.run(l);
        if (steps === 0) throw new Error(`${c.name}: ran no step`);
        c.steps = steps;
        if (round >= 0) {
          c.times.push(wallMs);
          c.inner.push(innerMs);
        }
      } finally {
        await stop(l);
      }
    }
  }
  const [reference, ...mine] = contenders;
  const ref = median(reference.times);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const label = (c: Contender, what: string) => `${c.name}: median ${s(median(c.times))} (its own duration ${s(median(c.inner))}), ${c.steps} ${what}, runs/s`;
  return [
    { name: label(reference, 'steps'), ops_per_sec: 1000 / ref, iterations: rounds },
    ...mine.map((c) => {
      const pairs = c.times.map((t, i) => reference.times[i] / t);
      return {
        name: label(c, 'check runs'),
        ops_per_sec: 1000 / median(c.times),
        iterations: rounds,
        baseline: 'the reference runner',
        ratio: ref / median(c.times),
        spread: [quantile(pairs, 0.1), quantile(pairs, 0.9)] as [number, number],
        clock: 'wall' as const,
      };
    }),
  ];
}
