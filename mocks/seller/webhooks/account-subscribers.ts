/**
 * The account-level subscriber sets (released 3.1 `sync_accounts` `notification_configs[]`): a
 * declarative replace per account, each new active subscriber proven through the signed
 * activation challenge first (subscriptions.ts), and the account-anchored events fired to the
 * active subscribers whose `event_types` name them, each in its event-specific payload.
 */
import { accountIdOf } from '../domain/accounts.js';
import type { CreativeStatusChanged } from '../domain/events.js';
import type { FaultSet } from '../faults.js';
import type { RecordStore } from '../store/record-store.js';
import type { OutboundEvent } from './sender.js';
import { type NotificationConfig, type SubscriberChallenger, creativeStatusPayload, creativeTransitionReason } from './subscriptions.js';

const KIND = 'notification_configs';

/** The account id of an account scope key (`id:<account_id>` or `brand:<domain>|<operator>`). */
function accountIdOfKey(principal: string, key: string): string | undefined {
  if (key.startsWith('id:')) return key.slice(3);
  const m = /^brand:([^|]*)\|(.*)$/.exec(key);
  return m ? accountIdOf(principal, m[1]!, m[2]!) : undefined;
}

/** What a subscriber list needs: the records, the challenger, the faults, the event sender and a clock. */
export interface SubscriberDeps {
  records: RecordStore;
  challenger: SubscriberChallenger;
  faults: FaultSet;
  send: (e: OutboundEvent) => void;
  now: () => number;
}

export class AccountSubscribers {
  constructor(private readonly deps: SubscriberDeps) {}

  list(principal: string, accountId: string): NotificationConfig[] {
    return this.deps.records.get<NotificationConfig[]>(KIND, principal, accountId) ?? [];
  }

  /**
   * Replaces an account's set. Every active entry without a proven identical predecessor is
   * challenged first; the index of the first that fails proof is returned and nothing changes.
   */
  async replace(principal: string, accountId: string, configs: NotificationConfig[], sellerAgentUrl: string): Promise<number | undefined> {
    const current = this.list(principal, accountId);
    for (const [i, cfg] of configs.entries()) {
      if (!cfg.active) continue;
      const proven = current.some((c) => c.active && JSON.stringify(c) === JSON.stringify(cfg));
      if (!proven && !(await this.deps.challenger.prove(cfg, accountId, sellerAgentUrl))) return i;
    }
    this.deps.records.put(KIND, principal, accountId, `id:${accountId}`, configs, this.deps.now());
    return undefined;
  }

  /** A creative transition: creative.status_changed to each active subscriber of the type. */
  creativeStatusChanged(e: CreativeStatusChanged): void {
    const reason = creativeTransitionReason(e.previous_status, e.status);
    const accountId = accountIdOfKey(e.principal, e.account_key);
    if (reason === undefined || accountId === undefined) return;
    for (const cfg of this.list(e.principal, accountId)) {
      if (!cfg.active || !cfg.event_types.includes('creative.status_changed')) continue;
      const envelope = creativeStatusPayload(
        { account_id: accountId, creative_id: e.creative_id, from: e.previous_status, to: e.status, reason_code: reason, at: e.at },
        cfg.subscriber_id,
        this.deps.faults,
      );
      this.deps.send({ principal: e.principal, reg: { url: cfg.url, operation_id: cfg.subscriber_id, mode: 'rfc9421' }, envelope });
    }
  }
}
