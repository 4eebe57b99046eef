/**
 * At-least-once webhook delivery (interface spec 6.5, digest 5.4-5.6). Each event's body bytes
 * are fixed once; every attempt re-sends them with a fresh signature (new `created`, new
 * nonce) in the registration's mode: RFC 9421 by default, legacy HMAC-SHA256 when registered.
 * Transient failures are retried with bounded exponential backoff under the same
 * `idempotency_key`; a 401 without a `webhook_*` code is transient (rule 12), a 401 with one
 * ends that delivery (digest 5.6). Every attempt is recorded in the buy's `webhook_activity[]`.
 */
import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import type { AddressPolicy } from '../../../harness/core/net/address-policy.js';
import { policyAgent } from '../../../harness/core/net/pinned-connector.js';
import type { ProtocolIds } from '../../../harness/core/token.js';
import { signHmacWebhook } from '../../../harness/core/signing/legacy/legacy-hmac.js';
import { randomNonce, signRequest } from '../../../harness/core/signing/sign/signer.js';
import type { FaultSet } from '../faults.js';
import type { WebhookActivity } from './activity.js';
import type { Envelope } from './envelopes/mcp.js';
import type { SellerWebhookKeys } from './keys.js';
import { postWebhook } from './post.js';
import type { WebhookRegistration } from './registration.js';

/** A member of the MCP envelope, or of an A2A envelope's `metadata` (envelopes/a2a.ts). */
function fieldOf(envelope: Envelope, name: string): unknown {
  if (name in envelope) return envelope[name];
  const meta = envelope.metadata;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[name] : undefined;
}

function keyOf(envelope: Envelope): string {
  return String(fieldOf(envelope, 'idempotency_key'));
}

function withKey(envelope: Envelope, key: string): Envelope {
  if ('idempotency_key' in envelope) return { ...envelope, idempotency_key: key };
  return { ...envelope, metadata: { ...(envelope.metadata as Record<string, unknown>), idempotency_key: key } };
}

export interface RetryPolicy {
  /** Delay before the second attempt; doubles per attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts per event, the first included. */
  maxAttempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseDelayMs: 25, maxDelayMs: 1_000, maxAttempts: 6 };
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Signature window of the sender (interface spec 5.1 rule 4: at most 5 minutes). */
export const SIGNATURE_WINDOW_S = 300;

export interface OutboundEvent {
  principal: string;
  /** The buy whose `webhook_activity[]` records the attempts, when the event concerns one. */
  mediaBuyId?: string;
  reg: WebhookRegistration;
  envelope: Envelope;
  /** Queued once this event's first attempt got its answer (an event that must arrive after it). */
  followedBy?: OutboundEvent;
}

export interface SenderDeps {
  ids: ProtocolIds;
  keys: SellerWebhookKeys;
  faults: FaultSet;
  activity: WebhookActivity;
  retry: RetryPolicy;
  timeoutMs: number;
  /** Connections are resolved, checked and pinned through it (absent: local testing, anything goes). */
  addressPolicy?: AddressPolicy;
  log: (line: string) => void;
}

interface Pending {
  event: OutboundEvent;
  body: Buffer;
  attempt: number;
  firstNonce?: string;
}

export class WebhookSender {
  private readonly dispatcher: Agent;
  private readonly shutdown = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Receiver URLs a (faulty) seller stopped serving after a 401. */
  private readonly disabled = new Set<string>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: SenderDeps) {
    // undici's request() never follows redirects (no redirect interceptor is installed).
    this.dispatcher = policyAgent(deps.addressPolicy, { connectTimeoutMs: Math.min(deps.timeoutMs, 5_000) });
  }

  /** Queues an event; returns at once. */
  send(event: OutboundEvent): void {
    if (this.shutdown.signal.aborted) return;
    if (this.disabled.has(`${event.principal}\u0000${event.reg.url}`)) {
      this.deps.log(`webhook to ${event.reg.url} dropped: the registration was disabled`);
      return;
    }
    // HMAC covers the compact serialization (spec 5.2); the pretty-body fault indents it.
    const pretty = event.reg.mode === 'hmac-sha256' && this.deps.faults.has('webhook-hmac-pretty-body');
    this.run({ event, body: Buffer.from(JSON.stringify(event.envelope, null, pretty ? 2 : undefined)), attempt: 1 });
  }

  /** Resolves once no attempt is running or scheduled (tests). */
  idle(): Promise<void> {
    if (this.timers.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.shutdown.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
    await this.dispatcher.destroy().catch(() => undefined);
    this.wakeIdle();
  }

  private wakeIdle(): void {
    if (this.timers.size === 0 && this.running.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private run(p: Pending): void {
    const job = this.attempt(p).catch((err: unknown) => this.deps.log(`webhook attempt failed: ${(err as Error).message}`));
    this.running.add(job);
    void job.finally(() => {
      this.running.delete(job);
      this.wakeIdle();
    });
  }

  private headersFor(p: Pending): Record<string, string> {
    const { ids, keys, faults } = this.deps;
    const reg = p.event.reg;
    const base = { 'Content-Type': 'application/json' };
    if (reg.mode === 'hmac-sha256') return { ...base, ...signHmacWebhook(ids, reg.secret as string, p.body, Date.now() / 1000) };
    if (faults.has('webhook-unsigned')) return base;
    const created = Math.floor(Date.now() / 1000);
    const nonce = faults.has('webhook-nonce-reused') && p.firstNonce ? p.firstNonce : randomNonce();
    p.firstNonce ??= nonce;
    // The extra-component fault also covers Content-Length (spec 5.1 rule 1: exactly five components).
    const extra = faults.has('webhook-extra-component');
    const signed = signRequest(
      { method: 'POST', url: reg.url, headers: extra ? { ...base, 'Content-Length': String(p.body.length) } : base, body: p.body },
      {
        profile: 'webhook',
        ids,
        key: faults.has('webhook-key-unpublished') ? keys.unpublished : keys.signing,
        created,
        expires: created + (faults.has('webhook-window-too-long') ? 2 * SIGNATURE_WINDOW_S : SIGNATURE_WINDOW_S),
        nonce,
        ...(extra ? { extraComponents: ['content-length'] } : {}),
        // The request-signing tag instead of the webhook-signing tag; parameters in another order.
        defects: [
          ...(faults.has('webhook-request-tag') ? (['wrong-tag'] as const) : []),
          ...(faults.has('webhook-params-reordered') ? (['params-reordered'] as const) : []),
        ],
        // Padded standard base64 instead of unpadded base64url (the Content-Digest unchanged).
        ...(faults.has('webhook-signature-standard-base64') ? { encoding: 'strict' as const, digestEncoding: 'legacy' as const } : {}),
      },
    );
    return signed.headers;
  }

  private async attempt(p: Pending): Promise<void> {
    const { event } = p;
    if (p.attempt > 1 && this.deps.faults.has('webhook-key-rotated-on-retry')) {
      event.envelope = withKey(event.envelope, randomUUID());
      p.body = Buffer.from(JSON.stringify(event.envelope));
    }
    if (p.attempt > 1 && this.deps.faults.has('webhook-timestamp-renewed-on-retry')) {
      event.envelope = { ...event.envelope, timestamp: new Date().toISOString() };
      p.body = Buffer.from(JSON.stringify(event.envelope));
    }
    const outcome = await postWebhook(event.reg.url, this.headersFor(p), p.body, {
      dispatcher: this.dispatcher,
      timeoutMs: this.deps.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      signal: this.shutdown.signal,
      followRedirect: this.deps.faults.has('webhook-follows-redirect'),
    });
    if (this.shutdown.signal.aborted) return;
    if (event.followedBy && p.attempt === 1) this.send(event.followedBy);
    const key = keyOf(event.envelope);
    // The buggy seller records only the attempts that got through.
    const unrecorded = outcome.status !== 'success' && this.deps.faults.has('webhook-activity-not-recorded');
    if (event.mediaBuyId && !unrecorded) {
      this.deps.activity.record(event.principal, event.mediaBuyId, {
        idempotency_key: key,
        status: outcome.status,
        ...(outcome.http_status_code !== undefined ? { http_status_code: outcome.http_status_code } : {}),
        attempt: p.attempt,
        ...(outcome.error_message ? { error_message: outcome.error_message } : {}),
        task_type: String(fieldOf(event.envelope, 'task_type')),
        at: new Date().toISOString(),
      });
    }
    if (outcome.http_status_code === 401 && !outcome.signatureRejected && this.deps.faults.has('webhook-disabled-after-401')) {
      this.disabled.add(`${event.principal}\u0000${event.reg.url}`);
      this.deps.log(`webhook ${key} to ${event.reg.url}: 401, registration disabled`);
      return;
    }
    if (outcome.signatureRejected) this.deps.log(`webhook ${key}: receiver refused the signature (${outcome.signatureRejected}); not retried`);
    // The buggy seller retries a delivery the receiver refused with a webhook_* signature error.
    const retryable = outcome.retryable || (outcome.signatureRejected !== undefined && this.deps.faults.has('webhook-signature-401-retried'));
    if (!retryable || p.attempt >= this.deps.retry.maxAttempts) {
      if (outcome.status !== 'success')
        this.deps.log(`webhook ${key} to ${event.reg.url} gave up after attempt ${p.attempt}: ${outcome.error_message ?? outcome.status}`);
      return;
    }
    const { baseDelayMs, maxDelayMs } = this.deps.retry;
    const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (p.attempt - 1));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.shutdown.signal.aborted) this.run({ ...p, attempt: p.attempt + 1 });
      this.wakeIdle();
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}
