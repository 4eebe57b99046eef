/** Every task of interface spec 4.3 that the mock seller serves, in tools/list order. */
import type { SellerServices } from '../services.js';
import type { TaskDef } from '../task-def.js';
import { brandTasks } from './brand.js';
import { capabilitiesTask } from './capabilities.js';
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
  return [
    capabilitiesTask(s),
    ...productTasks(s),
    createMediaBuyTask(s),
    updateMediaBuyTask(s),
    ...mediaBuyReadTasks(s),
    ...syncTasks(s),
    ...signalTasks(s),
    ...governanceTasks(s),
    ...measurementTasks(s),
    ...brandTasks(s),
    ...(s.testController ? [controllerTask(s)] : []),
  ];
}
