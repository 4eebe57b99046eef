/** Public options and handle of the mock buyer (a webhook receiver). */
import type { TrustConfig } from './trust.js';
import type { EndpointInfo, EndpointSpec } from './store/endpoints.js';
import type { ReceiverSnapshot, TaskReadBack } from './store/readback.js';

/** 1 MB (interface spec 8): larger bodies are answered 413 before verification. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Dedup retention: at least 24 hours (interface spec 6.5 rule 3, 8). */
export const MIN_RETENTION_SECONDS = 24 * 3600;
/** Default per-sender dedup bound (interface spec 6.5 rule 5). */
export const DEFAULT_DEDUP_BOUND_PER_SENDER = 100_000;
export const DEFAULT_ENDPOINT_ID = 'default';
/** Default bound on receiving endpoints. */
export const DEFAULT_MAX_ENDPOINTS = 1_000;

export interface BuyerTimeouts {
  /** Time to receive the request headers (slowloris guard). Default 10 s. */
  headersMs?: number;
  /** Time to receive the whole request. Default 15 s. */
  requestMs?: number;
  /** Idle keep-alive connections are closed after this. Default 5 s. */
  keepAliveMs?: number;
}

export interface MockBuyerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** The durable database (better-sqlite3, WAL). Restarting on the same file keeps every dedup
   *  row, queued delivery and processed event. */
  dbPath: string;
  /** Protocol token (`proto` by default): tag, HMAC header names, key-purpose member. */
  token?: string;
  /** Fault profiles (faults.ts), each breaking one receiver rule. */
  faults?: string[];
  /** Which senders' brand declarations are trusted for RFC 9421 webhooks. */
  trust: TrustConfig;
  /** Live dedup entries allowed per sender; a new key beyond it is answered 429. */
  dedupBoundPerSender?: number;
  /** Per-sender overrides of the bound, keyed by sender identity (the `agents[].url`). */
  dedupBounds?: Record<string, number>;
  /** Dedup retention in seconds (at least 86400). */
  retentionSeconds?: number;
  /** Clock in milliseconds since the epoch (default Date.now). */
  now?: () => number;
  timeouts?: BuyerTimeouts;
  /** Open connections held at most (default 256); over it the cheapest one (idle, then slow) is dropped, not the newcomer. */
  maxConnections?: number;
  /** Per-keyid replay-cache cap (default 100,000; digest 1.12). */
  replayCapPerKeyid?: number;
  /** Scheme + authority the senders use, when the receiver sits behind a proxy (default: the
   *  request's Host over http). */
  publicBaseUrl?: string;
  /** Bearer token required on /_admin routes. Default: none when bound to loopback; a generated one
   *  (see `RunningMockBuyer.adminToken`) when bound to any other address or published through a
   *  `publicBaseUrl` whose host is not loopback (a proxy in front). */
  adminToken?: string;
  /** Most receiving endpoints the buyer holds (default 1000); registering one more fails. */
  maxEndpoints?: number;
  /** Endpoints to register at start (the `default` RFC 9421 endpoint always exists). */
  endpoints?: EndpointSpec[];
  /** Start with processing paused (acknowledged deliveries wait in the durable queue). */
  pauseProcessing?: boolean;
  /** Benchmark baseline only: skip verification and/or the durable dedup store. */
  unsafeBypass?: { verification?: boolean; dedup?: boolean };
  log?: (line: string) => void;
}

export interface RunningMockBuyer {
  /** http://host:port */
  readonly baseUrl: string;
  /** The default endpoint (RFC 9421, any trusted sender). */
  readonly url: string;
  /** Read-back hook: `GET stateUrl?task_id=...` (see suites/webhook-receiver/README.md). */
  readonly stateUrl: string;
  readonly adminUrl: string;
  /** The bearer token the /_admin routes require (given or generated), or undefined when they are open (loopback only). */
  readonly adminToken?: string;
  /** Register another receiving endpoint (the registration the seller was told about). */
  registerEndpoint(spec: EndpointSpec): EndpointInfo;
  endpoints(): EndpointInfo[];
  /** Deliveries acknowledged but not processed yet. */
  pending(): number;
  snapshot(): ReceiverSnapshot;
  task(taskId: string): TaskReadBack;
  /** Resolves once the durable queue is empty (bounded by `timeoutMs`, default 10 s). */
  whenIdle(timeoutMs?: number): Promise<void>;
  resumeProcessing(): void;
  close(): Promise<void>;
}
