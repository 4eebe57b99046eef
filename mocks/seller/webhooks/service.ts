/**
 * The mock seller's webhook emission (interface spec 3.2, 6; digest 5), driven by the seller's
 * event stream:
 * - task status changes of async tasks (first answer `submitted` / `input-required`) go to the
 *   task's `push_notification_config` in the MCP envelope and to its A2A-native registration in
 *   the A2A envelope (spec 6.2: the channel decides the envelope; both registered, both fire); an
 *   inline terminal answer never produces a webhook;
 * - a buy moving from `pending_start` to `active` is announced on its persistent channels
 *   (`push_notification_config`, `reporting_webhook`; spec 3.1, 6.4), signed like every delivery;
 * - `simulate_delivery` fires a `scheduled` delivery report on the buy's `reporting_webhook`
 *   with the next `sequence_number`; a terminal status fires the `final` report, after which
 *   nothing more fires for the buy;
 * - impairments are coalesced per buy and pushed on the buy's persistent channel.
 * The registration is read from the buy at fire time, so `update_media_buy` takes effect from
 * the next fire.
 */
import type { ProtocolIds } from '../../../harness/core/token.js';
import { type AsyncTaskRecord, NON_TERMINAL_TASK_STATUSES } from '../domain/async-task-record.js';
import type { DeliverySimulated, MediaBuyStatusChanged, SellerEvents, TaskStatusChanged } from '../domain/events.js';
import { type MediaBuyRecord, isTerminal } from '../domain/media-buy-record.js';
import type { MediaBuyService } from '../domain/media-buys.js';
import { isPlainObject } from '../domain/task-def.js';
import type { FaultSet } from '../faults.js';
import type { RecordStore } from '../store/record-store.js';
import { type ActivityEntry, WebhookActivity } from './activity.js';
import { ChannelStore } from './channels.js';
import { a2aTaskEnvelope } from './envelopes/a2a.js';
import { buyStatusEnvelope, deliveryReportEnvelope, impairmentEnvelope, inlineResultEnvelope, taskEnvelope } from './envelopes/mcp.js';
import { checkCoalescingWindows, ImpairmentCoalescer, MAX_COALESCE_WINDOW_MS, type CoalescingWindows } from './impairments.js';
import type { SellerWebhookKeys } from './keys.js';
import { type WebhookRegistration, parseRegistration, registrationOf } from './registration.js';
import { type RetryPolicy, WebhookSender } from './sender.js';
import type { WebhookAdmission } from './admission.js';
import type { AddressPolicy } from '../../../harness/core/net/address-policy.js';
import { AccountSubscribers, type SubscriberDeps } from './account-subscribers.js';
import { AgentSubscribers } from './agent-subscribers.js';
import { SubscriberChallenger } from './subscriptions.js';

/** Statuses that trigger a task webhook (interface spec 3.2 rule 3). */
const WEBHOOK_TASK_STATUSES = new Set(['working', 'input-required', 'completed', 'failed', 'canceled']);
export const DEFAULT_IMPAIRMENT_WINDOW_MS = 100;

/** The windows the service coalesces with: the configured one, or a fault's. */
function coalescingWindows(generalMs: number, faults: FaultSet): CoalescingWindows {
  const w = { generalMs, latencySensitiveMs: 0 };
  checkCoalescingWindows(w);
  if (faults.has('webhook-impairments-not-coalesced')) return { generalMs: 0, latencySensitiveMs: 0 };
  if (faults.has('webhook-impairment-window-exceeded')) w.generalMs = 2 * MAX_COALESCE_WINDOW_MS;
  if (faults.has('webhook-impairment-latency-held')) w.latencySensitiveMs = MAX_COALESCE_WINDOW_MS;
  return w;
}

export interface WebhookServiceDeps {
  ids: ProtocolIds;
  faults: FaultSet;
  records: RecordStore;
  events: SellerEvents;
  mediaBuys: MediaBuyService;
  keys: SellerWebhookKeys;
  retry: RetryPolicy;
  timeoutMs: number;
  /** General impairments' coalescing window (seller time, within the 5-minute default). */
  impairmentWindowMs: number;
  /** Registration-time URL policy and per-principal bound. */
  admission: WebhookAdmission;
  /** Deliveries connect through it, pinned to the addresses it checked. */
  addressPolicy?: AddressPolicy;
  log: (line: string) => void;
  /** A 3.0 seller takes a registration without operation_id, echoing the URL's last segment (the 3.0 contract). */
  operationIdFromUrl?: boolean;
  /** The seller's agent URL per transport (named as `seller_agent_url` in activation challenges). */
  agentUrls?: { mcp: string; a2a: string };
}

export interface InlineCompletion {
  principal: string;
  taskType: string;
  /** Default completed; failed for an inline refusal (the payload is then the error). */
  status?: 'completed' | 'failed';
  registration: unknown;
  context: unknown;
  payload: unknown;
  at: string;
}

export class WebhookService {
  private readonly sender: WebhookSender;
  private readonly activity: WebhookActivity;
  private readonly channels: ChannelStore;
  private readonly coalescer: ImpairmentCoalescer;
  private readonly unsubscribe: (() => void)[];
  private readonly challenger: SubscriberChallenger;
  /** Account-level subscribers (3.1 sync_accounts notification_configs[]). */
  readonly subscribers: AccountSubscribers;
  /** Agent-level subscribers (3.2 sync_agent_notification_configs). */
  readonly agentSubscribers: AgentSubscribers;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.activity = new WebhookActivity(deps.records);
    this.channels = new ChannelStore(deps.records);
    this.sender = new WebhookSender({ ...deps, activity: this.activity });
    this.coalescer = new ImpairmentCoalescer(
      coalescingWindows(deps.impairmentWindowMs, deps.faults),
      (principal, id) => this.buyClock(principal, id),
      (principal, id, items) => this.pushImpairments(principal, id, items),
    );
    this.challenger = new SubscriberChallenger(deps);
    // Account-level (sync_accounts) and agent-level (3.2) subscriptions: the same challenger and sender.
    const subscriberDeps: SubscriberDeps = {
      records: deps.records,
      challenger: this.challenger,
      faults: deps.faults,
      send: (e) => this.sender.send(e),
      now: () => Date.now(),
    };
    this.subscribers = new AccountSubscribers(subscriberDeps);
    this.agentSubscribers = new AgentSubscribers(subscriberDeps);
    this.unsubscribe = [
      deps.events.on('creative.status_changed', (e) => this.subscribers.creativeStatusChanged(e)),
      deps.events.on('task.status_changed', (e) => this.onTaskStatus(e)),
      deps.events.on('delivery.simulated', (e) => this.onDelivery(e)),
      deps.events.on('media_buy.status_changed', (e) => this.onBuyStatus(e)),
    ];
  }

  /** The signing keys (their public halves are served at /.well-known/jwks.json). */
  get keys(): SellerWebhookKeys {
    return this.deps.keys;
  }

  /** Validates a registration at request time (INVALID_REQUEST for Bearer, no operation_id, ...). */
  checkRegistration(value: unknown, field: string): WebhookRegistration {
    const reg = parseRegistration(value, field, this.deps.log, {
      acceptBearer: this.deps.faults.has('webhook-bearer-accepted'),
      acceptShortSecret: this.deps.faults.has('short-credential-accepted'),
      operationIdFromUrl: this.deps.operationIdFromUrl === true,
    });
    // Kept with the registration as stored, so every later delivery echoes the same id.
    if (isPlainObject(value) && value.operation_id === undefined) value.operation_id = reg.operation_id;
    return reg;
  }

  /** The agent URL a caller of this transport talks to. */
  agentUrl(transport: string): string {
    const urls = this.deps.agentUrls ?? { mcp: 'http://seller.invalid/mcp', a2a: 'http://seller.invalid/a2a' };
    return transport === 'a2a' ? urls.a2a : urls.mcp;
  }

  /** Refuses a registration URL that is not https or not public (digest 5.9), or one too many for the principal (INVALID_REQUEST). */
  admitRegistration(value: unknown, field: string, principal: string): Promise<void> {
    return this.deps.admission.admit(value, field, principal);
  }

  /** An inline terminal answer: no webhook, no invented task id (spec 3.2 rule 1), unless a fault says otherwise. */
  inlineCompletion(c: InlineCompletion): void {
    const status = c.status ?? 'completed';
    if (!this.deps.faults.has(status === 'failed' ? 'webhook-on-inline-failure' : 'webhook-on-terminal-response')) return;
    const reg = registrationOf(c.registration);
    if (!reg) return;
    this.sender.send({ principal: c.principal, reg, envelope: inlineResultEnvelope(c.taskType, status, c.payload, c.at, reg, this.deps.faults, c.context) });
  }

  activityFor(principal: string, mediaBuyId: string): ActivityEntry[] {
    return this.activity.list(principal, mediaBuyId);
  }

  impairmentsFor(principal: string, mediaBuyId: string): Record<string, unknown>[] {
    return this.channels.get(principal, mediaBuyId).impairments;
  }

  /** Records an impairment on the buy and queues its (coalesced) push. */
  addImpairment(buy: MediaBuyRecord, impairment: Record<string, unknown>): void {
    this.channels.update(buy.principal, buy.media_buy_id, (s) => s.impairments.push(impairment));
    this.coalescer.add(buy.principal, buy.media_buy_id, impairment);
  }

  /** The test controller moved the seller's clock: impairment batches now due are pushed. */
  clockAdvanced(): void {
    this.coalescer.tick();
  }

  /** Resolves once nothing is being delivered or waiting for a retry (tests). */
  idle(): Promise<void> {
    return this.sender.idle();
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe) off();
    this.coalescer.close();
    await this.sender.close();
    await this.challenger.close();
  }

  private onTaskStatus(e: TaskStatusChanged): void {
    const task: AsyncTaskRecord = e.task;
    if (!WEBHOOK_TASK_STATUSES.has(e.status)) return;
    const { faults } = this.deps;
    const reg = registrationOf(task.push_notification_config);
    const native = task.a2a_push ? registrationOf(task.a2a_push.config) : undefined;
    const result = task.result;
    const mediaBuyId = isPlainObject(result) && typeof result.media_buy_id === 'string' ? result.media_buy_id : undefined;
    const out = { principal: task.principal, ...(mediaBuyId ? { mediaBuyId } : {}) };
    // Both channels registered: both fire (spec 6.2), unless a fault drops the protocol's own.
    if (reg && !(native && faults.has('webhook-a2a-one-channel'))) {
      // Fault: a progress update that lost the race is still posted, after the terminal status.
      const stale =
        faults.has('webhook-progress-after-terminal') && !NON_TERMINAL_TASK_STATUSES.has(e.status as AsyncTaskRecord['status'])
          ? { ...out, reg, envelope: taskEnvelope(task, 'working', e.at, reg, faults) }
          : undefined;
      this.sender.send({ ...out, reg, envelope: taskEnvelope(task, e.status, e.at, reg, faults), ...(stale ? { followedBy: stale } : {}) });
    }
    if (native && task.a2a_push) {
      const envelope = faults.has('webhook-a2a-native-as-mcp')
        ? taskEnvelope(task, e.status, e.at, native, faults)
        : a2aTaskEnvelope(task, task.a2a_push, e.status, e.at, native, faults);
      this.sender.send({ ...out, reg: native, envelope });
    }
  }

  private terminated(buy: MediaBuyRecord): boolean {
    return this.channels.get(buy.principal, buy.media_buy_id).final_sent && !this.deps.faults.has('webhook-events-after-final');
  }

  private onDelivery(e: DeliverySimulated): void {
    const buy = e.media_buy;
    const reg = registrationOf(buy.reporting_webhook);
    if (!reg || this.terminated(buy)) return;
    this.report(buy, reg, 'scheduled', e.at);
  }

  private onBuyStatus(e: MediaBuyStatusChanged): void {
    const buy = e.media_buy;
    if (e.previous_status === 'pending_start' && e.status === 'active') this.announceStart(buy, e.previous_status, e.at);
    if (!isTerminal(e.status as MediaBuyRecord['status'])) return;
    const state = this.channels.get(buy.principal, buy.media_buy_id);
    if (state.final_sent) return;
    this.coalescer.flush(buy.principal, buy.media_buy_id);
    const reg = registrationOf(buy.reporting_webhook);
    if (reg && !this.deps.faults.has('webhook-no-final-report')) this.report(buy, reg, 'final', e.at);
    this.channels.update(buy.principal, buy.media_buy_id, (s) => (s.final_sent = true));
  }

  /** The start of flight, announced with a signed webhook on the buy's persistent channels (spec 3.1, 6.4). */
  private announceStart(buy: MediaBuyRecord, previous: string, at: string): void {
    if (this.deps.faults.has('webhook-no-start-announcement') || this.terminated(buy)) return;
    for (const reg of this.persistentChannels(buy)) {
      this.sender.send({ principal: buy.principal, mediaBuyId: buy.media_buy_id, reg, envelope: buyStatusEnvelope(buy, previous, at, reg, this.deps.faults) });
    }
  }

  /** A buy's persistent channels (spec 6.4: its push_notification_config and reporting_webhook), one push per URL. */
  private persistentChannels(buy: MediaBuyRecord): WebhookRegistration[] {
    const out: WebhookRegistration[] = [];
    for (const reg of [registrationOf(buy.push_notification_config), registrationOf(buy.reporting_webhook)]) {
      if (reg && !out.some((r) => r.url === reg.url)) out.push(reg);
    }
    return out;
  }

  private report(buy: MediaBuyRecord, current: WebhookRegistration, type: 'scheduled' | 'final', at: string): void {
    let periodStart = at;
    let reg = current;
    const state = this.channels.update(buy.principal, buy.media_buy_id, (s) => {
      // The registration is read at fire time, so an update applies from the next fire (spec 6.5 rule 11);
      // the fault keeps posting to the URL of the first fire.
      s.first_report_webhook ??= buy.reporting_webhook;
      if (this.deps.faults.has('webhook-config-update-ignored')) reg = registrationOf(s.first_report_webhook) ?? current;
      s.sequence += 1;
      const start = s.reported_until ?? buy.start_time;
      if (start < at) periodStart = start;
      s.reported_until = at;
    });
    const envelope = deliveryReportEnvelope({ buy, notificationType: type, sequence: state.sequence, periodStart, at }, reg, this.deps.faults);
    this.sender.send({ principal: buy.principal, mediaBuyId: buy.media_buy_id, reg, envelope });
  }

  /** Coalescing deadlines are kept on the clock of the buy's account (a buy gone: wall time). */
  private buyClock(principal: string, mediaBuyId: string): number {
    const buy = this.deps.mediaBuys.find(principal, mediaBuyId);
    return buy ? this.deps.mediaBuys.now(buy) : Date.now();
  }

  private pushImpairments(principal: string, mediaBuyId: string, items: Record<string, unknown>[]): void {
    const buy = this.deps.mediaBuys.find(principal, mediaBuyId);
    if (!buy || this.terminated(buy)) return;
    for (const reg of this.persistentChannels(buy)) {
      this.sender.send({ principal, mediaBuyId, reg, envelope: impairmentEnvelope(buy, items, new Date().toISOString(), reg, this.deps.faults) });
    }
  }
}
