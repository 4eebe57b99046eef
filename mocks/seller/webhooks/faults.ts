/**
 * Webhook fault profiles of the mock seller: each breaks one webhook rule at the place where
 * the emission code implements it (webhooks/*.ts), and names the `webhooks` suite checks that
 * catch it (literal check ids, so `grep -rn <check id>` finds the faults that target it). Imported
 * for its side effect by mocks/seller/index.ts.
 */
import { registerFault, type FaultDef } from '../faults.js';

export const WEBHOOK_FAULTS: FaultDef[] = [
  {
    name: 'webhook-on-terminal-response',
    rule: 'no webhook and no invented task_id when the initial response is terminal (interface spec 3.2 rule 1); the inline result is replayed to the webhook URL under a made-up task id',
    targets: ['webhooks.task.terminal-silent'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-on-inline-failure',
    rule: 'no webhook when the initial response is a refusal, a terminal failed status (interface spec 3.2 rule 1); the error is posted to the webhook URL as a failed task under a made-up task id',
    targets: ['webhooks.task.failed-terminal-silent'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-progress-after-terminal',
    rule: 'nothing is posted for a task after its terminal status (interface spec 3.2 rules 2-3); a stale "working" progress webhook follows the terminal one',
    targets: ['webhooks.task.silent-after-terminal'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-key-deprecated-usage',
    rule: 'webhooks are signed with a request-signing key; the webhook-signing usage is deprecated (interface spec 5.1); the webhook key is published with webhook-signing',
    targets: ['webhooks.signature.key-purpose-current'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'replay-refires-webhook',
    rule: "a replayed request emits no second logical webhook (digest 2.7, webhook-emission's idempotency_replay_side_effects); the replay of an asynchronous create announces the task's status again under a fresh idempotency_key",
    targets: ['webhooks.task.replay-silent'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-operation-id-from-url',
    rule: 'operation_id is echoed verbatim from the registration and never derived from the URL (interface spec 6.1 rule 1); the last URL path segment is sent instead',
    targets: ['webhooks.envelope.operation-id'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'short-credential-accepted',
    rule: 'a legacy push credential has at least 32 characters (interface spec 2.7, 8); any length is taken',
    targets: ['webhooks.auth.short-credential-refused'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-context-not-echoed',
    rule: 'the request context is echoed verbatim on every delivery (interface spec 6.1); webhooks carry no context',
    targets: ['webhooks.envelope.context'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-key-rotated-on-retry',
    rule: 'idempotency_key stays the same across retries of one event (interface spec 6.1, digest 5.4); every retry gets a new key',
    targets: ['webhooks.retry.same-key'],
    // The attempts of one event no longer share a key, so the activity log cannot show them as one event.
    collateral: ['webhooks.retry.activity', 'webhooks.retry.401-transient'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-nonce-reused',
    rule: "every delivery attempt is signed with a fresh nonce (interface spec 5.1 rule 4, digest 2.7); retries reuse the first attempt's nonce",
    targets: ['webhooks.signature.fresh-nonce'],
    // Alone: in a shared run (webhook-d) the fresh-nonce check did not fail.
  },
  {
    name: 'webhook-follows-redirect',
    rule: 'redirects are not followed on a counterparty fetch (digest 5.9 rule 4); a 3xx answer to a webhook POST is followed to its Location',
    targets: ['webhooks.delivery.redirect-not-followed'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-signing-undeclared',
    rule: 'a seller that signs its webhooks declares webhook_signing.supported true (digest 1.15); the capabilities say supported: false while every webhook is still signed',
    targets: ['webhooks.signature.declared'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-unsigned',
    rule: 'webhooks are signed with RFC 9421 by default (interface spec 5.1); they are sent without any signature',
    targets: ['webhooks.signature.signed', 'webhooks.signature.verifies', 'webhooks.state.pending-start-active'],
    // Nothing to parse: the per-component signature checks cannot find a signature either.
    collateral: [
      'webhooks.signature.components',
      'webhooks.signature.tag',
      'webhooks.signature.window',
      'webhooks.signature.base64url',
      'webhooks.signature.params-order',
      'webhooks.signature.key-published',
      'webhooks.signature.key-purpose-current',
      'webhooks.signature.fresh-nonce',
    ],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-events-after-final',
    rule: 'nothing fires after the final delivery report of a terminated buy (interface spec 6.5 rule 13); scheduled reports keep coming',
    targets: ['webhooks.report.silent-after-final'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-no-final-report',
    rule: 'a final delivery report fires after the buy reaches a terminal state (interface spec 3.1, 6.3); it never comes',
    targets: ['webhooks.report.final'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-aggregated-totals',
    rule: 'aggregated_totals is never emitted in reporting webhooks (interface spec 6.3); delivery reports carry it',
    targets: ['webhooks.report.no-aggregated-totals'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-status-is-buy-status',
    rule: "the envelope status is the async status, distinct from media_buy_deliveries[].status (interface spec 6.1 rule 3); delivery reports carry the buy's status at the top level",
    targets: ['webhooks.report.status-distinct'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-disabled-after-401',
    rule: 'a 401 from the receiver is transient: retry and keep the webhook (interface spec 6.5 rule 12); the seller stops retrying and disables the registration',
    targets: ['webhooks.retry.401-transient'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-window-too-long',
    rule: 'the signature validity window is at most 5 minutes (interface spec 5.1 rule 4, 8); signatures are valid for 10 minutes',
    targets: ['webhooks.signature.window', 'webhooks.signature.verifies', 'webhooks.state.pending-start-active'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-key-unpublished',
    rule: "the webhook signing key is published in the seller's brand declaration agents[].jwks_uri (interface spec 5.1); webhooks are signed with a key that is in no published JWKS",
    targets: ['webhooks.signature.key-published', 'webhooks.signature.verifies', 'webhooks.state.pending-start-active'],
    // A key found nowhere has no purpose to read.
    collateral: ['webhooks.signature.key-purpose-current'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-impairments-not-coalesced',
    rule: 'near-simultaneous impairments of one buy are coalesced into one push (interface spec 6.5 rule 9); each impairment is pushed on its own',
    targets: ['webhooks.impairment.coalesced'],
    matrixGroup: 'webhook-a',
  },
  {
    name: 'webhook-impairment-window-exceeded',
    rule: 'a general impairment is pushed within the default window of 5 minutes at most, never longer without the buyer opting in (interface spec 6.5 rule 9, 8); general impairments are held for 10 minutes of seller time',
    targets: ['webhooks.impairment.window-general'],
    // Held that long, the pair of impairments the coalescing check makes arrives after its wait too.
    collateral: ['webhooks.impairment.coalesced'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-impairment-latency-held',
    rule: 'latency-sensitive impairments (fraud, brand safety) are pushed within a minute or at once (interface spec 6.5 rule 9); they are held for the general 5-minute window',
    targets: ['webhooks.impairment.window-latency-sensitive'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-token-not-echoed',
    rule: 'a delivery echoes push_notification_config.token as token (digest 5.2); the token is left out',
    targets: ['webhooks.envelope.token'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-activity-unasked',
    rule: 'webhook_activity[] is in a buy read only when include_webhook_activity is true (interface spec 2.4a, 4.3); get_media_buys always carries it',
    targets: ['webhooks.activity.only-when-asked'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-impairments-not-in-snapshot',
    rule: "a buy's impairments are readable in get_media_buys impairments[], the recovery path for a missed impairment push (interface spec 6.5 rule 10, 2.4a); the snapshot always shows an empty list",
    targets: ['webhooks.impairment.snapshot'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-task-id-not-echoed',
    rule: "a task webhook carries the task's task_id (interface spec 3.2 rule 3, 6.1); it carries the id of the media buy the task produced",
    targets: ['webhooks.task.status-change', 'webhooks.envelope.fields', 'webhooks.a2a.both-channels'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-key-too-short',
    rule: 'idempotency_key matches ^[A-Za-z0-9_.:-]{16,255}$ (interface spec 6.1, digest 5.2); it is 8 hex characters',
    targets: ['webhooks.envelope.idempotency-key', 'webhooks.envelope.idempotency-key-uuid', 'webhooks.envelope.schema'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-key-not-uuid',
    rule: 'idempotency_key should be a UUID v4 (interface spec 6.1); it is a prefixed random hex string',
    targets: ['webhooks.envelope.idempotency-key-uuid'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-domain-missing',
    rule: 'the envelope names its domain (interface spec 6.1); webhooks carry none',
    targets: ['webhooks.envelope.domain'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-result-missing',
    rule: "a completed task's webhook carries the full task result (interface spec 6.1); it carries none",
    targets: ['webhooks.envelope.result'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-message-not-string',
    rule: 'the envelope matches the MCP webhook schema: message is a string (interface spec 6.1, digest 5.2); it is an object',
    targets: ['webhooks.envelope.schema'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-key-reused-across-events',
    rule: 'an idempotency_key is never reused for another event (interface spec 6.1); every report of a buy carries the same key',
    targets: ['webhooks.envelope.unique-keys'],
    // The harness tells events apart by idempotency_key: two reports of a buy look like one event retried.
    collateral: ['webhooks.retry.401-transient', 'webhooks.retry.signature-401-terminal', 'webhooks.report.sequence'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-extra-component',
    rule: 'the signature covers exactly @method, @target-uri, @authority, content-type and content-digest (interface spec 5.1 rule 1); it also covers content-length',
    targets: ['webhooks.signature.components'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-request-tag',
    rule: 'the signature tag is <token>/webhook-signing/v1 (interface spec 5.1); webhooks carry the request-signing tag',
    targets: ['webhooks.signature.tag', 'webhooks.signature.verifies', 'webhooks.state.pending-start-active'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-signature-standard-base64',
    rule: 'webhook v1 signers emit the Signature token in unpadded base64url (digest 1.5); the seller sends padded standard base64 (which verifiers still decode)',
    targets: ['webhooks.signature.base64url'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-params-reordered',
    rule: 'signature parameters are listed created, expires, nonce, keyid, alg, tag (digest 1.8); the seller lists created and expires last (the signature still verifies over the parameters as sent)',
    targets: ['webhooks.signature.params-order'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-hmac-pretty-body',
    rule: 'legacy HMAC webhooks are serialized with compact separators (interface spec 5.2); the body is indented',
    targets: ['webhooks.auth.hmac'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-bearer-accepted',
    rule: 'a Bearer-authenticated registration for a mutating callback should be refused (interface spec 5.3); it is accepted',
    targets: ['webhooks.auth.bearer-refused'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'webhook-timestamp-renewed-on-retry',
    rule: 'every payload member, timestamp included, stays the same across retries (digest 5.4, a 3.2 rule); each retry is re-stamped',
    targets: ['webhooks.retry.same-payload'],
    target: '3.2',
    matrixGroup: 'webhook-3.2',
  },
  {
    name: 'webhook-activity-not-recorded',
    rule: 'failed and successful attempts are recorded in webhook_activity[] (interface spec 4.3, 6.5 rule 12); failed attempts are not',
    targets: ['webhooks.retry.activity', 'webhooks.retry.401-transient'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-signature-401-retried',
    rule: 'a 401 with Signature error="webhook_*" ends that delivery (digest 5.6); it is retried like any 401',
    targets: ['webhooks.retry.signature-401-terminal'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-report-no-currency',
    rule: 'a delivery report carries currency (interface spec 6.3); it is left out',
    targets: ['webhooks.report.shape'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-sequence-decreasing',
    rule: 'sequence_number increases with each report (interface spec 6.3); it counts down',
    targets: ['webhooks.report.sequence'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-registration-frozen',
    rule: 'a reporting_webhook replaced with update_media_buy applies from the next fire (interface spec 6.5 rule 11); reports keep going to the old URL',
    targets: ['webhooks.report.config-update'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'webhook-a2a-native-as-mcp',
    rule: 'an A2A-native push registration (configuration.pushNotificationConfig) yields the A2A envelope (interface spec 6.2); it gets the MCP envelope',
    targets: ['webhooks.a2a.native-envelope', 'webhooks.a2a.both-channels'],
    transports: ['a2a'],
    // Alone: with webhook-operation-id-from-url its MCP envelope fails webhooks.a2a.native-delivered too.
  },
  {
    name: 'webhook-a2a-result-misplaced',
    rule: 'a final A2A envelope carries the result as the last data part of artifacts[0].parts (interface spec 6.2); it sits in status.message and artifacts is empty',
    targets: ['webhooks.a2a.native-delivered'],
    transports: ['a2a'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-a2a-one-channel',
    rule: 'with push_notification_config and an A2A-native registration both registered, both fire (interface spec 6.2); only the A2A-native one does',
    targets: ['webhooks.a2a.both-channels'],
    transports: ['a2a'],
    matrixGroup: 'webhook-c',
  },
  {
    name: 'webhook-no-start-announcement',
    rule: 'a buy moving from pending_start to active is announced with a signed webhook (interface spec 3.1, 6.4); the seller stays silent',
    targets: ['webhooks.state.pending-start-active'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-config-update-ignored',
    rule: "a reporting_webhook replaced with update_media_buy applies from the next fire, a few fires at most still reaching the old URL (interface spec 6.5 rule 11); reports keep going to the URL of the buy's first report",
    targets: ['webhooks.report.config-update'],
    matrixGroup: 'webhook-d',
  },
  {
    name: 'webhook-url-not-checked',
    rule: 'webhook URLs on link-local, cloud metadata and other reserved addresses are refused at registration, even by a seller under local test (digest 5.9); the seller never checks the host',
    targets: ['webhooks.registration.reserved-url-refused'],
    matrixGroup: 'webhook-b',
  },
  {
    name: 'webhook-http-accepted',
    rule: 'webhook URLs are HTTPS only in production (digest 5.9 rule 1; the docs: "reject non-HTTPS URLs in production"); the seller, presenting as production, admits plain http to any host',
    targets: ['webhooks.registration.http-url-refused'],
    production: true,
  },
  {
    name: 'subscription-challenge-unsigned',
    rule: 'the activation challenge of an account-level subscriber is signed with the RFC 9421 webhook profile key (digest 5.9; released 3.1 sync_accounts "Endpoint proof of control"); the challenge POST carries no signature',
    targets: ['webhooks.subscription.challenge-signed'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'subscription-not-challenged',
    rule: 'a new active account-level subscriber passes an activation challenge before it is echoed active (digest 5.9); the seller echoes it active without sending anything to its URL',
    targets: ['webhooks.subscription.challenge-signed'],
    // No challenge arrives, so there is no body to judge.
    collateral: ['webhooks.subscription.challenge-shape'],
    matrixGroup: 'webhook-delivery',
  },
  {
    name: 'subscription-challenge-misnamed',
    rule: 'the activation challenge follows core/webhook-challenge.json and names the pending registration (digest 5.9; released 3.1 sync_accounts "Endpoint proof of control"); it leaves out subscriber_id and event_types',
    targets: ['webhooks.subscription.challenge-shape'],
    matrixGroup: 'webhook-envelope',
  },
  {
    name: 'subscription-event-task-envelope',
    rule: 'account-level subscriptions use event-specific schemas (digest 5.2; released 3.1 creative/creative-status-changed-webhook.json); creative.status_changed goes out in the task status envelope',
    targets: ['webhooks.subscription.event-schema'],
    matrixGroup: 'webhook-envelope',
  },
  // Agent-level subscriptions are rules of the 3.2 line only: these faults are judged by runs at
  // --target 3.2 (a matrix group runs at the default 3.1 line, where the checks are other version).
  {
    name: 'agent-subscription-challenge-unsigned',
    rule: 'the activation challenge of an agent-level subscriber is signed with the RFC 9421 webhook profile key (digest 5.9; 3.2 betas core/agent-webhook-challenge.json); the challenge POST carries no signature',
    targets: ['webhooks.agent-subscription.challenge-signed'],
    target: '3.2',
    matrixGroup: 'webhook-3.2',
  },
  {
    name: 'agent-subscription-challenge-account-scoped',
    rule: 'the agent-level activation challenge follows core/agent-webhook-challenge.json (digest 5.9; 3.2 betas): scope agent and no account_id; it is sent in the account-level shape',
    targets: ['webhooks.agent-subscription.challenge-shape'],
    target: '3.2',
    matrixGroup: 'webhook-3.2',
  },
  {
    name: 'agent-subscription-event-task-envelope',
    rule: 'agent-level subscriptions use event-specific schemas (digest 5.2; 3.2 betas core/capabilities-changed-webhook.json); capabilities.changed goes out in the task status envelope',
    targets: ['webhooks.agent-subscription.event-schema'],
    target: '3.2',
    matrixGroup: 'webhook-3.2',
  },
];

for (const def of WEBHOOK_FAULTS) registerFault(def);
