/**
 * sync_agent_notification_configs (3.2 betas, protocol/sync-agent-notification-configs-*.json;
 * digest 5.2, 5.9): the caller's complete set of agent-level webhook subscribers, validated, each
 * new active one proven by the signed activation challenge of scope agent, then replaced and
 * echoed. Any failing entry fails the replacement and leaves the previous set. Served at 3.2 only.
 */
import { z } from 'zod';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { taskSchema } from '../validation.js';
import { TaskFailure } from '../errors.js';
import { AGENT_EVENT_TYPES, type NotificationConfig } from '../../webhooks/subscriptions.js';

export const AGENT_NOTIFICATIONS_TASK = 'sync_agent_notification_configs';

const agentConfig = z.looseObject({
  subscriber_id: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/),
  url: z.string().min(1).max(2_048),
  event_types: z.array(z.string().min(1).max(64)).min(1).max(8),
  active: z.boolean().optional(),
});
const schema = taskSchema({ notification_configs: z.array(z.unknown()).max(16), dry_run: z.boolean().optional() });

export function agentNotificationsTask(s: SellerServices): TaskDef<z.infer<typeof schema>> {
  return {
    name: AGENT_NOTIFICATIONS_TASK,
    description: 'Replace the caller-scoped agent-level webhook subscribers (capabilities.changed).',
    idempotency: 'mutating',
    schema,
    async run({ args, caller }) {
      const current = s.webhooks.agentSubscribers.list(caller.principal);
      const failed = (field: string, message: string, code = 'INVALID_REQUEST') =>
        completed({ action: 'failed', notification_configs: current, errors: [{ code, message: `${field}: ${message}`, field }] });
      const configs: NotificationConfig[] = [];
      for (const [j, raw] of args.notification_configs.entries()) {
        const field = `notification_configs[${j}]`;
        const parsed = agentConfig.safeParse(raw);
        if (!parsed.success) return failed(field, 'not an agent notification config {subscriber_id, url, event_types[], active?}');
        const bad = parsed.data.event_types.findIndex((t) => !AGENT_EVENT_TYPES.has(t));
        if (bad >= 0) return failed(`${field}.event_types[${bad}]`, 'not an agent-level notification type (capabilities.changed)');
        if (configs.some((c) => c.subscriber_id === parsed.data.subscriber_id)) return failed(`${field}.subscriber_id`, 'duplicate subscriber_id');
        try {
          await s.webhooks.admitRegistration({ url: parsed.data.url }, field, caller.principal);
        } catch (err) {
          if (err instanceof TaskFailure) return failed(`${field}.url`, err.message.replace(`${field}.url: `, ''));
          throw err;
        }
        const { subscriber_id, url, event_types } = parsed.data;
        configs.push({ subscriber_id, url, event_types: [...new Set(event_types)], active: parsed.data.active ?? true });
      }
      const same = JSON.stringify(current) === JSON.stringify(configs);
      if (args.dry_run === true)
        return completed({ dry_run: true, action: same ? 'unchanged' : configs.length === 0 ? 'cleared' : 'updated', notification_configs: configs });
      const unproven = await s.webhooks.agentSubscribers.replace(caller.principal, configs, s.webhooks.agentUrl(caller.transport));
      if (unproven !== undefined)
        return failed(`notification_configs[${unproven}].url`, 'the endpoint did not prove control (activation challenge)', 'VALIDATION_ERROR');
      return completed({
        action: same ? 'unchanged' : configs.length === 0 ? 'cleared' : 'updated',
        notification_configs: s.webhooks.agentSubscribers.list(caller.principal),
      });
    },
  };
}
