/** Every task of interface spec 4.3 that the mock seller serves for its agent kinds, in tools/list order. */
import { tasksOfKinds } from '../../../../harness/core/protocol/agent-kinds.js';
import type { SellerServices } from '../services.js';
import type { TaskDef } from '../task-def.js';
import { brandTasks } from './brand.js';
import { agentCapabilitiesTask, capabilitiesTask } from './capabilities.js';
import { agentNotificationsTask } from './agent-notifications.js';
import { controllerTask } from './controller.js';
import { governanceTasks } from './governance.js';
import { measurementTasks } from './measurement.js';
import { createMediaBuyTask } from './media-buy-create.js';
import { mediaBuyReadTasks } from './media-buy-read.js';
import { updateMediaBuyTask } from './media-buy-update.js';
import { productTasks } from './products.js';
import { signalTasks } from './signals.js';
import { syncTasks } from './sync.js';

export function buildTasks(s: SellerServices): TaskDef[] {
  const served = new Set(tasksOfKinds(s.kinds));
  const all = [
    ...productTasks(s),
    createMediaBuyTask(s),
    updateMediaBuyTask(s),
    ...mediaBuyReadTasks(s),
    ...syncTasks(s),
    ...signalTasks(s),
    ...governanceTasks(s),
    ...measurementTasks(s),
    ...brandTasks(s),
  ];
  return [
    capabilitiesTask(s),
    agentCapabilitiesTask(s),
    ...all.filter((t) => served.has(t.name)),
    // Agent-level webhook subscriptions: a 3.2 task (its schemas exist only in the 3.2 betas).
    ...(s.protocolLine === '3.2' ? [agentNotificationsTask(s)] : []),
    ...(s.testController || s.faults.has('controller-served-in-production') ? [controllerTask(s)] : []),
  ];
}
