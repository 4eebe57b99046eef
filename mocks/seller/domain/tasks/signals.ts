/** Signals: get_signals (segments with pricing, coverage, activation options) and activate_signal. */
import { forcedReadArm } from '../read-arm.js';
import { z } from 'zod';
import { invalidRequest } from '../errors.js';
import type { SignalSegment } from '../catalog.js';
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { paginate, paginationArg } from '../pagination.js';
import { accountRef, taskSchema } from '../validation.js';

const getSignalsSchema = taskSchema({
  signal_spec: z.string().min(1).max(10_000),
  account: accountRef.optional(),
  max_results: z.number().int().positive().max(100).optional(),
  pagination: paginationArg,
});

const destination = z.looseObject({
  type: z.string().min(1),
  platform: z.string().min(1).optional(),
  agent_url: z.string().min(1).optional(),
  account: z.string().optional(),
});
const activateSchema = taskSchema({
  signal_agent_segment_id: z.string().min(1),
  account: accountRef.optional(),
  destinations: z.array(destination).min(1).max(20),
});

/** A segment as get_signals lists it: interface spec fields plus the released 3.0 members (signal_id, pricing_options). */
function render(segment: SignalSegment, withId: boolean, agentUrl: string) {
  const { keywords: _k, signal_agent_segment_id, ...rest } = segment;
  return {
    signal_id: { source: 'agent', agent_url: agentUrl, id: signal_agent_segment_id },
    ...(withId ? { signal_agent_segment_id } : {}),
    ...rest,
    pricing_options: [{ pricing_option_id: `${signal_agent_segment_id}_cpm`, model: 'cpm', cpm: segment.pricing.cpm, currency: segment.pricing.currency }],
    deployments: [{ type: 'platform', platform: 'sandbox-dsp', is_live: false, estimated_activation_duration_minutes: 0 }],
  };
}

export function signalTasks(s: SellerServices): TaskDef[] {
  const getSignals: TaskDef<z.infer<typeof getSignalsSchema>> = {
    name: 'get_signals',
    description: 'Find audience signal segments matching a natural-language spec, with pricing and coverage.',
    idempotency: 'read',
    schema: getSignalsSchema,
    run(call) {
      const { args } = call;
      const forced = forcedReadArm(s, 'get_signals', call);
      if (forced) return forced;
      const text = args.signal_spec.toLowerCase();
      const matching = s.catalog.signals.filter((seg) => seg.keywords.some((k) => text.includes(k)));
      const chosen = (matching.length > 0 ? matching : s.catalog.signals).slice(0, args.max_results ?? 10);
      const page = paginate(chosen, args.pagination);
      return completed({
        signals: page.items.map((seg) => render(seg, !s.faults.has('signals-without-segment-id'), s.catalog.agentUrl)),
        pagination: page.pagination,
      });
    },
  };

  const activateSignal: TaskDef<z.infer<typeof activateSchema>> = {
    name: 'activate_signal',
    description: 'Activate a signal segment on one or more destination platforms.',
    idempotency: s.faults.has('activate-signal-not-idempotent') ? 'exempt' : 'mutating',
    schema: activateSchema,
    run({ args, clockScope }) {
      const segment =
        s.catalog.signal(args.signal_agent_segment_id) ??
        (s.faults.has('activate-unknown-segment-accepted') ? { signal_agent_segment_id: args.signal_agent_segment_id } : undefined);
      if (s.faults.has('activate-signal-refuses-platform')) throw invalidRequest('destinations', 'no destination platform is supported');
      if (!segment) {
        throw invalidRequest('signal_agent_segment_id', `unknown segment ${JSON.stringify(args.signal_agent_segment_id)}`);
      }
      const deployedAt = s.clock.iso(clockScope);
      return completed({
        signal_agent_segment_id: segment.signal_agent_segment_id,
        deployments: args.destinations.map((d) => ({
          type: d.type,
          ...(d.platform ? { platform: d.platform } : {}),
          // A sales-agent destination is named by its URL (required there by the released 3.0 schema).
          ...(d.agent_url ? { agent_url: d.agent_url } : {}),
          ...(d.account ? { account: d.account } : {}),
          is_live: true,
          activation_key: { type: 'segment_id', segment_id: `${segment.signal_agent_segment_id}_${d.platform ?? d.type}` },
          deployed_at: deployedAt,
        })),
      });
    },
  };

  return [getSignals, activateSignal];
}
