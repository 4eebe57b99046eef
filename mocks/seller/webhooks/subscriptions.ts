/**
 * Account-level webhook subscribers (released 3.1: `sync_accounts` `accounts[].notification_configs[]`,
 * core/notification-config.json; digest 5.2, 5.9). Before a new active subscriber is echoed
 * active, the seller proves the receiver controls the URL (sync_accounts "Endpoint proof of
 * control"): one HTTPS POST of a `webhook.challenge` body (core/webhook-challenge.json) signed with
 * the RFC 9421 webhook profile key, answered 2xx with exactly one of `challenge` / `token` echoing
 * the value (core/webhook-challenge-response.json). Events of the subscribed types then go to the
 * subscriber in their own payload (creative.status_changed: creative/creative-status-changed-webhook.json),
 * never in the task envelope.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type Agent, request } from 'undici';
import type { AddressPolicy } from '../../../harness/core/net/address-policy.js';
import { policyAgent } from '../../../harness/core/net/pinned-connector.js';
import { randomNonce, signRequest } from '../../../harness/core/signing/sign/signer.js';
import type { ProtocolIds } from '../../../harness/core/token.js';
import { parseBoundedJson } from '../../../harness/core/transport/bounded-json.js';
import type { FaultSet } from '../faults.js';
import type { SellerWebhookKeys } from './keys.js';
import { SIGNATURE_WINDOW_S } from './sender.js';

/** Account-anchored notification types of the released 3.1 enums/notification-type.json. */
export const ACCOUNT_EVENT_TYPES = new Set([
  'creative.status_changed',
  'creative.purged',
  'product.created',
  'product.updated',
  'product.priced',
  'product.removed',
  'signal.created',
  'signal.updated',
  'signal.priced',
  'signal.removed',
  'wholesale_feed.bulk_change',
]);
const MAX_ANSWER_BYTES = 8 * 1024;
const CHALLENGE_PATTERN = /^[A-Za-z0-9_.:-]{32,255}$/;

export interface NotificationConfig {
  subscriber_id: string;
  url: string;
  event_types: string[];
  active: boolean;
}

export interface ChallengeDeps {
  ids: ProtocolIds;
  keys: SellerWebhookKeys;
  faults: FaultSet;
  timeoutMs: number;
  addressPolicy?: AddressPolicy;
}

/** The challenge body for one pending subscriber (core/webhook-challenge.json). */
export function challengeBody(cfg: NotificationConfig, accountId: string, sellerAgentUrl: string, faults: FaultSet): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: 'webhook.challenge',
    challenge: randomBytes(32).toString('base64url'),
    account_id: accountId,
    subscriber_id: cfg.subscriber_id,
    seller_agent_url: sellerAgentUrl,
    delivery_auth: { mode: 'rfc9421' },
    event_types: cfg.event_types,
  };
  // Fault subscription-challenge-misnamed: the challenge names no subscriber and no event types.
  if (faults.has('subscription-challenge-misnamed')) {
    delete body.subscriber_id;
    delete body.event_types;
  }
  return body;
}

/** Agent-level notification types (3.2 betas core/agent-notification-config.json): capabilities.changed only. */
export const AGENT_EVENT_TYPES = new Set(['capabilities.changed']);

/** The challenge body for one pending agent-level subscriber (3.2 betas core/agent-webhook-challenge.json): scope agent, no account. */
export function agentChallengeBody(cfg: NotificationConfig, sellerAgentUrl: string, faults: FaultSet): Record<string, unknown> {
  // Fault agent-subscription-challenge-account-scoped: the account-level shape (an account_id, no scope).
  if (faults.has('agent-subscription-challenge-account-scoped')) {
    return { ...challengeBody(cfg, 'agent', sellerAgentUrl, faults) };
  }
  return {
    type: 'webhook.challenge',
    scope: 'agent',
    challenge: randomBytes(32).toString('base64url'),
    subscriber_id: cfg.subscriber_id,
    seller_agent_url: sellerAgentUrl,
    delivery_auth: { mode: 'rfc9421' },
    event_types: cfg.event_types,
  };
}

/** Whether an answer echoes the challenge in exactly one of `challenge` / `token`. */
export function answerEchoes(text: string, challenge: string): boolean {
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) return false;
  const v = parsed.value as Record<string, unknown>;
  const echoed = [v.challenge, v.token].filter((x) => x !== undefined);
  return echoed.length === 1 && echoed[0] === challenge && CHALLENGE_PATTERN.test(challenge);
}

export class SubscriberChallenger {
  private readonly dispatcher: Agent;

  constructor(private readonly deps: ChallengeDeps) {
    this.dispatcher = policyAgent(deps.addressPolicy, { connectTimeoutMs: Math.min(deps.timeoutMs, 5_000) });
  }

  /**
   * Sends one signed challenge to the subscriber URL; true when the receiver proved control. An
   * account-level subscriber names its account; an agent-level one (accountId undefined) does not.
   */
  async prove(cfg: NotificationConfig, accountId: string | undefined, sellerAgentUrl: string): Promise<boolean> {
    const { ids, keys, faults } = this.deps;
    // Fault subscription-not-challenged: the subscriber is taken as proven without any request.
    if (accountId !== undefined && faults.has('subscription-not-challenged')) return true;
    const body = accountId === undefined ? agentChallengeBody(cfg, sellerAgentUrl, faults) : challengeBody(cfg, accountId, sellerAgentUrl, faults);
    const raw = Buffer.from(JSON.stringify(body));
    const base = { 'Content-Type': 'application/json' };
    const created = Math.floor(Date.now() / 1000);
    // Faults subscription-challenge-unsigned (account level), agent-subscription-challenge-unsigned
    // (agent level): the challenge POST carries no RFC 9421 signature.
    const unsigned = faults.has(accountId === undefined ? 'agent-subscription-challenge-unsigned' : 'subscription-challenge-unsigned');
    const headers = unsigned
      ? base
      : signRequest(
          { method: 'POST', url: cfg.url, headers: base, body: raw },
          { profile: 'webhook', ids, key: keys.signing, created, expires: created + SIGNATURE_WINDOW_S, nonce: randomNonce() },
        ).headers;
    try {
      const res = await request(cfg.url, {
        method: 'POST',
        headers,
        body: raw,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.deps.timeoutMs),
        headersTimeout: this.deps.timeoutMs,
        bodyTimeout: this.deps.timeoutMs,
      });
      const text = await readCapped(res.body, MAX_ANSWER_BYTES);
      return res.statusCode >= 200 && res.statusCode < 300 && text !== undefined && answerEchoes(text, String(body.challenge));
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Seller-initiated transitions that fire creative.status_changed (the released payload's from → to pairs), with a reason code each. */
const CREATIVE_TRANSITIONS: Record<string, Record<string, string>> = {
  processing: { pending_review: 'review_passed', rejected: 'processing_failure' },
  pending_review: { approved: 'review_passed', rejected: 'review_failure' },
  approved: { pending_review: 'seller_rereview', suspended: 'identity_authorization_expired', rejected: 'policy_revocation', archived: 'seller_archive' },
  suspended: { approved: 'review_passed', rejected: 'policy_revocation' },
};

/** The reason code of a transition that fires creative.status_changed; undefined for one that does not. */
export function creativeTransitionReason(from: string, to: string): string | undefined {
  return CREATIVE_TRANSITIONS[from]?.[to];
}

/** The creative.status_changed payload for one subscriber (creative/creative-status-changed-webhook.json). */
export function creativeStatusPayload(
  e: { account_id: string; creative_id: string; from: string; to: string; reason_code: string; at: string },
  subscriberId: string,
  faults: FaultSet,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    idempotency_key: randomUUID(),
    notification_id: `cs_${e.creative_id.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 64)}_${randomBytes(6).toString('hex')}`,
    notification_type: 'creative.status_changed',
    fired_at: new Date().toISOString(),
    subscriber_id: subscriberId,
    account_id: e.account_id,
    creative_id: e.creative_id,
    transition: { from: e.from, to: e.to, observed_at: e.at },
    reason_code: e.reason_code,
    initiator: 'seller',
  };
  // Fault subscription-event-task-envelope: the event goes out in the task status envelope instead.
  if (faults.has('subscription-event-task-envelope')) {
    return {
      idempotency_key: payload.idempotency_key,
      operation_id: subscriberId,
      task_id: e.creative_id,
      task_type: 'creative.status_changed',
      status: 'completed',
      timestamp: payload.fired_at,
      result: { creative_id: e.creative_id, status: e.to },
    };
  }
  return payload;
}
