/**
 * The stored media buy and its state machine (interface spec 2.4a, 3.1; digest 4.1-4.3).
 */
import type { FaultSet } from '../faults.js';

export const MEDIA_BUY_STATUSES = ['pending_creatives', 'pending_start', 'active', 'paused', 'completed', 'rejected', 'canceled'] as const;
export type MediaBuyStatus = (typeof MEDIA_BUY_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<MediaBuyStatus> = new Set(['completed', 'rejected', 'canceled']);
export const PENDING_STATUSES: ReadonlySet<MediaBuyStatus> = new Set(['pending_creatives', 'pending_start']);

export function isTerminal(status: MediaBuyStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

export interface DeliveryCounters {
  impressions: number;
  clicks: number;
  spend: number;
}

export interface PackageRecord {
  package_id: string;
  product_id: string;
  pricing_option_id: string;
  budget: number;
  paused: boolean;
  /** Canceled by the buyer on its own (digest 4.2: packages cancel independently); irreversible. */
  cancellation?: { canceled_at: string; canceled_by: 'buyer' | 'seller'; reason?: string };
  delivery: DeliveryCounters;
  targeting_overlay?: Record<string, unknown>;
  /**
   * Creatives assigned through sync_creatives `assignments`, shown on reads as `creative_approvals`
   * and released when the buy is rejected or canceled (digest 4.2).
   */
  creative_ids?: string[];
}

export interface MediaBuyRecord {
  media_buy_id: string;
  principal: string;
  account_key: string;
  account?: unknown;
  brand?: unknown;
  status: MediaBuyStatus;
  revision: number;
  /** A pause requested while the buy was still pending: latent until the blockers clear (digest 4.2). */
  hold: boolean;
  start_time: string;
  /** The create asked for start_time `asap` (start_time holds the time it resolved to). */
  created_asap?: boolean;
  end_time: string;
  currency: string;
  packages: PackageRecord[];
  created_at: string;
  updated_at: string;
  confirmed_at: string;
  cancellation?: { canceled_at: string; canceled_by?: 'buyer' | 'seller'; reason?: string };
  rejection_reason?: string;
  push_notification_config?: unknown;
  reporting_webhook?: unknown;
  /** The create request's top-level `context`, echoed on the buy's webhooks (interface spec 6.1). */
  context?: unknown;
}

const ACTIVE_ACTIONS = ['pause', 'cancel', 'update_budget', 'update_dates', 'update_packages', 'add_packages', 'sync_creatives'];
const PAUSED_ACTIONS = ['resume', 'cancel', 'update_budget', 'update_dates', 'update_packages', 'add_packages', 'sync_creatives'];
const PENDING_ACTIONS = ['pause', 'cancel', 'sync_creatives'];

/** The actions the buy's state allows, exactly as digest 4.3 lists them. */
export function validActions(buy: Pick<MediaBuyRecord, 'status' | 'hold'>): string[] {
  switch (buy.status) {
    case 'active':
      return [...ACTIVE_ACTIONS];
    case 'paused':
      return [...PAUSED_ACTIONS];
    case 'pending_creatives':
    case 'pending_start':
      return buy.hold ? [...PENDING_ACTIONS, 'resume'] : [...PENDING_ACTIONS];
    default:
      return [];
  }
}

/** `valid_actions` as shown to the buyer (the stale-after-pause fault only affects what is shown). */
export function shownValidActions(buy: Pick<MediaBuyRecord, 'status' | 'hold'>, faults: FaultSet): string[] {
  if (buy.status === 'paused' && faults.has('valid-actions-stale-after-pause')) return [...ACTIVE_ACTIONS];
  return validActions(buy);
}

/**
 * `available_actions`, the structured successor of valid_actions (digest 4.3): the shown actions,
 * each self-serve in the sandbox. The member naming the action is not shown; `action` is used.
 */
export function availableActions(shown: readonly string[], faults: FaultSet): Record<string, string>[] {
  // The buggy seller leaves the mode out of every entry.
  if (faults.has('available-actions-mode-missing')) return shown.map((action) => ({ action }));
  return shown.map((action) => ({ action, mode: 'self_serve' }));
}

export function totalBudget(buy: Pick<MediaBuyRecord, 'packages'>): number {
  return round2(buy.packages.reduce((sum, p) => sum + p.budget, 0));
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
