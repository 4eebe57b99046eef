/** The `webhooks` suite: grades the webhooks a seller emits, captured on the harness's receiver (webhooks.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { webhookCall } from './kinds/call.js';
import { eachWebhook, webhookCount, webhookRule } from './kinds/expect.js';
import { eachEnvelope } from './kinds/envelope.js';
import { webhookFlow } from './kinds/flow.js';
import { webhookActivity, webhookReceiver, webhookWait } from './kinds/steps.js';
import { webhookSubscribe, webhookSubscriptionEvent } from './kinds/subscribe.js';

export default suitePlugin(import.meta.url, 'webhooks', {
  stepKinds: [webhookReceiver, webhookWait, webhookActivity, webhookCall, webhookFlow, webhookSubscribe, webhookSubscriptionEvent],
  expectationKinds: [webhookCount, eachWebhook, webhookRule, eachEnvelope],
});
