/**
 * The run's one webhook capture receiver as checks reach it (the `webhooks` suite and the
 * storyboards' webhook steps share it): the settings from the environment (config.ts), the
 * receiver opened once per run and closed at its end, the coverage gap when a seller off this
 * machine could not reach a loopback receiver, and what verification of a capture needs (the
 * seller's published keys, the run's replay cache).
 */
import type { CheckContext, StepVerdict } from '../../engine/kinds/types.js';
import { EmissionConfigError, emissionSettings, isLoopbackHost, LISTEN_ENV, type EmissionSettings } from './config.js';
import { runReplayCache, sellerKeys } from './keys.js';
import { type Capture, CaptureReceiver } from './receiver.js';
import type { VerifyEnv } from './verify.js';

/** The receiver of the run, opened on first use. */
export function runReceiver(ctx: CheckContext, settings: EmissionSettings): Promise<CaptureReceiver> {
  return ctx.resources.get('webhooks.emission.receiver', async () => {
    const r = await CaptureReceiver.open(settings, ctx.ids, ctx.run.redactor);
    return { value: r, close: () => r.close() };
  });
}

/** The receiver settings, or the step's `unmet` verdict naming a bad environment value. */
export function receiverSettings(ctx: CheckContext): EmissionSettings | StepVerdict {
  try {
    return emissionSettings(ctx.ids);
  } catch (err) {
    if (err instanceof EmissionConfigError) return { status: 'unmet', message: err.message };
    throw err;
  }
}

export function isVerdict(v: unknown): v is StepVerdict {
  return typeof v === 'object' && v !== null && 'status' in v;
}

/** The gap when the seller is not on this machine and no public base URL forwards to the receiver. */
export function unreachableReceiver(ctx: CheckContext, settings: EmissionSettings): StepVerdict | undefined {
  const host = new URL(ctx.transport.endpoint).hostname;
  if (settings.publicBaseUrl !== undefined || isLoopbackHost(host)) return undefined;
  return {
    status: 'gap',
    gap: 'public webhook receiver URL',
    message: `the seller at ${host} cannot reach the harness's loopback webhook receiver; set ${ctx.ids.runnerWebhookEnv} to a public https URL that forwards to the receiver (and ${LISTEN_ENV} to the port it forwards to)`,
  };
}

/** What verifying a capture's deliveries needs: the run's replay cache and, for RFC 9421, the seller's keys. */
export async function verifyEnvOf(ctx: CheckContext, capture: Capture, settings: EmissionSettings): Promise<VerifyEnv> {
  const env: VerifyEnv = { ids: ctx.ids, replayCache: await runReplayCache(ctx), behindProxy: settings.publicBaseUrl !== undefined };
  if (capture.spec.mode === 'signature') {
    try {
      env.resolver = (await sellerKeys(ctx)).resolver;
    } catch (err) {
      env.resolverProblem = (err as Error).message;
    }
  }
  return env;
}
