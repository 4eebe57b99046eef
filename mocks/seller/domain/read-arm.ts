/**
 * A get_products or get_signals answer shaped by the test controller (digest 4.6, 3.1+:
 * `force_get_products_arm` / `force_get_signals_arm` with arm `submitted`): the next call naming
 * the account the directive was given for answers `submitted` with the directive's task id, and
 * the task waits for `force_task_completion`.
 */
import type { ReadArmTask } from './async-tasks.js';
import type { SellerServices } from './services.js';
import type { SuccessOutcome, TaskCall } from './task-def.js';

export function forcedReadArm(s: SellerServices, task: ReadArmTask, call: TaskCall<{ context?: unknown }>): SuccessOutcome | undefined {
  const directive = s.asyncTasks.takeReadArm(task, call.caller.principal, call.accountKey);
  if (!directive) return undefined;
  const message = directive.message ?? `${task} submitted for seller review`;
  s.asyncTasks.create({
    task_id: directive.task_id,
    task_type: task,
    status: 'submitted',
    principal: call.caller.principal,
    account_key: call.accountKey,
    message,
    ...(call.args.context !== undefined ? { context: call.args.context } : {}),
  });
  return { kind: 'async', status: 'submitted', taskId: directive.task_id, payload: { status: 'submitted', task_id: directive.task_id, message } };
}
