/**
 * kill -9 mid-load: the mock buyer runs as a separate process (the real CLI), is flooded with
 * signed webhooks including duplicates, is killed with SIGKILL while requests are in flight, and
 * is restarted on the same database. Everything not acknowledged is sent again, plus duplicates
 * of everything acknowledged. Every acknowledged webhook must be processed exactly once: none
 * lost, none twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook, startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';
import { event } from './testing/buyer-rig.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EVENTS = 240;
const KILL_AFTER_ACKS = 80;
const CONCURRENCY = 12;

interface Proc {
  child: ChildProcess;
  url: string;
  stateUrl: string;
  adminUrl: string;
  exited: Promise<number | null>;
}

async function spawnBuyer(dbPath: string, brandUrl: string): Promise<Proc> {
  const child = spawn(
    process.execPath,
    ['bin/proto-comply.js', 'mock', 'buyer', '--port', '0', '--db', dbPath, '--trust-brand', brandUrl, '--insecure-loopback'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString()));
  const ready = await new Promise<{ url: string; stateUrl: string; adminUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mock buyer did not start within 30 s: ${err}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /^receiver (\S+)$/m.exec(out)?.[1];
      const stateUrl = /^state\s+(\S+)$/m.exec(out)?.[1];
      const adminUrl = /^admin\s+(\S+)$/m.exec(out)?.[1];
      if (url && stateUrl && adminUrl) {
        clearTimeout(timer);
        resolve({ url, stateUrl, adminUrl });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock buyer exited with ${code} before starting: ${err}`));
    });
  });
  return { child, exited, ...ready };
}

async function send(identity: SenderIdentity, url: string, body: Buffer): Promise<{ status: number | 'error'; kind?: string }> {
  const signed = signWebhook(identity, url, body);
  try {
    const res = await request(url, { method: 'POST', headers: signed.headers, body: Buffer.from(signed.body), headersTimeout: 10_000, bodyTimeout: 10_000 });
    const text = await res.body.text();
    let kind: string | undefined;
    try {
      kind = (JSON.parse(text) as { status?: string }).status;
    } catch {
      kind = undefined;
    }
    return { status: res.statusCode, kind };
  } catch {
    return { status: 'error' };
  }
}

/** Wait (bounded) for the durable queue to drain, then count processings per idempotency_key. */
async function processedKeys(p: Proc): Promise<Map<string, number>> {
  const deadline = Date.now() + 20_000;
  while ((await getJson<{ pending: number }>(p.stateUrl)).pending > 0) {
    if (Date.now() > deadline) throw new Error('the queue did not drain');
    await new Promise((r) => setTimeout(r, 50));
  }
  const counts = new Map<string, number>();
  for (let after = 0; ; ) {
    const page = await getJson<{ events: Array<{ idempotency_key: string }>; next_after: number }>(`${p.adminUrl}/events?after=${after}&limit=1000`);
    if (page.events.length === 0) break;
    for (const e of page.events) counts.set(e.idempotency_key, (counts.get(e.idempotency_key) ?? 0) + 1);
    after = page.next_after;
  }
  return counts;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await request(url, { headersTimeout: 10_000, bodyTimeout: 10_000 });
  return (await res.body.json()) as T;
}

describe('mock buyer survives kill -9 mid-load', () => {
  let identity: SenderIdentity;
  let dir: string;
  const procs: Proc[] = [];

  beforeAll(async () => {
    identity = await startSenderIdentity();
    dir = mkdtempSync(join(tmpdir(), 'buyer-kill9-'));
  });
  afterAll(async () => {
    for (const p of procs) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await identity?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged webhook and processes none twice', async () => {
    const dbPath = join(dir, 'buyer.sqlite');
    const bodies = Array.from({ length: EVENTS }, () => encodeEvent(event({ idempotencyKey: randomUUID() })));
    const keys = bodies.map((b) => JSON.parse(b.toString()).idempotency_key as string);

    // Phase 1: flood (every third event is sent twice at once), SIGKILL after KILL_AFTER_ACKS acknowledgements.
    const first = await spawnBuyer(dbPath, identity.brandJsonUrl);
    procs.push(first);
    const acked = new Set<number>();
    let killed = false;
    const queue = bodies.flatMap((_, i) => (i % 3 === 0 ? [i, i] : [i]));
    let next = 0;
    const worker = async () => {
      while (!killed && next < queue.length) {
        const i = queue[next++]!;
        const { status } = await send(identity, first.url, bodies[i]!);
        if (status === 200) acked.add(i);
        else if (status !== 'error') throw new Error(`unexpected HTTP ${status} before the kill`);
        if (!killed && acked.size >= KILL_AFTER_ACKS) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(acked.size).toBeLessThan(EVENTS);

    // Phase 2: restart on the same database. Before anything is re-sent, every acknowledged
    // webhook must already be there (processed from the durable queue), none twice.
    const second = await spawnBuyer(dbPath, identity.brandJsonUrl);
    procs.push(second);
    const afterRestart = await processedKeys(second);
    const lost = [...acked].map((i) => keys[i]!).filter((k) => !afterRestart.has(k));
    const twice = [...afterRestart].filter(([, n]) => n > 1).map(([k]) => k);
    expect({ lost, twice }).toEqual({ lost: [], twice: [] });

    // Re-send what was not acknowledged, and duplicates of what was: all 2xx, the duplicates as duplicates.
    const order = bodies.map((_, i) => i);
    let cursor = 0;
    const replies: Array<{ i: number; status: number | 'error'; kind?: string }> = [];
    const worker2 = async () => {
      while (cursor < order.length) {
        const i = order[cursor++]!;
        replies.push({ i, ...(await send(identity, second.url, bodies[i]!)) });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker2));
    expect(replies.filter((r) => r.status !== 200)).toEqual([]);
    expect(replies.filter((r) => acked.has(r.i) && r.kind !== 'duplicate')).toEqual([]);

    // Everything is now acknowledged, so everything is processed exactly once.
    const final = await processedKeys(second);
    expect([...final].filter(([, n]) => n !== 1)).toEqual([]);
    expect(new Set(final.keys())).toEqual(new Set(keys));

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
