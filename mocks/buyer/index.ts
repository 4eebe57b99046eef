/**
 * The mock buyer: a webhook receiver a real seller can be pointed at (interface spec 4.5, 5,
 * 6), backed by a durable embedded database. It verifies RFC 9421 webhook signatures through
 * the trusted sellers' brand declarations (or the legacy scheme a registration chose),
 * dedups on (verified sender, idempotency_key) across all its endpoints, acknowledges once the
 * dedup row is durable and processes afterwards from a durable queue, never applying an older
 * task status over a newer one. Fault profiles (faults.ts) each break one receiver rule.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { isLoopbackAddress } from '../../harness/core/net/address-ranges.js';
import { DEFAULT_TOKEN, protocolIds } from '../../harness/core/token.js';
import { WEBHOOK_PER_KEYID_CAP } from '../../harness/core/signing/verify/replay-cache.js';
import { BuyerFaultSet } from './faults.js';
import { handleAdmin } from './http/admin.js';
import { BuyerHttpServer } from './http/server.js';
import { FirstArrivals, handleWebhook } from './http/webhook.js';
import {
  DEFAULT_DEDUP_BOUND_PER_SENDER,
  DEFAULT_ENDPOINT_ID,
  DEFAULT_MAX_ENDPOINTS,
  MAX_BODY_BYTES,
  MIN_RETENTION_SECONDS,
  type MockBuyerOptions,
  type RunningMockBuyer,
} from './options.js';
import { Processor } from './processor.js';
import { DurableReplayCache } from './replay-cache.js';
import { GroupCommitter } from './store/commit.js';
import { openDatabase } from './store/db.js';
import { EndpointStore, type EndpointInfo } from './store/endpoints.js';
import { Intake } from './store/intake.js';
import { ReadBack } from './store/readback.js';
import { TrustResolver } from './trust.js';
import { BuyerVerifier } from './verify.js';

export type { MockBuyerOptions, RunningMockBuyer, BuyerTimeouts } from './options.js';
export type { TrustConfig, TrustedSender } from './trust.js';
export type { EndpointSpec, EndpointInfo } from './store/endpoints.js';
export type { ProcessedEvent, TaskReadBack, TaskState, ReceiverSnapshot } from './store/readback.js';
export { listBuyerFaults, registerBuyerFault, BuyerFaultSet, UnknownBuyerFaultError, type BuyerFaultDef } from './faults.js';
export { MAX_BODY_BYTES, MIN_RETENTION_SECONDS, DEFAULT_DEDUP_BOUND_PER_SENDER, DEFAULT_ENDPOINT_ID, DEFAULT_MAX_ENDPOINTS } from './options.js';

export const BUYER_NAME = 'proto-comply mock buyer';
const PRUNE_INTERVAL_MS = 60_000;

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** A host the server binds to loopback only: a loopback address or `localhost`. */
function isLoopbackBind(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  return isIP(h) !== 0 && isLoopbackAddress(h);
}

/** Whether anyone but local processes can reach the admin API: a non-loopback bind or public URL. */
export function adminApiExposed(o: Pick<MockBuyerOptions, 'host' | 'publicBaseUrl'>): boolean {
  if (!isLoopbackBind(o.host ?? '127.0.0.1')) return true;
  if (o.publicBaseUrl === undefined) return false;
  return !URL.canParse(o.publicBaseUrl) || !isLoopbackBind(new URL(o.publicBaseUrl).hostname);
}

function newAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

function positiveInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
  return v;
}

export async function startMockBuyer(opts: MockBuyerOptions): Promise<RunningMockBuyer> {
  if (typeof opts.dbPath !== 'string' || opts.dbPath === '') throw new Error('dbPath is required (the dedup store must be durable)');
  const faults = new BuyerFaultSet(opts.faults ?? []);
  const ids = protocolIds(opts.token ?? DEFAULT_TOKEN);
  const log = opts.log ?? (() => {});
  const now = opts.now ?? Date.now;
  const nowSeconds = () => Math.floor(now() / 1000);
  const retentionSeconds = opts.retentionSeconds ?? MIN_RETENTION_SECONDS;
  if (!Number.isFinite(retentionSeconds) || retentionSeconds < MIN_RETENTION_SECONDS) {
    throw new RangeError(`retentionSeconds must be at least ${MIN_RETENTION_SECONDS} (24 hours), got ${retentionSeconds}`);
  }
  const defaultBound = positiveInt('dedupBoundPerSender', opts.dedupBoundPerSender, DEFAULT_DEDUP_BOUND_PER_SENDER);
  const bounds = new Map<string, number>();
  for (const [sender, n] of Object.entries(opts.dedupBounds ?? {})) bounds.set(sender, positiveInt(`dedupBounds[${sender}]`, n, defaultBound));
  if (opts.adminToken !== undefined && opts.adminToken.trim() === '') throw new RangeError('adminToken must not be empty');
  // The admin API is open only on loopback; bound anywhere else, or published through a proxy
  // (publicBaseUrl), it needs a token (generated when none is given).
  let adminToken = opts.adminToken ?? (adminApiExposed(opts) ? newAdminToken() : undefined);
  // Fault ignores-pin: the publishers' signing_keys[] pins are never read (the JWKS alone decides).
  const trustConfig = faults.has('ignores-pin')
    ? { ...opts.trust, senders: opts.trust.senders.map(({ publisherDeclarationUrl: _pin, ...s }) => s) }
    : opts.trust;
  const trust = new TrustResolver(trustConfig, nowSeconds, { ids, faults });
  const bypass = { verification: opts.unsafeBypass?.verification === true, dedup: opts.unsafeBypass?.dedup === true };

  const db = openDatabase(opts.dbPath);
  const committer = new GroupCommitter(db);
  const endpoints = new EndpointStore(
    db,
    now,
    () => randomBytes(9).toString('base64url'),
    positiveInt('maxEndpoints', opts.maxEndpoints, DEFAULT_MAX_ENDPOINTS),
  );
  if (!endpoints.list().some((e) => e.id === DEFAULT_ENDPOINT_ID)) endpoints.register({ id: DEFAULT_ENDPOINT_ID });
  try {
    for (const spec of opts.endpoints ?? []) endpoints.register(spec);
  } catch (err) {
    db.close();
    throw err;
  }
  const replayCache = new DurableReplayCache(db, committer, {
    perKeyidCap: positiveInt('replayCapPerKeyid', opts.replayCapPerKeyid, WEBHOOK_PER_KEYID_CAP),
    nowSeconds: nowSeconds(),
    log,
  });
  const intake = new Intake(db, committer);
  const readBack = new ReadBack(db);
  const processor = new Processor(db, { now, faults, paused: opts.pauseProcessing, log });
  const verifier = new BuyerVerifier({ ids, trust, replayCache, faults, nowSeconds });
  const arrivals = new FirstArrivals();
  const boundFor = (sender: string) => (faults.has('no-429-bound') ? Number.MAX_SAFE_INTEGER : (bounds.get(sender) ?? defaultBound));

  let baseUrl = '';
  const endpointUrl = (info: EndpointInfo) => `${opts.publicBaseUrl?.replace(/\/+$/, '') ?? baseUrl}${info.path}`;
  const http = new BuyerHttpServer({
    timeouts: opts.timeouts,
    maxConnections: opts.maxConnections,
    endpointAt: (path) => endpoints.byPath(path),
    log,
    webhook: (req, res, reg) =>
      handleWebhook(req, res, reg, {
        verifier,
        intake,
        processor,
        faults,
        arrivals,
        now,
        boundFor,
        maxBodyBytes: MAX_BODY_BYTES,
        publicBaseUrl: opts.publicBaseUrl,
        bypass,
        log,
      }),
    admin: (req, res, url) =>
      handleAdmin(req, res, url, {
        readBack,
        register: (spec) => endpoints.register(spec),
        endpoints: () => endpoints.list(),
        endpointUrl,
        adminToken: () => adminToken,
        config: () => ({
          receiver: BUYER_NAME,
          faults: faults.names(),
          dedup: { bound_per_sender: defaultBound, bounds: Object.fromEntries(bounds), retention_seconds: retentionSeconds, shared_across_endpoints: true },
          trusted_senders: opts.trust.senders.map((s) => s.brandJsonUrl),
        }),
      }),
  });

  let address;
  try {
    address = await http.listen(opts.host ?? '127.0.0.1', opts.port ?? 0);
  } catch (err) {
    committer.close();
    db.close();
    throw err;
  }
  // However the host was spelt, what counts is where the socket is bound.
  if (adminToken === undefined && !isLoopbackAddress(address.address)) adminToken = newAdminToken();
  baseUrl = `http://${urlHost(address.address)}:${address.port}`;
  const publicBase = opts.publicBaseUrl?.replace(/\/+$/, '') ?? baseUrl;

  const prune = () => intake.prune(now(), retentionSeconds * 1000).catch((err: Error) => log(`mock buyer: prune failed: ${err.message}`));
  void prune();
  const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  // Deliveries acknowledged before a restart are processed now.
  processor.kick();

  let closed = false;
  return {
    baseUrl,
    url: `${publicBase}${endpoints.list().find((e) => e.id === DEFAULT_ENDPOINT_ID)!.path}`,
    stateUrl: `${publicBase}/_admin/state`,
    adminUrl: `${publicBase}/_admin`,
    adminToken,
    registerEndpoint: (spec) => endpoints.register(spec),
    endpoints: () => endpoints.list(),
    pending: () => readBack.pending(),
    snapshot: () => readBack.snapshot(),
    task: (taskId) => readBack.task(taskId),
    whenIdle: (timeoutMs) => processor.whenIdle(timeoutMs),
    resumeProcessing: () => processor.resume(),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(pruneTimer);
      await http.close();
      processor.close();
      committer.close();
      db.close();
    },
  };
}
