/**
 * The agent-level subscriber sets (3.2 betas: `sync_agent_notification_configs`,
 * core/agent-notification-config.json; digest 5.2, 5.9): a declarative replace per caller, each
 * new active subscriber proven through the signed activation challenge of scope agent first
 * (subscriptions.ts), and capabilities.changed in its event-specific payload
 * (core/capabilities-changed-webhook.json).
 *
 * The mock's capability document never changes within a run and no test-controller scenario of
 * digest 4.6 changes it, so, to give a subscriber something to receive, the mock announces its
 * current capability revision to each newly activated subscriber (reason `manual_refresh`, the
 * revision it publishes at `<token>.capability_changes.capabilities_version`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FaultSet } from '../faults.js';
import type { NotificationConfig } from './subscriptions.js';
import type { SubscriberDeps } from './account-subscribers.js';

const KIND = 'agent_notification_configs';
const KEY = 'agent';
/** The revision of the mock's capability document (published in get_<token>_capabilities at 3.2). */
export const CAPABILITIES_VERSION = 'pc-mock-capabilities-1';
/** When the mock's capability document was last modified (its start). */
export const CHANGED_AT = new Date().toISOString();

export class AgentSubscribers {
  constructor(private readonly deps: SubscriberDeps) {}

  list(principal: string): NotificationConfig[] {
    return this.deps.records.get<NotificationConfig[]>(KIND, principal, KEY) ?? [];
  }

  /**
   * Replaces a caller's set. Every active entry without a proven identical predecessor is
   * challenged first; the index of the first that fails proof is returned and nothing changes.
   * Newly proven subscribers then get the current revision announced.
   */
  async replace(principal: string, configs: NotificationConfig[], sellerAgentUrl: string): Promise<number | undefined> {
    const current = this.list(principal);
    const fresh: NotificationConfig[] = [];
    for (const [i, cfg] of configs.entries()) {
      if (!cfg.active) continue;
      const proven = current.some((c) => c.active && JSON.stringify(c) === JSON.stringify(cfg));
      if (proven) continue;
      if (!(await this.deps.challenger.prove(cfg, undefined, sellerAgentUrl))) return i;
      fresh.push(cfg);
    }
    this.deps.records.put(KIND, principal, KEY, KEY, configs, this.deps.now());
    for (const cfg of fresh) this.announce(principal, cfg, sellerAgentUrl);
    return undefined;
  }

  private announce(principal: string, cfg: NotificationConfig, agentUrl: string): void {
    const envelope = capabilitiesChangedPayload(cfg.subscriber_id, agentUrl, this.deps.faults);
    this.deps.send({ principal, reg: { url: cfg.url, operation_id: cfg.subscriber_id, mode: 'rfc9421' }, envelope });
  }
}

/** The capabilities.changed payload for one subscriber (core/capabilities-changed-webhook.json). */
export function capabilitiesChangedPayload(subscriberId: string, agentUrl: string, faults: FaultSet): Record<string, unknown> {
  const firedAt = new Date().toISOString();
  const key = randomUUID();
  // Fault agent-subscription-event-task-envelope: the event goes out in the task status envelope instead.
  if (faults.has('agent-subscription-event-task-envelope')) {
    return {
      idempotency_key: key,
      operation_id: subscriberId,
      task_id: `capchg_${randomBytes(6).toString('hex')}`,
      task_type: 'capabilities.changed',
      status: 'completed',
      timestamp: firedAt,
      result: { capabilities_version: CAPABILITIES_VERSION },
    };
  }
  return {
    idempotency_key: key,
    notification_id: `capchg_${CAPABILITIES_VERSION}`,
    notification_type: 'capabilities.changed',
    fired_at: firedAt,
    subscriber_id: subscriberId,
    agent_url: agentUrl,
    changed_at: CHANGED_AT,
    reason: 'manual_refresh',
    capabilities_version: CAPABILITIES_VERSION,
  };
}
