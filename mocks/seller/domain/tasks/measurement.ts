/** Measurement inputs from the buyer: log_event (conversion events) and provide_performance_feedback. */
import { z } from 'zod';
import { invalidRequest } from '../errors.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { isoDateTime, taskSchema } from '../validation.js';

const eventItem = z.looseObject({
  event_id: z.string().min(1).max(255),
  event_type: z.string().min(1).max(100),
  event_time: isoDateTime,
  action_source: z.string().min(1).optional(),
  custom_data: z.looseObject({ value: z.number().optional(), currency: z.string().length(3).optional() }).optional(),
});
const logEventSchema = taskSchema({
  event_source_id: z.string().min(1).max(255),
  events: z.array(eventItem).min(1).max(1_000),
});
/** Fault event-time-unchecked: any string is taken as the event time. */
const lenientLogEventSchema = logEventSchema.extend({
  events: z
    .array(eventItem.extend({ event_time: z.string() }))
    .min(1)
    .max(1_000),
});

const feedbackSchema = taskSchema({
  media_buy_id: z.string().min(1),
  measurement_period: z.looseObject({ start: isoDateTime, end: isoDateTime }),
  performance_index: z.number().min(0).max(1_000),
  package_id: z.string().min(1).optional(),
});
/** Fault feedback-period-unchecked: any strings are taken as the period. */
const lenientFeedbackSchema = feedbackSchema.extend({ measurement_period: z.looseObject({ start: z.string(), end: z.string() }) });

export function measurementTasks(s: SellerServices): TaskDef[] {
  const logEvent: TaskDef<z.infer<typeof logEventSchema>> = {
    name: 'log_event',
    description: 'Send marketing events (purchases, leads, sign-ups) from an event source.',
    idempotency: 'mutating',
    schema: s.faults.has('event-time-unchecked') ? lenientLogEventSchema : logEventSchema,
    run({ args, caller }) {
      if (s.faults.has('events-refused')) throw invalidRequest('event_source_id', 'unknown event source');
      const seen = new Set<string>();
      let duplicates = 0;
      for (const e of args.events) {
        if (seen.has(e.event_id)) duplicates += 1;
        seen.add(e.event_id);
      }
      const key = `${args.event_source_id}`;
      const counts = s.records.get<{ received: number }>('event_source', caller.principal, key) ?? { received: 0 };
      s.records.put('event_source', caller.principal, key, '', { received: counts.received + seen.size }, s.clock.now());
      return completed({
        event_source_id: args.event_source_id,
        events_received: args.events.length,
        events_processed: seen.size,
        duplicate_events: duplicates,
        partial_failures: [],
      });
    },
  };

  const feedback: TaskDef<z.infer<typeof feedbackSchema>> = {
    name: 'provide_performance_feedback',
    description: 'Report how a media buy performed for the buyer (performance index over a period).',
    idempotency: 'mutating',
    schema: s.faults.has('feedback-period-unchecked') ? lenientFeedbackSchema : feedbackSchema,
    run({ args, caller }) {
      if (s.faults.has('feedback-refused')) throw invalidRequest('media_buy_id', 'feedback is not accepted for this media buy');
      const buy = s.mediaBuys.require(caller.principal, args.media_buy_id);
      if (args.package_id !== undefined) s.mediaBuys.requirePackage(buy, args.package_id, 'package_id');
      if (Date.parse(args.measurement_period.end) <= Date.parse(args.measurement_period.start)) {
        throw invalidRequest('measurement_period.end', 'must be after measurement_period.start');
      }
      return completed({ success: true, media_buy_id: buy.media_buy_id });
    },
  };

  return [logEvent, feedback];
}
