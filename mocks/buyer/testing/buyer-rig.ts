/** Shared helpers for the mock buyer's tests: a sender identity, a buyer trusting it, signed sends. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { signWebhook, startSenderIdentity, type SenderIdentity, type SignWebhookOptions } from '../../../harness/core/webhooks/receiver-probe/sender.js';
import { encodeEvent, type ProbeEvent } from '../../../harness/core/webhooks/receiver-probe/events.js';
import { startMockBuyer, type MockBuyerOptions, type RunningMockBuyer } from '../index.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function post(url: string, headers: Record<string, string>, body: Uint8Array): Promise<Reply> {
  const res = await request(url, { method: 'POST', headers, body: Buffer.from(body), headersTimeout: 10_000, bodyTimeout: 10_000 });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

export function event(over: Partial<ProbeEvent> = {}): ProbeEvent {
  const taskId = over.taskId ?? `task-${randomUUID()}`;
  return {
    format: 'mcp',
    idempotencyKey: randomUUID(),
    taskId,
    operationId: `op-${randomUUID()}`,
    contextId: `ctx-${taskId}`,
    status: 'working',
    timestamp: new Date().toISOString(),
    ...over,
  };
}

export interface Rig {
  identity: SenderIdentity;
  buyer: RunningMockBuyer;
  dir: string;
  dbPath: string;
  /** Sign `body` for `url` (default: the buyer's default endpoint) and POST it. */
  send(body: Uint8Array, opts?: SignWebhookOptions & { url?: string }): Promise<Reply>;
  sendEvent(e: ProbeEvent, opts?: SignWebhookOptions & { url?: string }): Promise<Reply>;
  restart(over?: Partial<MockBuyerOptions>): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(over: Partial<MockBuyerOptions> = {}): Promise<Rig> {
  const identity = await startSenderIdentity();
  const dir = mkdtempSync(join(tmpdir(), 'mock-buyer-'));
  const dbPath = join(dir, 'buyer.sqlite');
  const options = (more: Partial<MockBuyerOptions>): MockBuyerOptions => ({
    dbPath,
    trust: { senders: [{ brandJsonUrl: identity.brandJsonUrl, publisherDeclarationUrl: identity.publisherDeclarationUrl }], allowInsecureLoopback: true },
    ...over,
    ...more,
  });
  let buyer = await startMockBuyer(options({}));
  const rig: Rig = {
    identity,
    get buyer() {
      return buyer;
    },
    dir,
    dbPath,
    async send(body, opts = {}) {
      const url = opts.url ?? buyer.url;
      const signed = signWebhook(identity, url, body, opts);
      return post(url, signed.headers, signed.body);
    },
    sendEvent(e, opts) {
      return rig.send(encodeEvent(e), opts);
    },
    async restart(more = {}) {
      await buyer.close();
      buyer = await startMockBuyer(options(more));
    },
    async close() {
      await buyer.close();
      await identity.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}
