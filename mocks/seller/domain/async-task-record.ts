/** An asynchronous task as the mock seller stores it (interface spec 3.2). */
export type AsyncTaskStatus = 'submitted' | 'working' | 'input-required' | 'completed' | 'failed' | 'canceled';
export const NON_TERMINAL_TASK_STATUSES: ReadonlySet<AsyncTaskStatus> = new Set(['submitted', 'working', 'input-required']);

export interface AsyncTaskRecord {
  task_id: string;
  task_type: string;
  status: AsyncTaskStatus;
  principal: string;
  account_key: string;
  created_at: string;
  updated_at: string;
  message?: string;
  /** The request's top-level `context`, echoed on every webhook delivery (interface spec 6.1). */
  context?: unknown;
  push_notification_config?: unknown;
  result?: unknown;
}
