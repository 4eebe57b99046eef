/** The `webhook-receiver` suite: certifies a buyer's webhook receiver by sending it webhooks (webhook-receiver.yaml, kinds/). */
import { suitePlugin } from '../../harness/core/engine/plugin.js';
import { receiverBootstrapSend } from './kinds/bootstrap.js';
import { receiverFlood } from './kinds/flood.js';
import { receiverSend } from './kinds/send.js';
import { receiverRequires, receiverState } from './kinds/state.js';
import { receiverWait } from './kinds/wait.js';

export default suitePlugin(import.meta.url, 'webhook-receiver', {
  stepKinds: [receiverRequires, receiverSend, receiverState, receiverFlood, receiverWait, receiverBootstrapSend],
});
