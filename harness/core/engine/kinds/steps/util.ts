import type { ExpectationDef } from '../../model.js';
import type { AuthOverride, CallOptions, TaskReply } from '../../../transport/types.js';
import type { CheckContext, StepRecord, StepVerdict } from '../types.js';
import type { StepDef } from '../../model.js';
import { describeReply } from '../types.js';
import { isIP } from 'node:net';
import { isReservedAddress } from '../../../net/address-ranges.js';

export const AUTH_FIELD = { enum: ['default', 'none', 'wrong'] } as const;

/** How a step registers its `push_notification_config` (interface spec 2.7, 6.2). */
export const PUSH_CHANNEL_FIELD = { enum: ['arguments', 'a2a-native'] } as const;

/**
 * The call options of a step's push registration: `arguments` (default) sends the protocol's
 * push_notification_config as a task argument on both transports (spec 6.2: the MCP envelope);
 * `a2a-native` sends it as A2A configuration.pushNotificationConfig (the A2A envelope), which MCP
 * does not have, so the step is not applicable there.
 */
export function pushOptions(step: StepDef, ctx: CheckContext): Pick<CallOptions, 'pushNotificationConfig' | 'a2aPushNotificationConfig'> | StepVerdict {
  if (step.push_notification_config === undefined) return {};
  const push = ctx.expand(step.push_notification_config) as Record<string, unknown>;
  if (step.push_channel !== 'a2a-native') return { pushNotificationConfig: push };
  if (ctx.kind !== 'a2a')
    return { status: 'not_applicable', message: 'A2A-native push registration (configuration.pushNotificationConfig) exists only on A2A' };
  return { a2aPushNotificationConfig: push };
}

export const DEFAULT_EXPECT: ExpectationDef[] = [{ kind: 'success' }];

export function authOverride(mode: string | undefined, ctx: CheckContext): AuthOverride {
  switch (mode) {
    case 'none':
      return { mode: 'none' };
    case 'wrong':
      return { mode: 'bearer', token: `proto-comply-wrong-${ctx.random.alias('uuid', '__wrong_bearer', (r) => r.uuid())}` };
    default:
      return { mode: 'default' };
  }
}

/**
 * A reply that never arrived because the agent stopped answering on the network: the step could
 * not be carried out, so the check is blocked by the transport itself (`transport.<kind>`), never
 * passed and never failed on a rule it could not probe.
 */
export function unreachable(reply: TaskReply): StepVerdict | undefined {
  if (reply.failure?.kind === 'network') {
    return { status: 'unmet', message: `the agent could not be reached: ${reply.failure.message}`, blocked_by: `transport.${reply.transport}` };
  }
  if (reply.failure?.kind === 'refused') {
    return { status: 'unmet', message: `the harness did not call the agent: ${reply.failure.message}`, blocked_by: `transport.${reply.transport}` };
  }
  return undefined;
}

export function judgeReply(expect: ExpectationDef[] | undefined, reply: TaskReply, record: StepRecord, ctx: CheckContext): StepVerdict {
  const down = unreachable(reply);
  if (down) return down;
  const j = ctx.judge(expect ?? DEFAULT_EXPECT, { reply, record });
  if (j.ok) return { status: 'ok' };
  return {
    status: 'failed',
    message: `${reply.task}: ${j.message ?? `unexpected ${describeReply(reply)}`}`,
    expected: j.expected,
    actual: j.actual,
    pointer: j.pointer,
    ...(j.owner ? { owner: j.owner } : {}),
  };
}

/** What a seller may refuse in a push URL (digest 5.9): not https, or a reserved address (IP literal or localhost). */
function refusablePushUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isReservedAddress(host))) return `${host} is a reserved address`;
  if (u.protocol !== 'https:') return `it is not https`;
  return undefined;
}

/** Where a step registers webhook URLs: its push registration (MCP-style or A2A-native) and a reporting_webhook argument. */
export interface RegisteredHooks {
  push?: Record<string, unknown>;
  args?: Record<string, unknown>;
}

/** Names under which a seller's refusal of a registered URL shows (error field or message). */
const REGISTRATION_FIELDS = ['push_notification_config', 'pushNotificationConfig', 'reporting_webhook'];

/**
 * A step that registered a webhook URL digest 5.9 lets the seller refuse (http, or a reserved
 * address such as the loopback capture receiver of a local run), through push_notification_config,
 * an A2A-native pushNotificationConfig or a reporting_webhook, and got an error naming that
 * registration: the seller followed the SSRF rules, so what the step needed is a coverage gap (a
 * public https receiver), never a failure. Only for a step whose expectations failed; a step that
 * expects the refusal judges it itself.
 */
export function refusedPushUrl(hooks: RegisteredHooks, reply: TaskReply, verdict: StepVerdict, ctx: CheckContext): StepVerdict {
  if (verdict.status !== 'failed' || !reply.isError || !reply.error) return verdict;
  const reporting = hooks.args?.reporting_webhook;
  const urls = [hooks.push?.url, typeof reporting === 'object' && reporting !== null ? (reporting as Record<string, unknown>).url : undefined];
  const why = urls.map(refusablePushUrl).find((w) => w !== undefined);
  const raw = reply.error.raw as { field?: unknown } | undefined;
  const field = typeof raw?.field === 'string' ? raw.field : '';
  const named = REGISTRATION_FIELDS.some((f) => field.startsWith(f) || reply.error!.message.includes(f));
  if (!why || !named) return verdict;
  return {
    status: 'gap',
    gap: 'public https webhook receiver',
    message: `the seller refused the push URL (${why}; digest 5.9 lets it): ${describeReply(reply)}; give the run a public https receiver (${ctx.ids.runnerWebhookEnv} and PROTO_COMPLY_WEBHOOK_LISTEN)`,
  };
}
