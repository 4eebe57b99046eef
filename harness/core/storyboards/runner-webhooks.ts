/**
 * The harness's webhook receiver as storyboards see it (digest 6.1, 2.7; the bundle's
 * `test-kits/webhook-receiver-runner.yaml`): the run's one capture receiver on loopback (or behind
 * the public base URL the environment gives, harness/core/webhooks/emission/config.ts), with one
 * capture per transport, storyboard and step named in `{{runner.webhook_url:<step>}}`, so that
 * URL routes deliveries to that step. A capture is made when a request first names it, answering
 * as the storyboard's `expect_webhook_retry_keys_stable` steps on that URL say (their
 * `retry_trigger`: the first `count` deliveries get `http_status`, later ones 200), so it is armed
 * before the trigger runs. A seller off this machine with no public base URL cannot reach the
 * receiver: the step is a coverage gap naming the environment value to set.
 */
import type { CheckContext, StepVerdict } from '../engine/kinds/types.js';
import { isVerdict, receiverSettings, runReceiver, unreachableReceiver } from '../webhooks/emission/run-receiver.js';
import type { AnswerSpec } from '../webhooks/emission/receiver.js';
import type { Storyboard } from './model.js';
import type { StoryboardState } from './state.js';
import type { SubstitutionScope } from './substitute.js';

/** The retry contract's bounds (webhook-receiver-runner.yaml retry_replay_contract; checked at load, shape.ts). */
export const RETRY_DEFAULTS = { count: 3, http_status: 503 } as const;

/** Whether a request names the runner's receiver (`{{runner.webhook_url:…}}`, `{{runner.webhook_base}}`). */
export const namesReceiver = (request: unknown): boolean => /\{\{\s*runner\.webhook_(url|base)/.test(JSON.stringify(request) ?? '');

/** The answers a capture for `{{runner.webhook_url:<urlStep>}}` gives: the retry_trigger of a retry step whose trigger sends that URL. */
function answersFor(sb: Storyboard, urlStep: string): AnswerSpec[] {
  const steps = sb.phases.flatMap((p) => p.steps);
  for (const s of steps) {
    if (s.task !== 'expect_webhook_retry_keys_stable' || typeof s.raw.triggered_by !== 'string') continue;
    const trigger = steps.find((t) => t.id === s.raw.triggered_by);
    const sends = new RegExp(`\\{\\{\\s*runner\\.webhook_url:${urlStep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\}\\}`);
    if (!trigger || !sends.test(JSON.stringify(trigger.sampleRequest) ?? '')) continue;
    const r = (s.raw.retry_trigger ?? {}) as { count?: number; http_status?: number };
    return Array.from({ length: r.count ?? RETRY_DEFAULTS.count }, () => ({ status: r.http_status ?? RETRY_DEFAULTS.http_status }));
  }
  return [];
}

/**
 * The receiver members of a step's substitution scope (none when the request names no receiver),
 * or the verdict when the run cannot give one. The step ids whose URLs the request used are
 * recorded as the step's (state.hookUrlsOf), for the webhook steps triggered by it.
 */
export async function receiverScope(
  ctx: CheckContext,
  sb: Storyboard,
  stepId: string,
  state: StoryboardState,
  request: unknown,
): Promise<Pick<SubstitutionScope, 'webhookUrl' | 'webhookBase'> | StepVerdict> {
  if (!namesReceiver(request)) return {};
  const settings = receiverSettings(ctx);
  if (isVerdict(settings)) return settings;
  const unreachable = unreachableReceiver(ctx, settings);
  if (unreachable) return unreachable;
  const receiver = await runReceiver(ctx, settings);
  const used: string[] = [];
  state.hookUrlsOf.set(stepId, used);
  return {
    webhookBase: receiver.baseUrl,
    webhookUrl: (urlStep) => {
      let capture = state.hooks.get(urlStep);
      if (!capture) state.hooks.set(urlStep, (capture = receiver.create({ answers: answersFor(sb, urlStep), mode: 'signature' })));
      if (!used.includes(urlStep)) used.push(urlStep);
      return capture.url;
    },
  };
}
