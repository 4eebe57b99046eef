/**
 * get_<token>_capabilities (interface spec 4.3; digest 1.15, 3.5): the idempotency declaration at
 * `<token>.idempotency`, the media-buy features with the reporting granularities this seller
 * honours, and the controller scenarios (sandbox only).
 */
import type { SellerServices } from '../services.js';
import { type TaskDef, completed } from '../task-def.js';
import { taskSchema } from '../validation.js';
import { failure } from '../errors.js';
import { AGENT_CAPABILITIES_TASK } from '../../../../harness/core/protocol/tasks.js';
import { AGENT_KIND_DEFS } from '../../../../harness/core/protocol/agent-kinds.js';
import { CONTROLLER_SCENARIOS } from './controller.js';
import { DECLARABLE_SCENARIOS_3_0 } from '../../../../harness/core/protocol/controller-scenarios.js';

const isDeclarable = (s: string): boolean => (DECLARABLE_SCENARIOS_3_0 as readonly string[]).includes(s);
import { WINDOWED_PULL_GRANULARITIES } from './media-buy-read.js';
import { CAPABILITIES_VERSION, CHANGED_AT } from '../../webhooks/agent-subscribers.js';

const schema = taskSchema({});

/** The protocol's major versions the seller speaks (`<token>.major_versions`); a request naming another is refused. */
export const MAJOR_VERSIONS: readonly number[] = [3];

export function capabilitiesTask(s: SellerServices): TaskDef {
  return {
    name: s.ids.capabilitiesTask,
    description: 'Capability declaration: protocol versions, idempotency window, media-buy features, test scenarios.',
    idempotency: 'exempt',
    schema,
    run: ({ caller }) => completed(declaration(s, caller.transport, caller.host)),
  };
}

/**
 * get_agent_capabilities, the capability task interface spec 4.3 refers to for declaring a shorter
 * coalescence window. Its shape is not shown, so the mock answers its capability declaration and
 * declares no window (its impairment pushes keep within the default).
 */
export function agentCapabilitiesTask(s: SellerServices): TaskDef {
  return {
    name: AGENT_CAPABILITIES_TASK,
    description: 'Agent capability declaration (the same declaration as the protocol capability task; no shorter coalescence window).',
    idempotency: 'exempt',
    schema,
    run() {
      if (s.faults.has('agent-capabilities-fails')) throw failure('SERVICE_UNAVAILABLE', 'capability service unavailable', { recovery: 'transient' });
      return completed(declaration(s));
    },
  };
}

const SHARED_ORIGIN = 'https://keys.mock-seller.example';
const SHARED_KEY_ORIGINS = { governance_signing: SHARED_ORIGIN, request_signing: SHARED_ORIGIN, webhook_signing: SHARED_ORIGIN };

function declaration(s: SellerServices, transport?: string, host?: string): Record<string, unknown> {
  // The buggy seller declares one protocol fewer over A2A than over MCP (interface spec 1: the same tasks on both).
  const dropped = transport === 'a2a' && s.faults.has('a2a-declaration-differs') ? 'governance' : undefined;
  // The lines it answers: a 3.2 seller verifies only the strict signing profile (digest 1.5).
  const versions = s.protocolLine === '3.2' ? ['3.2'] : s.protocolLine === '3.1' ? ['3.0', '3.1'] : ['3.0'];
  const protocolBlock: Record<string, unknown> = { major_versions: [...MAJOR_VERSIONS], supported_versions: versions };
  if (!s.faults.has('idempotency-not-declared')) {
    protocolBlock.idempotency = {
      supported: true,
      replay_ttl_seconds: s.idempotency.replayTtlSeconds,
      in_flight_max_seconds: s.idempotency.inFlightMaxSeconds,
    };
  }
  // 3.2: agent-level capability-change notifications (sync_agent_notification_configs) and the revision they name.
  if (s.protocolLine === '3.2')
    protocolBlock.capability_changes = { capabilities_version: CAPABILITIES_VERSION, last_modified: CHANGED_AT, notifications: { supported: true } };
  return {
    [s.ids.token]: protocolBlock,
    supported_protocols: s.kinds.map((k) => AGENT_KIND_DEFS[k].protocol).filter((p) => p !== dropped),
    ...(s.kinds.includes('media-buy') ? mediaBuyBlocks(s) : {}),
    // Webhooks are signed (interface spec 5.1; digest 1.15); legacy HMAC on request.
    webhook_signing: {
      // Fault webhook-signing-undeclared: the webhooks stay signed (webhooks/sender.ts).
      supported: !s.faults.has('webhook-signing-undeclared'),
      profile: s.ids.webhookSigningTag,
      algorithms: ['ed25519'],
      legacy_hmac_fallback: true,
      delivery_retry_horizon_seconds: 86_400,
    },
    ...(s.requestSigning ? { request_signing: s.requestSigning } : {}),
    ...identityBlock(s, host),
    ...(s.oauth ? { oauth: { supported: true } } : {}),
    // The capability names only what the 3.0 schema's closed list admits; list_scenarios names all.
    ...(s.testController ? { compliance_testing: { scenarios: CONTROLLER_SCENARIOS.filter(isDeclarable) } } : {}),
  };
}

/**
 * identity: brand_json_url from 3.1 on (the 3.0.0 schema closes identity to it), required since the
 * seller declares a signing posture (webhook_signing.supported; digest 1.11 step 2) unless fault
 * brand-url-undeclared; fault governance-origin-shared: one origin serves governance and transport
 * keys (digest 1.11 step 7).
 */
function identityBlock(s: SellerServices, host?: string): Record<string, unknown> {
  const identity: Record<string, unknown> = {};
  // At the Host it was reached at, as a seller behind a reverse proxy declares its public URL.
  const brandJsonUrl = host !== undefined && s.brandJsonUrl !== undefined ? `https://${host}${new URL(s.brandJsonUrl).pathname}` : s.brandJsonUrl;
  if (s.protocolLine !== '3.0' && brandJsonUrl !== undefined && !s.faults.has('brand-url-undeclared')) identity.brand_json_url = brandJsonUrl;
  if (s.faults.has('governance-origin-shared')) identity.key_origins = SHARED_KEY_ORIGINS;
  return Object.keys(identity).length > 0 ? { identity } : {};
}

/** What a media-buy seller declares beyond the protocol block: its features and reporting, and account billing. */
function mediaBuyBlocks(s: SellerServices): Record<string, unknown> {
  return {
    media_buy: {
      creative_approval_mode: 'auto_approve',
      supported_pricing_models: ['cpm'],
      supported_channels: [...new Set(s.catalog.products.flatMap((p) => p.channels))],
      reporting_capabilities: {
        windowed_pull_granularities: [...WINDOWED_PULL_GRANULARITIES],
        available_metrics: ['impressions', 'clicks', 'spend', 'completion_rate'],
        reporting_delivery_methods: ['pull', 'webhook'],
      },
    },
    account: { supported_billing: ['operator', 'advertiser'] },
  };
}
