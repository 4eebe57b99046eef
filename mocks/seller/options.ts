/** Public options and handle of the mock seller, and the request-verification extension point. */
import type { IncomingHttpHeaders } from 'node:http';
import type { SellerEvents } from './domain/events.js';
import type { RequestSigningCapability } from '../../harness/core/signing/verify/precheck.js';
import type { LookupFunction } from '../../harness/core/net/address-policy.js';
import type { AgentKind } from '../../harness/core/protocol/agent-kinds.js';
import type { ProtocolLine } from '../../harness/core/protocol/lines.js';
import type { InsertRateLimit } from './domain/rate-limit.js';

/** The OAuth discovery graph the mock serves with `oauth` (oauth-metadata.ts): conformant, or with its one fault. */
export type MockOAuthGraph = 'conformant' | 'issuer-mismatch';

export type McpReplyMode = 'sse' | 'json';

export interface VerifyRequestInput {
  /** Which endpoint the request targets. */
  route: 'mcp' | 'a2a';
  method: string;
  /** Absolute URL as received (scheme, Host header, path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  /** The exact request body bytes, before any JSON parsing (RFC 9421 content-digest). */
  rawBody: Uint8Array;
  /** The parsed JSON-RPC body, or undefined when the body is empty. */
  json: unknown;
}

export type VerifyRequestResult =
  /** No signature on the request: bearer authentication applies as usual. */
  | { outcome: 'absent' }
  /** A valid signature authenticated the request; `principal` replaces the bearer-derived one. */
  | { outcome: 'verified'; principal?: string; signer?: unknown }
  /** Refuse the request: 401 (default) with this `WWW-Authenticate` value. */
  | { outcome: 'rejected'; status?: number; wwwAuthenticate: string; body?: unknown };

/**
 * Runs between the raw HTTP request and dispatch (RFC 9421 request verification, a later issue).
 * Called for every POST to /mcp and /a2a before bearer authentication.
 */
export type VerifyRequestHook = (input: VerifyRequestInput) => Promise<VerifyRequestResult>;

export interface MockSellerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** The host name the mock names itself by in its URLs (agent card, brand.json, base URL), e.g. `localhost`; default the listening address. */
  publicHost?: string;
  /** The origin the mock names itself by instead (`http://seller.test`, no port), when the harness reaches it through `--connect-to`; wins over publicHost. */
  publicOrigin?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Protocol token (harness/core/token.ts), default `proto`. */
  token?: string;
  /** When set, every MCP and A2A call must carry `Authorization: Bearer <authToken>` (agent card stays public). */
  authToken?: string;
  /** Fault profiles (mocks/seller/faults.ts); an unknown name throws. */
  faults?: string[];
  /** better-sqlite3 file (`:memory:` for state that need not survive the process); default a fresh temp file removed on close. */
  dbPath?: string;
  /** MCP replies as server-sent events (default, as the spec says) or as plain JSON. */
  mcpReplyMode?: McpReplyMode;
  log?: (line: string) => void;
  /** Request verifier hook (RFC 9421 extension point). */
  verifyRequest?: VerifyRequestHook;
  /**
   * RFC 9421 request signatures (signing/verifier.ts), used when no `verifyRequest` hook is given:
   * verified by default with the harness's test counterparty keys and declared as `request_signing`;
   * `false` switches them off; an object overrides members of the declared capability.
   */
  requestSigning?: boolean | Partial<RequestSigningCapability>;
  /**
   * The protocol line the seller speaks (default 3.1): the versions its capabilities declare
   * (`supported_versions`) and, for 3.2, the strict request-signing profile (padded standard-base64
   * sf-binary values, a base64url token refused, digest 1.5). Everything else it answers fits every
   * line (both `status` and `media_buy_status`, `revision` everywhere).
   */
  protocolLine?: ProtocolLine;
  /**
   * Serve the sandbox test controller (default true). False behaves like a production seller:
   * no comply_test_controller in tools/list or the agent card, no compliance_testing capability,
   * and calling it is an unknown tool.
   */
  testController?: boolean;
  /**
   * The agent kinds served (harness/core/protocol/agent-kinds.ts), default all: only their 4.3 tasks are
   * listed and answered, `supported_protocols` names only them, and the test controller (media-buy
   * scenarios) and the media-buy capability blocks come only with `media-buy`.
   */
  kinds?: readonly AgentKind[];
  /**
   * Limit new idempotency keys per (principal, account) to `inserts` in any rolling `windowMs`
   * (digest 3.2 rule 8): over it a mutating request is refused with RATE_LIMITED and `retry_after`,
   * never cached (domain/rate-limit.ts). Default none.
   */
  rateLimit?: InsertRateLimit;
  /** Latency of the simulated downstream booking call in create_media_buy, ms (default 50). */
  bookingLatencyMs?: number;
  /** Most MCP sessions kept at once; the least recently used is closed beyond it (default 256). */
  maxSessions?: number;
  /** Webhook delivery settings (sandbox defaults are fast: 25 ms first retry delay, 6 attempts). */
  webhooks?: MockWebhookOptions;
  /**
   * Local testing only: accept webhook registrations to http:// URLs and to reserved addresses
   * (loopback, private, link-local, ...). Default false: a push URL must be https and resolve to
   * public addresses only, or the registration fails with INVALID_REQUEST (digest 5.9), and every
   * delivery is pinned to the checked address.
   */
  allowPrivateWebhooks?: boolean;
  /**
   * Serve a public OAuth discovery graph (oauth-metadata.ts) and declare `oauth.supported: true`:
   * `true` or `conformant` a graph that holds, `issuer-mismatch` one whose authorization server
   * names another issuer than the one advertised. Default off (no oauth block, no graph).
   */
  oauth?: boolean | MockOAuthGraph;
}

export interface MockWebhookOptions {
  /** Delay before the second attempt of an event, doubling per attempt (default 25 ms). */
  retryBaseDelayMs?: number;
  /** Longest delay between attempts (default 1000 ms). */
  retryMaxDelayMs?: number;
  /** Attempts per event, the first included (default 6). */
  maxAttempts?: number;
  /** Timeout of one POST, connect included (default 5000 ms). */
  timeoutMs?: number;
  /** Coalescing window of general impairments (default 100 ms; at most 5 minutes), on the seller's clock. */
  impairmentWindowMs?: number;
  /** Distinct webhook URLs one principal may register per hour (default 1000); beyond it INVALID_REQUEST. */
  maxUrlsPerPrincipal?: number;
  /** Resolver for webhook hosts (tests map names to addresses without DNS); default the system's. */
  lookup?: LookupFunction;
}

export interface RunningMockSeller {
  baseUrl: string;
  /** The address it listens on, `http://127.0.0.1:PORT` (baseUrl may name it otherwise: publicHost, publicOrigin). */
  listenUrl: string;
  /** `<base>/mcp` */
  mcpUrl: string;
  /** `<base>/a2a` */
  a2aUrl: string;
  /** `<base>/.well-known/agent-card.json` */
  agentCardUrl: string;
  /** The protocol token in use. */
  token: string;
  /** Active fault names. */
  faults: string[];
  /** The database file (a temporary one is removed by close()). */
  dbPath: string;
  /** Task-status and media-buy lifecycle events (webhook emission extension point). */
  events: SellerEvents;
  /** `<base>/.well-known/brand.json`: `agents[]` with the `jwks_uri` of the webhook signing key. */
  brandJsonUrl: string;
  /** `<base>/.well-known/jwks.json` */
  jwksUrl: string;
  /** Resolves once no webhook is being delivered or waiting for a retry. */
  webhooksIdle(): Promise<void>;
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_BOOKING_LATENCY_MS = 50;
export const DEFAULT_MAX_SESSIONS = 256;
