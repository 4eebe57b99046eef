/**
 * The webhook receiver benchmark's load generator, in its own process (bench.ts): a signing
 * sender identity (brand.json and JWKS served here), then for each stdin line
 * `{"url", "n", "concurrency"}` it signs n distinct webhooks for that URL (before timing), posts
 * them with that many in flight, and answers one line `{"ms"}` (wall time of the posting).
 * Prints `{"brandJsonUrl"}` first; exits when stdin closes.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { encodeEvent } from '../../harness/core/webhooks/receiver-probe/events.js';
import { signWebhook, startSenderIdentity, type SenderIdentity } from '../../harness/core/webhooks/receiver-probe/sender.js';

interface Wire {
  headers: Record<string, string>;
  body: Buffer;
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

const identity = await startSenderIdentity();
const agents = new Map<number, Agent>();
process.stdout.write(`${JSON.stringify({ brandJsonUrl: identity.brandJsonUrl })}\n`);
const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const { url, n, concurrency } = JSON.parse(line) as { url: string; n: number; concurrency: number };
    let agent = agents.get(concurrency);
    if (!agent) agents.set(concurrency, (agent = new Agent({ connections: concurrency })));
    const wires = signBlock(identity, url, n);
    const ms = await fire(url, wires, concurrency, agent);
    process.stdout.write(`${JSON.stringify({ ms })}\n`);
  });
});
lines.on(
  'close',
  () =>
    void queue.then(async () => {
      for (const a of agents.values()) await a.close();
      await identity.close();
      process.exit(0);
    }),
);
