/**
 * CLI cold start: `proto-comply --version` against `node -e 0` (node alone), each started several
 * times alternately; the median of each. Target: within 2× of node alone (ratio ≥ 0.5), which the
 * entry point meets by loading only what a command needs (`--version` reads package.json without
 * the TypeScript loader).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../harness/core/signing/bench/bench.js';
import { median } from './bare-mcp.js';

const BIN = fileURLToPath(new URL('../bin/proto-comply.js', import.meta.url));

function timeOnce(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 300)}`);
  return ms;
}

export async function cliBench(opts: { rounds?: number } = {}): Promise<BenchResult[]> {
  const rounds = opts.rounds ?? 7;
  const bare: number[] = [];
  const cli: number[] = [];
  timeOnce([BIN, '--version']); // warm the file cache (and tsx's transform cache)
  for (let i = 0; i < rounds; i++) {
    bare.push(timeOnce(['-e', '0']));
    cli.push(timeOnce([BIN, '--version']));
  }
  const b = median(bare);
  const c = median(cli);
  return [
    { name: `node -e 0 (median ${Math.round(b)} ms)`, ops_per_sec: 1000 / b, iterations: rounds },
    {
      name: `proto-comply --version (median ${Math.round(c)} ms)`,
      ops_per_sec: 1000 / c,
      iterations: rounds,
      baseline: 'node -e 0',
      ratio: b / c,
      target_ratio: 0.5,
    },
  ];
}
