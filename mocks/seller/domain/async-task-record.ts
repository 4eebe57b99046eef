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
  /** An A2A-native registration and the A2A task it belongs to (interface spec 6.2: the A2A envelope). */
  a2a_push?: A2aPushRecord;
  result?: unknown;
}

export interface A2aPushRecord {
  config: unknown;
  /** The A2A task (`id`) and context that answered the call. */
  task_id: string;
  context_id: string;
}
