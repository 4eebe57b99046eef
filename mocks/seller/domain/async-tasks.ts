/**
 * Asynchronous tasks (interface spec 3.2) and the controller directive that makes the next
 * create_media_buy answer asynchronously (digest 4.6 `force_create_media_buy_arm`). A task's
 * registered `push_notification_config` and request `context` are stored with it, and every
 * status change after the first answer is announced as `task.status_changed`.
 */
import type { RecordStore } from '../store/record-store.js';
import type { SellerClock } from './clock.js';
import type { SellerEvents } from './events.js';
import { NON_TERMINAL_TASK_STATUSES, type AsyncTaskRecord, type AsyncTaskStatus } from './async-task-record.js';

export { NON_TERMINAL_TASK_STATUSES, type AsyncTaskRecord, type AsyncTaskStatus };

const TASK_KIND = 'async_task';
const ARM_KIND = 'create_arm';
/** Directive scope that matches any account of the principal. */
export const ANY_ACCOUNT = '*';

export interface CreateArmDirective {
  arm: 'submitted' | 'input-required';
  task_id?: string;
  message?: string;
  account_key: string;
}

export type ReadArmTask = 'get_products' | 'get_signals';

export interface ReadArmDirective {
  arm: 'submitted';
  task_id: string;
  message?: string;
  account_key: string;
}

export class AsyncTaskService {
  constructor(
    private readonly records: RecordStore,
    private readonly clock: SellerClock,
    private readonly events: SellerEvents,
  ) {}

  create(task: Omit<AsyncTaskRecord, 'created_at' | 'updated_at'>): AsyncTaskRecord {
    const scope = { principal: task.principal, account: task.account_key };
    const now = this.clock.iso(scope);
    const record: AsyncTaskRecord = { ...task, created_at: now, updated_at: now };
    this.records.put(TASK_KIND, record.principal, record.task_id, record.account_key, record, this.clock.now(scope));
    return record;
  }

  find(principal: string, taskId: string): AsyncTaskRecord | undefined {
    return this.records.get<AsyncTaskRecord>(TASK_KIND, principal, taskId);
  }

  /** Moves a task to a new status and announces it (webhook-triggering statuses, interface spec 3.2 rule 3). */
  transition(task: AsyncTaskRecord, status: AsyncTaskStatus, result?: unknown): AsyncTaskRecord {
    const previous = task.status;
    const updated: AsyncTaskRecord = { ...task, status, updated_at: this.clock.iso({ principal: task.principal, account: task.account_key }) };
    if (result !== undefined) updated.result = result;
    this.records.put(TASK_KIND, updated.principal, updated.task_id, updated.account_key, updated, Date.parse(task.created_at));
    this.events.emit('task.status_changed', { task: updated, previous_status: previous, status, at: updated.updated_at });
    return updated;
  }

  /** The `replay-refires-webhook` fault: announces the task's current status once more. */
  reannounce(task: AsyncTaskRecord): void {
    this.events.emit('task.status_changed', {
      task,
      previous_status: task.status,
      status: task.status,
      at: this.clock.iso({ principal: task.principal, account: task.account_key }),
    });
  }

  setArm(principal: string, directive: CreateArmDirective): void {
    this.records.put(ARM_KIND, principal, directive.account_key, directive.account_key, directive, this.clock.now());
  }

  /**
   * `force_get_products_arm` / `force_get_signals_arm` (digest 4.6, 3.1+): the next get_products or
   * get_signals naming this account answers `submitted` with the task id. Scoped to the account the
   * controller call named (a call without one is not shaped), so another caller's discovery is not.
   */
  setReadArm(task: ReadArmTask, principal: string, directive: ReadArmDirective): void {
    this.records.put(`${task}_arm`, principal, directive.account_key, directive.account_key, directive, this.clock.now());
  }

  /** Consumes the read directive for this account, if any. */
  takeReadArm(task: ReadArmTask, principal: string, accountKey: string): ReadArmDirective | undefined {
    if (!accountKey) return undefined;
    const directive = this.records.get<ReadArmDirective>(`${task}_arm`, principal, accountKey);
    if (directive) this.records.delete(`${task}_arm`, principal, accountKey);
    return directive;
  }

  /** Consumes the directive for this account (or the principal-wide one), if any. */
  takeArm(principal: string, accountKey: string): CreateArmDirective | undefined {
    for (const key of [accountKey, ANY_ACCOUNT]) {
      const directive = this.records.get<CreateArmDirective>(ARM_KIND, principal, key);
      if (directive) {
        this.records.delete(ARM_KIND, principal, key);
        return directive;
      }
    }
    return undefined;
  }
}
