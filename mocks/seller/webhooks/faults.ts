/**
 * Webhook fault profiles of the mock seller: each breaks one webhook rule at the place where
 * the emission code implements it (webhooks/*.ts), and names the `webhooks` suite checks that
 * catch it. Imported for its side effect by mocks/seller/index.ts.
 */
import { registerFault, type FaultDef } from '../faults.js';

const T = (area: string, rule: string) => `webhooks.${area}.${rule}`;

export const WEBHOOK_FAULTS: FaultDef[] = [
  {
    name: 'webhook-on-terminal-response',
    rule: 'no webhook and no invented task_id when the initial response is terminal (interface spec 3.2 rule 1); the inline result is replayed to the webhook URL under a made-up task id',
    targets: [T('task', 'terminal-silent')],
  },
  {
    name: 'webhook-operation-id-from-url',
    rule: 'operation_id is echoed verbatim from the registration and never derived from the URL (interface spec 6.1 rule 1); the last URL path segment is sent instead',
    targets: [T('envelope', 'operation-id')],
  },
  {
    name: 'webhook-context-not-echoed',
    rule: 'the request context is echoed verbatim on every delivery (interface spec 6.1); webhooks carry no context',
    targets: [T('envelope', 'context')],
  },
  {
    name: 'webhook-key-rotated-on-retry',
    rule: 'idempotency_key stays the same across retries of one event (interface spec 6.1, digest 5.4); every retry gets a new key',
    targets: [T('retry', 'same-key')],
    // The attempts of one event no longer share a key, so the activity log cannot show them as one event.
    collateral: [T('retry', 'activity'), T('retry', '401-transient')],
  },
  {
    name: 'webhook-nonce-reused',
    rule: "every delivery attempt is signed with a fresh nonce (interface spec 5.1 rule 4, digest 2.7); retries reuse the first attempt's nonce",
    targets: [T('signature', 'fresh-nonce')],
  },
  {
    name: 'webhook-unsigned',
    rule: 'webhooks are signed with RFC 9421 by default (interface spec 5.1); they are sent without any signature',
    targets: [T('signature', 'signed'), T('signature', 'verifies'), T('state', 'pending-start-active')],
    // Nothing to parse: the per-component signature checks cannot find a signature either.
    collateral: [T('signature', 'components'), T('signature', 'tag'), T('signature', 'window'), T('signature', 'key-published'), T('signature', 'fresh-nonce')],
  },
  {
    name: 'webhook-events-after-final',
    rule: 'nothing fires after the final delivery report of a terminated buy (interface spec 6.5 rule 13); scheduled reports keep coming',
    targets: [T('report', 'silent-after-final')],
  },
  {
    name: 'webhook-no-final-report',
    rule: 'a final delivery report fires after the buy reaches a terminal state (interface spec 3.1, 6.3); it never comes',
    targets: [T('report', 'final')],
  },
  {
    name: 'webhook-aggregated-totals',
    rule: 'aggregated_totals is never emitted in reporting webhooks (interface spec 6.3); delivery reports carry it',
    targets: [T('report', 'no-aggregated-totals')],
  },
  {
    name: 'webhook-status-is-buy-status',
    rule: "the envelope status is the async status, distinct from media_buy_deliveries[].status (interface spec 6.1 rule 3); delivery reports carry the buy's status at the top level",
    targets: [T('report', 'status-distinct')],
  },
  {
    name: 'webhook-disabled-after-401',
    rule: 'a 401 from the receiver is transient: retry and keep the webhook (interface spec 6.5 rule 12); the seller stops retrying and disables the registration',
    targets: [T('retry', '401-transient')],
  },
  {
    name: 'webhook-window-too-long',
    rule: 'the signature validity window is at most 5 minutes (interface spec 5.1 rule 4, 8); signatures are valid for 10 minutes',
    targets: [T('signature', 'window'), T('signature', 'verifies'), T('state', 'pending-start-active')],
  },
  {
    name: 'webhook-key-unpublished',
    rule: "the webhook signing key is published in the seller's brand declaration agents[].jwks_uri (interface spec 5.1); webhooks are signed with a key that is in no published JWKS",
    targets: [T('signature', 'key-published'), T('signature', 'verifies'), T('state', 'pending-start-active')],
  },
  {
    name: 'webhook-impairments-not-coalesced',
    rule: 'near-simultaneous impairments of one buy are coalesced into one push (interface spec 6.5 rule 9); each impairment is pushed on its own',
    targets: [T('impairment', 'coalesced')],
  },
  {
    name: 'webhook-a2a-native-as-mcp',
    rule: 'an A2A-native push registration (configuration.pushNotificationConfig) yields the A2A envelope (interface spec 6.2); it gets the MCP envelope',
    targets: [T('a2a', 'native-envelope'), T('a2a', 'both-channels')],
    transports: ['a2a'],
  },
  {
    name: 'webhook-a2a-result-misplaced',
    rule: 'a final A2A envelope carries the result as the last data part of artifacts[0].parts (interface spec 6.2); it sits in status.message and artifacts is empty',
    targets: [T('a2a', 'native-delivered')],
    transports: ['a2a'],
  },
  {
    name: 'webhook-a2a-one-channel',
    rule: 'with push_notification_config and an A2A-native registration both registered, both fire (interface spec 6.2); only the A2A-native one does',
    targets: [T('a2a', 'both-channels')],
    transports: ['a2a'],
  },
  {
    name: 'webhook-no-start-announcement',
    rule: 'a buy moving from pending_start to active is announced with a signed webhook (interface spec 3.1, 6.4); the seller stays silent',
    targets: [T('state', 'pending-start-active')],
  },
  {
    name: 'webhook-config-update-ignored',
    rule: "a reporting_webhook replaced with update_media_buy applies from the next fire, a few fires at most still reaching the old URL (interface spec 6.5 rule 11); reports keep going to the URL of the buy's first report",
    targets: [T('report', 'config-update')],
  },
  {
    name: 'webhook-url-not-checked',
    rule: 'webhook URLs on link-local, cloud metadata and other reserved addresses are refused at registration, even by a seller under local test (digest 5.9); the seller never checks the host',
    targets: [T('registration', 'reserved-url-refused')],
  },
];

for (const def of WEBHOOK_FAULTS) registerFault(def);
