/**
 * Paired timing for benchmarks on a noisy shared machine: two contenders run in alternating
 * blocks of consecutive calls (A B, then B A, ...), so machine noise hits both alike while each
 * runs warm within its block. Blocks are timed in process CPU time (user + system, every
 * thread: GC helpers included), so time spent descheduled while other processes run does not
 * count; where the system only accounts CPU time in coarse ticks, wall-clock time is used
 * instead. Each adjacent pair of blocks gives one ratio; the reported ratio is the median of
 * those, with the 10th-90th percentile spread, next to the plain ratio of total times (which
 * keeps every GC pause and interruption) and the wall-clock ratio.
 */

export interface PairedTiming {
  /** Median over block pairs of (B time / A time): A's throughput relative to B's. */
  ratio: number;
  /** 10th and 90th percentile of the per-pair ratios. */
  spread: [number, number];
  /** Ratio of total times over all blocks (no outlier rejection). */
  totalRatio: number;
  /** Ratio of total wall-clock times, for comparison. */
  wallRatio: number;
  /** Operations per second, from the median block. */
  opsA: number;
  opsB: number;
  /** The clock the ratios and ops come from. */
  clock: 'cpu' | 'wall';
  /** Calls timed per contender. */
  iterations: number;
  blocks: number;
}

export interface PairedOptions {
  /** Calls per contender, rounded down to whole blocks. */
  iterations: number;
  /** Consecutive calls per block. */
  block: number;
  /** Index of the first call (contenders index their inputs by call number). */
  offset?: number;
  /**
   * Checks each contender's (awaited) results after every block, outside the timed region,
   * so that a failing call cannot pass for a fast one and the check costs neither side.
   */
  checkA?: (value: unknown, i: number) => void;
  checkB?: (value: unknown, i: number) => void;
}

/** A contender: call number → anything; a returned promise is awaited. */
export type Contender = (i: number) => unknown;

interface BlockTime {
  cpu: number;
  wall: number;
}

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/** CPU and wall nanoseconds of one block of calls; results land in `out` (index i - from). */
async function timeBlock(fn: Contender, from: number, to: number, out: unknown[]): Promise<BlockTime> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = from; i < to; i++) {
    const r = fn(i);
    out[i - from] = r instanceof Promise ? await r : r;
  }
  const wall = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(c0);
  return { cpu: (cpu.user + cpu.system) * 1000, wall };
}

function checkBlock(check: ((value: unknown, i: number) => void) | undefined, out: readonly unknown[], from: number): void {
  if (check) for (let j = 0; j < out.length; j++) check(out[j], from + j);
}

/**
 * CPU time is usable when it was read for (nearly) every block and does not come in coarse
 * steps (tick-based accounting shows as few distinct values).
 */
function cpuUsable(times: readonly BlockTime[]): boolean {
  const cpu = times.map((t) => t.cpu);
  if (cpu.filter((c) => c > 0).length < 0.9 * cpu.length) return false;
  return new Set(cpu).size >= Math.min(cpu.length, 8) * 0.75;
}

/** Time A against B in alternating blocks; both see the same call numbers. */
export async function pairedTiming(a: Contender, b: Contender, opts: PairedOptions): Promise<PairedTiming> {
  const blocks = Math.max(1, Math.floor(opts.iterations / opts.block));
  const offset = opts.offset ?? 0;
  const timesA: BlockTime[] = [];
  const timesB: BlockTime[] = [];
  const outA = new Array<unknown>(opts.block);
  const outB = new Array<unknown>(opts.block);
  for (let k = 0; k < blocks; k++) {
    const from = offset + k * opts.block;
    const to = from + opts.block;
    if (k % 2 === 0) {
      timesA.push(await timeBlock(a, from, to, outA));
      timesB.push(await timeBlock(b, from, to, outB));
    } else {
      timesB.push(await timeBlock(b, from, to, outB));
      timesA.push(await timeBlock(a, from, to, outA));
    }
    checkBlock(opts.checkA, outA, from);
    checkBlock(opts.checkB, outB, from);
  }
  const clock = cpuUsable(timesA) && cpuUsable(timesB) ? 'cpu' : 'wall';
  const pick = (t: BlockTime) => (clock === 'cpu' ? t.cpu : t.wall);
  const ratios: number[] = [];
  const usedA: number[] = [];
  const usedB: number[] = [];
  for (let k = 0; k < blocks; k++) {
    const ta = pick(timesA[k]!);
    const tb = pick(timesB[k]!);
    if (ta <= 0 || tb <= 0) continue;
    ratios.push(tb / ta);
    usedA.push(ta);
    usedB.push(tb);
  }
  if (ratios.length === 0) throw new Error('pairedTiming: blocks too short to time');
  ratios.sort((x, y) => x - y);
  const medianOps = (ts: number[]) =>
    (opts.block * 1e9) /
    quantile(
      [...ts].sort((x, y) => x - y),
      0.5,
    );
  return {
    ratio: quantile(ratios, 0.5),
    spread: [quantile(ratios, 0.1), quantile(ratios, 0.9)],
    totalRatio: sum(usedB) / sum(usedA),
    wallRatio: sum(timesB.map((t) => t.wall)) / sum(timesA.map((t) => t.wall)),
    opsA: medianOps(usedA),
    opsB: medianOps(usedB),
    clock,
    iterations: blocks * opts.block,
    blocks,
  };
}
