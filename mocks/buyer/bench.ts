/**
 * Webhook receiver benchmark (for `npm run bench`): signed webhooks the mock buyer accepts with
 * RFC 9421 verification and durable dedup (group-committed SQLite, the WAL fsynced before each
 * acknowledgement), against the same receiver with verification and dedup switched off, over
 * loopback HTTP. The load generator (signing, sending) runs in its own process (bench-load.ts), so
 * this process's CPU (process.cpuUsage: every thread, SQLite's included) is the receivers' own.
 * Blocks of requests alternate between the two receivers; throughput and receiver CPU per
 * webhook come from the median block. Target (issue 36): receiver CPU per verified durable
 * webhook within 3x of one raw Ed25519 verification (node:crypto, timed here on a message the
 * size of a webhook signature base).
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../../harness/core/signing/bench/bench.js';
import { startMockBuyer, type RunningMockBuyer } from './index.js';

export interface ReceiverBenchOptions {
  /** Requests per timed block. */
  block?: number;
  /** Timed blocks per receiver. */
  rounds?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

/** Receiver CPU per verified durable webhook, at most this many raw Ed25519 verifications. */
export const TARGET_VERIFICATIONS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** CPU microseconds of one raw node:crypto Ed25519 verification (median of blocks). */
function rawEd25519VerifyMicros(): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  // About the size of a webhook's RFC 9421 signature base.
  const base = Buffer.from(`"@method": POST\n"@target-uri": http://127.0.0.1:40000/webhooks\n${'x'.repeat(400)}`);
  const sig = sign(null, base, privateKey);
  const per: number[] = [];
  for (let b = 0; b < 30; b++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < 200; i++) if (!verify(null, base, publicKey, sig)) throw new Error('raw Ed25519 verification failed');
    const c = process.cpuUsage(c0);
    per.push((c.user + c.system) / 200);
  }
  return median(per.slice(5));
}

export async function webhookReceiverBench(opts: ReceiverBenchOptions = {}): Promise<BenchResult[]> {
  const block = opts.block ?? 400;
  const rounds = opts.rounds ?? 8;
  const concurrency = opts.concurrency ?? 16;
  const dir = mkdtempSync(join(tmpdir(), 'buyer-bench-'));
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./bench-load.ts', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done) throw new Error('the load generator exited');
    return JSON.parse(line.value) as T;
  };
  const buyers: RunningMockBuyer[] = [];
  try {
    const { brandJsonUrl } = await next<{ brandJsonUrl: string }>();
    const trust = { senders: [{ brandJsonUrl }], allowInsecureLoopback: true };
    const full = await startMockBuyer({ dbPath: join(dir, 'full.sqlite'), trust, dedupBoundPerSender: 1_000_000 });
    buyers.push(full);
    const bare = await startMockBuyer({ dbPath: join(dir, 'bare.sqlite'), trust, unsafeBypass: { verification: true, dedup: true } });
    buyers.push(bare);
    /** One block at a receiver: wall ms (the load generator's) and this process's CPU microseconds. */
    const fire = async (url: string) => {
      const c0 = process.cpuUsage();
      child.stdin!.write(`${JSON.stringify({ url, n: block, concurrency })}\n`);
      const { ms } = await next<{ ms: number }>();
      const c = process.cpuUsage(c0);
      return { ms, cpu: c.user + c.system };
    };
    const contenders = [
      { name: 'mock buyer, verification + durable dedup', buyer: full, times: [] as Array<{ ms: number; cpu: number }> },
      { name: 'mock buyer, verification and dedup off', buyer: bare, times: [] as Array<{ ms: number; cpu: number }> },
    ];
    // Warm up (JWKS fetch, JIT, SQLite pages), then alternate timed blocks.
    for (const c of contenders) await fire(c.buyer.url);
    for (let r = 0; r < rounds; r++) for (const c of r % 2 ? [...contenders].reverse() : contenders) c.times.push(await fire(c.buyer.url));
    await full.whenIdle(60_000);
    const raw = rawEd25519VerifyMicros();
    const [a, b] = contenders.map((c) => ({
      name: c.name,
      ops: (block * 1000) / median(c.times.map((t) => t.ms)),
      cpuPer: median(c.times.map((t) => t.cpu)) / block,
      wall: c.times.reduce((x, t) => x + t.ms, 0),
    }));
    const RAW = 'one raw node:crypto Ed25519 verification';
    return [
      { name: b!.name, ops_per_sec: b!.ops, iterations: block * rounds, note: `receiver CPU ${b!.cpuPer.toFixed(0)} µs per webhook` },
      {
        name: a!.name,
        ops_per_sec: a!.ops,
        iterations: block * rounds,
        baseline: b!.name,
        ratio: a!.ops / b!.ops,
        wall_ratio: b!.wall / a!.wall,
        note: `receiver CPU ${a!.cpuPer.toFixed(0)} µs per webhook (load generator in its own process, ${concurrency} in flight)`,
      },
      { name: RAW, ops_per_sec: 1e6 / raw, iterations: 6000, note: `${raw.toFixed(1)} µs CPU` },
      {
        name: `receiver CPU per verified durable webhook: within ${TARGET_VERIFICATIONS}x of ${RAW} (${a!.cpuPer.toFixed(0)} µs vs ${(TARGET_VERIFICATIONS * raw).toFixed(0)} µs)`,
        ops_per_sec: 1e6 / a!.cpuPer,
        iterations: block * rounds,
        baseline: `${TARGET_VERIFICATIONS}x ${RAW}`,
        ratio: (TARGET_VERIFICATIONS * raw) / a!.cpuPer,
        clock: 'cpu',
        target_ratio: 1,
        note: `${Math.round(a!.ops)} verified durable webhooks/s`,
      },
    ];
  } finally {
    child.stdin!.end();
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    for (const b of buyers) await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
