/** refusedPushUrl: a push URL digest 5.9 lets a seller refuse turns the failed step into a coverage gap, nothing else does. */
import { describe, expect, it } from 'vitest';
import type { TaskReply } from '../../../transport/types.js';
import { protocolIds } from '../../../token.js';
import type { CheckContext, StepVerdict } from '../types.js';
import { refusedPushUrl } from './util.js';

const ctx = { ids: protocolIds('acme') } as CheckContext;
const failed: StepVerdict = { status: 'failed', message: 'expected a successful reply' };

function refusal(message: string, field?: string): TaskReply {
  return {
    transport: 'mcp',
    task: 'create_media_buy',
    ok: true,
    isError: true,
    status: 'failed',
    payloadSource: 'structured_content',
    error: { code: 'INVALID_REQUEST', message, source: 'structured_content', raw: { code: 'INVALID_REQUEST', message, ...(field ? { field } : {}) } },
    durationMs: 1,
    exchanges: [],
    notes: [],
  } as unknown as TaskReply;
}

describe('refusedPushUrl', () => {
  it('makes a refused loopback or http push URL a gap naming the receiver variables', () => {
    for (const url of ['http://127.0.0.1:9/wh', 'https://[::1]:9/wh', 'https://localhost/wh', 'http://hooks.example.com/wh', 'https://10.0.0.8/wh']) {
      const v = refusedPushUrl({ push: { url } }, refusal('url rejected', 'push_notification_config.url'), failed, ctx);
      expect(v.status, url).toBe('gap');
      expect(v.status === 'gap' && v.message).toContain('ACME_RUNNER_WEBHOOK_BASE_URL');
    }
    expect(refusedPushUrl({ push: { url: 'http://127.0.0.1:9/wh' } }, refusal('push_notification_config.url: loopback rejected'), failed, ctx).status).toBe(
      'gap',
    );
  });

  it('does the same for an A2A-native registration and for a reporting_webhook argument', () => {
    const native = refusedPushUrl(
      { push: { url: 'http://127.0.0.1:9/wh' } },
      refusal('configuration.pushNotificationConfig.url: must be an https URL'),
      failed,
      ctx,
    );
    expect(native.status).toBe('gap');
    const args = { reporting_webhook: { url: 'http://127.0.0.1:9/wh', operation_id: 'op' } };
    expect(refusedPushUrl({ args }, refusal('reporting_webhook.url: must be an https URL'), failed, ctx).status).toBe('gap');
    expect(refusedPushUrl({ args }, refusal('rejected', 'reporting_webhook.url'), failed, ctx).status).toBe('gap');
    // A public https reporting URL refused is the seller's own problem.
    const publicArgs = { reporting_webhook: { url: 'https://hooks.example.com/wh' } };
    expect(refusedPushUrl({ args: publicArgs }, refusal('reporting_webhook.url: rejected'), failed, ctx)).toBe(failed);
  });

  it('leaves the failure when the URL is public https, the error names something else, or the step passed', () => {
    expect(refusedPushUrl({ push: { url: 'https://hooks.example.com/wh' } }, refusal('rejected', 'push_notification_config.url'), failed, ctx)).toBe(failed);
    expect(refusedPushUrl({ push: { url: 'http://127.0.0.1:9/wh' } }, refusal('booking backend unavailable'), failed, ctx)).toBe(failed);
    expect(refusedPushUrl({}, refusal('rejected', 'push_notification_config.url'), failed, ctx)).toBe(failed);
    const ok: StepVerdict = { status: 'ok' };
    expect(refusedPushUrl({ push: { url: 'http://127.0.0.1:9/wh' } }, refusal('rejected', 'push_notification_config.url'), ok, ctx)).toBe(ok);
  });
});
