/**
 * Webhook receiver benchmark (for `npm run bench`): signed webhooks per second the mock buyer
 * accepts with RFC 9421 verification and durable dedup (group-committed SQLite, the WAL fsynced before each acknowledgement)
 * against the same receiver with verification and dedup switched off, measured side by side in
 * one run over loopback HTTP. Requests are signed before timing; blocks of requests alternate
 * between the two receivers so machine noise hits both alike; ops/s come from the median block.
 * No thresholds: the ratio is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import type { BenchResult } from '../../harness/core/signing/bench/bench.js';
import { encodeEvent } from '../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook, startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { startMockBuyer, type RunningMockBuyer } from './index.js';

export interface ReceiverBenchOptions {
  /** Requests per timed block. */
  block?: number;
  /** Timed blocks per receiver. */
  rounds?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

interface Wire {
  headers: Record<string, string>;
  body: Buffer;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function signBlock(identity: SenderIdentity, url: string, n: number): Wire[] {
  return Array.from({ length: n }, () => {
    const taskId = randomUUID();
    const body = encodeEvent({
      format: 'mcp',
      idempotencyKey: randomUUID(),
      taskId,
      operationId: randomUUID(),
      contextId: taskId,
      status: 'working',
      timestamp: new Date().toISOString(),
    });
    const s = signWebhook(identity, url, body);
    return { headers: s.headers, body: Buffer.from(s.body) };
  });
}

async function fire(url: string, wires: Wire[], concurrency: number, agent: Agent): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < wires.length) {
      const w = wires[next++]!;
      const res = await request(url, { method: 'POST', headers: w.headers, body: w.body, dispatcher: agent });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`benchmark delivery answered HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - t0;
}

export async function webhookReceiverBench(opts: ReceiverBenchOptions = {}): Promise<BenchResult[]> {
  const block = opts.block ?? 200;
  const rounds = opts.rounds ?? 8;
  const concurrency = opts.concurrency ?? 16;
  const identity = await startSenderIdentity();
  const dir = mkdtempSync(join(tmpdir(), 'buyer-bench-'));
  const agent = new Agent({ connections: concurrency });
  const buyers: RunningMockBuyer[] = [];
  try {
    const trust = { senders: [{ brandJsonUrl: identity.brandJsonUrl }], allowInsecureLoopback: true };
    const full = await startMockBuyer({ dbPath: join(dir, 'full.sqlite'), trust, dedupBoundPerSender: 1_000_000 });
    buyers.push(full);
    const bare = await startMockBuyer({ dbPath: join(dir, 'bare.sqlite'), trust, unsafeBypass: { verification: true, dedup: true } });
    buyers.push(bare);
    const contenders = [
      { name: 'mock buyer, verification + durable dedup', buyer: full, times: [] as number[] },
      { name: 'mock buyer, verification and dedup off', buyer: bare, times: [] as number[] },
    ];
    // Warm up (JWKS fetch, JIT, SQLite pages), then alternate timed blocks.
    for (const c of contenders) await fire(c.buyer.url, signBlock(identity, c.buyer.url, block), concurrency, agent);
    for (let r = 0; r < rounds; r++) {
      for (const c of contenders) {
        const wires = signBlock(identity, c.buyer.url, block);
        c.times.push(await fire(c.buyer.url, wires, concurrency, agent));
      }
    }
    await full.whenIdle(60_000);
    const [a, b] = contenders.map((c) => ({ name: c.name, ops: (block * 1000) / median(c.times), wall: c.times.reduce((x, y) => x + y, 0) }));
    return [
      { name: b!.name, ops_per_sec: b!.ops, iterations: block * rounds },
      { name: a!.name, ops_per_sec: a!.ops, iterations: block * rounds, baseline: b!.name, ratio: a!.ops / b!.ops, wall_ratio: b!.wall / a!.wall },
    ];
  } finally {
    for (const b of buyers) await b.close();
    await agent.close();
    await identity.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
