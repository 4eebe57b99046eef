/**
 * Media-buy repository and lifecycle: lookups scoped to the principal, seller-driven flight
 * transitions (pending_start → active at start of flight, active|paused → completed at its end,
 * interface spec 3.1 / digest 4.2), status changes announced on the event stream, and the
 * response rendering of interface spec 2.4a.
 */
import { randomUUID } from 'node:crypto';
import type { FaultSet } from '../faults.js';
import type { RecordStore } from '../store/record-store.js';
import type { ClockScope, SellerClock } from './clock.js';
import { failure, invalidRequest } from './errors.js';
import { accountKeyOf } from './validation.js';
import type { SellerEvents, MediaBuyStatusChanged } from './events.js';
import { type MediaBuyRecord, type MediaBuyStatus, type PackageRecord, round2, totalBudget, shownValidActions, availableActions } from './media-buy-record.js';

const KIND = 'media_buy';

export interface MediaBuyServiceDeps {
  records: RecordStore;
  clock: SellerClock;
  events: SellerEvents;
  faults: FaultSet;
}

export class MediaBuyService {
  constructor(private readonly deps: MediaBuyServiceDeps) {}

  newId(): string {
    return `mb_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  }

  newPackageId(): string {
    return `pkg_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  }

  /** A package as booked: fresh id, not paused, nothing delivered yet. */
  newPackage(p: Pick<PackageRecord, 'product_id' | 'pricing_option_id' | 'budget' | 'targeting_overlay'>): PackageRecord {
    return {
      package_id: this.newPackageId(),
      product_id: p.product_id,
      pricing_option_id: p.pricing_option_id,
      budget: p.budget,
      paused: false,
      delivery: { impressions: 0, clicks: 0, spend: 0 },
      ...(p.targeting_overlay ? { targeting_overlay: structuredClone(p.targeting_overlay) } : {}),
    };
  }

  insert(buy: MediaBuyRecord): void {
    this.deps.records.put(KIND, buy.principal, buy.media_buy_id, buy.account_key, buy, Date.parse(buy.created_at));
  }

  /** The clock of the buy's account. */
  clockScope(buy: MediaBuyRecord): ClockScope {
    return { principal: buy.principal, account: buy.account_key };
  }

  /** The time of the buy's account on the seller's clock (ms since the epoch). */
  now(buy: MediaBuyRecord): number {
    return this.deps.clock.now(this.clockScope(buy));
  }

  save(buy: MediaBuyRecord): void {
    buy.updated_at = this.deps.clock.iso(this.clockScope(buy));
    this.insert(buy);
  }

  find(principal: string, id: string): MediaBuyRecord | undefined {
    const buy = this.deps.records.get<MediaBuyRecord>(KIND, principal, id);
    return buy ? this.progressFlight(buy) : undefined;
  }

  /**
   * The account key a call's `account` scopes buys to (interface spec 2.6): none without an account,
   * and none at all for the buggy seller that reads and changes every buy of the buyer.
   */
  scopeOf(account: unknown): string | undefined {
    if (account === undefined || this.deps.faults.has('buys-not-scoped-by-account')) return undefined;
    return accountKeyOf(account);
  }

  /** The buy or MEDIA_BUY_NOT_FOUND (digest 4.4); within a scope (`scopeOf`), a buy of another account of the buyer is not found either. */
  require(principal: string, id: string, field = 'media_buy_id', scope?: string): MediaBuyRecord {
    const buy = this.find(principal, id);
    if (buy && (scope === undefined || buy.account_key === scope)) return buy;
    if (this.deps.faults.has('unknown-buy-wrong-code')) throw invalidRequest(field, `unknown media buy ${JSON.stringify(id)}`);
    throw failure('MEDIA_BUY_NOT_FOUND', `media buy ${JSON.stringify(id)} not found`, { field, recovery: 'correctable' });
  }

  /** The package or PACKAGE_NOT_FOUND (digest 4.4). */
  requirePackage(buy: MediaBuyRecord, packageId: string, field: string): PackageRecord {
    const pkg = buy.packages.find((p) => p.package_id === packageId);
    if (pkg) return pkg;
    if (this.deps.faults.has('unknown-package-wrong-code')) throw invalidRequest(field, `unknown package ${JSON.stringify(packageId)}`);
    throw failure('PACKAGE_NOT_FOUND', `package ${JSON.stringify(packageId)} not found in media buy ${buy.media_buy_id}`, {
      field,
      recovery: 'correctable',
    });
  }

  list(principal: string, accountKey?: string): MediaBuyRecord[] {
    return this.deps.records.list<MediaBuyRecord>(KIND, principal, accountKey).map((b) => this.progressFlight(b));
  }

  /** Moves the buy to a new status, saves it and announces the change. */
  setStatus(buy: MediaBuyRecord, to: MediaBuyStatus, cause: MediaBuyStatusChanged['cause']): void {
    const previous = buy.status;
    buy.status = to;
    // Rejection or cancellation releases the buy's creative assignments (digest 4.2); the buggy
    // seller keeps them on the terminal buy.
    if ((to === 'rejected' || to === 'canceled') && !this.deps.faults.has('terminal-keeps-creative-assignments')) {
      for (const p of buy.packages) delete p.creative_ids;
    }
    this.save(buy);
    if (previous !== to) {
      this.deps.events.emit('media_buy.status_changed', {
        media_buy: buy,
        previous_status: previous,
        status: to,
        cause,
        at: buy.updated_at,
      });
    }
  }

  /**
   * A creative was assigned to the buy: one awaiting creatives leaves `pending_creatives` (digest
   * 4.2) for `pending_start`, or, its flight started, for `active` (`paused` behind a latent
   * create-time hold). The buggy seller leaves it waiting.
   */
  creativesAssigned(buy: MediaBuyRecord): void {
    if (buy.status !== 'pending_creatives' || this.deps.faults.has('creatives-assigned-stays-pending')) return;
    if (this.now(buy) < Date.parse(buy.start_time)) {
      this.setStatus(buy, 'pending_start', 'buyer');
      return;
    }
    const held = buy.hold;
    buy.hold = false;
    this.setStatus(buy, held ? 'paused' : 'active', 'buyer');
  }

  /** Seller-driven flight transitions, applied lazily whenever a buy is read. */
  private progressFlight(buy: MediaBuyRecord): MediaBuyRecord {
    const now = this.now(buy);
    if (buy.status === 'pending_start' && now >= Date.parse(buy.start_time)) {
      const held = buy.hold;
      buy.hold = false;
      this.setStatus(buy, held ? 'paused' : 'active', 'seller');
    }
    if ((buy.status === 'active' || buy.status === 'paused') && now >= Date.parse(buy.end_time)) {
      this.setStatus(buy, 'completed', 'seller');
    }
    return buy;
  }

  /** The media buy as the protocol shows it (interface spec 2.4a). */
  render(buy: MediaBuyRecord): Record<string, unknown> {
    const actions = shownValidActions(buy, this.deps.faults);
    const out: Record<string, unknown> = {
      media_buy_id: buy.media_buy_id,
      status: buy.status,
      revision: buy.revision,
      start_time: buy.start_time,
      end_time: buy.end_time,
      currency: buy.currency,
      total_budget: totalBudget(buy),
      packages: buy.packages.map((p) => ({
        package_id: p.package_id,
        product_id: p.product_id,
        budget: round2(p.budget),
        pricing_option_id: p.pricing_option_id,
        ...(p.paused ? { paused: true } : {}),
        ...(p.cancellation ? { canceled: true, cancellation: { ...p.cancellation } } : {}),
        ...(p.targeting_overlay ? { targeting_overlay: structuredClone(p.targeting_overlay) } : {}),
      })),
      valid_actions: actions,
      available_actions: availableActions(actions, this.deps.faults),
      confirmed_at: buy.confirmed_at,
    };
    if (buy.account !== undefined) out.account = buy.account;
    if (buy.cancellation) out.cancellation = { ...buy.cancellation };
    if (buy.rejection_reason) out.rejection_reason = buy.rejection_reason;
    return out;
  }

  /**
   * The buy as create_media_buy and update_media_buy answer it: the state under both names, 3.0's
   * `status` and `media_buy_status`, which 3.1 adds and 3.2 keeps alone (digest 4.5: identical when
   * both are sent), so a buyer of every 3.x line reads it.
   */
  reply(buy: MediaBuyRecord): Record<string, unknown> {
    const out = this.render(buy);
    return { ...out, media_buy_status: out.status };
  }

  /** The buy's current state as get_media_buys shows it (with `impairments[]`, interface spec 2.4a). */
  renderCurrent(buy: MediaBuyRecord, withWebhookActivity = false): Record<string, unknown> {
    const out = this.render(buy);
    // The creatives assigned to each package (get-media-buys-response.json creative_approvals, absent
    // when none is assigned); sandbox creatives are approved on sync.
    out.packages = (out.packages as Record<string, unknown>[]).map((p, i) => {
      const ids = buy.packages[i]?.creative_ids;
      return ids?.length ? { ...p, creative_approvals: ids.map((creative_id) => ({ creative_id, approval_status: 'approved' })) } : p;
    });
    return { ...out, impairments: [], ...(withWebhookActivity ? { webhook_activity: [] } : {}) };
  }
}
