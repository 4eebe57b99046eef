/**
 * The reference mock seller: one domain model served over MCP (/mcp) and A2A (/a2a, plus the
 * agent card) on one port, backed by an embedded database. Fault profiles (faults.ts) each break
 * exactly one rule so the harness's checks can be shown to catch violations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TOKEN, protocolIds } from '../../harness/core/token.js';
import { A2aEndpoint } from './a2a/endpoint.js';
import { AsyncTaskService } from './domain/async-tasks.js';
import { buildCatalog } from './domain/catalog.js';
import { SellerClock } from './domain/clock.js';
import { SellerEvents } from './domain/events.js';
import { IdempotencyGuard } from './domain/idempotency.js';
import { checkInsertRateLimit } from './domain/rate-limit.js';
import { MediaBuyService } from './domain/media-buys.js';
import { SellerModel } from './domain/model.js';
import type { SellerServices } from './domain/services.js';
import { FaultSet } from './faults.js';
import { SellerHttpServer } from './http/server.js';
import { McpEndpoint } from './mcp/endpoint.js';
import { DEFAULT_BOOKING_LATENCY_MS, DEFAULT_MAX_SESSIONS, MAX_BODY_BYTES, type MockSellerOptions, type RunningMockSeller } from './options.js';
import { openDatabase } from './store/db.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { MetaStore } from './store/meta-store.js';
import { RecordStore } from './store/record-store.js';
import { BRAND_JSON_PATH, JWKS_PATH, identityRoutes } from './webhooks/documents.js';
import './webhooks/faults.js';
import './signing/faults.js';
import { createMockRequestVerifier, mockRequestSigningCapability } from './signing/verifier.js';
import { createWebhookKeys } from './webhooks/keys.js';
import { oauthRoutes } from './oauth-metadata.js';
import { DEFAULT_RETRY, DEFAULT_WEBHOOK_TIMEOUT_MS } from './webhooks/sender.js';
import { DEFAULT_IMPAIRMENT_WINDOW_MS, WebhookService } from './webhooks/service.js';
import { DEFAULT_MAX_WEBHOOK_URLS, LocalTestingPolicy, WebhookAdmission } from './webhooks/admission.js';
import { AddressPolicy } from '../../harness/core/net/address-policy.js';
import { AGENT_KINDS, isAgentKind } from '../../harness/core/protocol/agent-kinds.js';
import { DEFAULT_TARGET, isProtocolLine, PROTOCOL_LINES } from '../../harness/core/protocol/lines.js';

export type {
  MockSellerOptions,
  MockWebhookOptions,
  RunningMockSeller,
  VerifyRequestHook,
  VerifyRequestInput,
  VerifyRequestResult,
  McpReplyMode,
} from './options.js';
export { FaultSet, UnknownFaultError, getFault, listFaults, registerFault, type FaultDef } from './faults.js';
export type { SellerEventMap, SellerEventName, SellerEvents } from './domain/events.js';

export const SELLER_NAME = 'proto-comply mock seller';
export const SELLER_VERSION = '0.1.0';

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startMockSeller(opts: MockSellerOptions = {}): Promise<RunningMockSeller> {
  const faults = new FaultSet(opts.faults ?? []);
  const kinds = opts.kinds ?? AGENT_KINDS;
  if (kinds.length === 0) throw new RangeError('kinds must name at least one agent kind');
  for (const k of kinds) if (!isAgentKind(k)) throw new RangeError(`unknown agent kind ${JSON.stringify(k)} (known: ${AGENT_KINDS.join(', ')})`);
  const ids = protocolIds(opts.token ?? DEFAULT_TOKEN);
  const protocolLine = opts.protocolLine ?? DEFAULT_TARGET;
  if (!isProtocolLine(protocolLine)) throw new RangeError(`protocolLine must be one of ${PROTOCOL_LINES.join(', ')}, got ${JSON.stringify(protocolLine)}`);
  const log = opts.log ?? (() => {});
  const oauthGraph = opts.oauth === true ? 'conformant' : opts.oauth || undefined;
  const replyMode = opts.mcpReplyMode ?? 'sse';
  if (replyMode !== 'sse' && replyMode !== 'json') throw new Error(`mcpReplyMode must be "sse" or "json", got ${JSON.stringify(replyMode)}`);
  if (opts.authToken !== undefined && opts.authToken.trim() === '') throw new Error('authToken must not be empty');
  if (opts.rateLimit) checkInsertRateLimit(opts.rateLimit);

  const tempDir = opts.dbPath === undefined ? mkdtempSync(join(tmpdir(), 'mock-seller-')) : undefined;
  const dbPath = opts.dbPath ?? join(tempDir as string, 'seller.sqlite');
  const db = openDatabase(dbPath);
  const removeTemp = () => {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };
  // RFC 9421 request signatures: verified by default (signing/verifier.ts) unless a hook is given or they are switched off.
  const requestSigning =
    opts.verifyRequest === undefined && opts.requestSigning !== false
      ? mockRequestSigningCapability({
          authToken: opts.authToken,
          overrides: typeof opts.requestSigning === 'object' ? opts.requestSigning : undefined,
          faults,
          line: protocolLine,
        })
      : undefined;
  const verifyRequest =
    opts.verifyRequest ??
    (requestSigning &&
      createMockRequestVerifier({
        ids,
        capability: requestSigning,
        faults,
        authToken: opts.authToken,
        line: protocolLine,
        // Shadow mode records each failure it lets on (digest 1.10).
        onShadowFailure: (code) => log(`request signature failed under warn_for (recorded, request left to the bearer check): ${code}`),
      }));
  const http = new SellerHttpServer({ maxBodyBytes: MAX_BODY_BYTES, authToken: opts.authToken, faults, verifyRequest, log });
  const events = new SellerEvents(log);

  let address;
  try {
    address = await http.listen(opts.host ?? '127.0.0.1', opts.port ?? 0);
  } catch (err) {
    db.close();
    removeTemp();
    throw err;
  }
  const baseUrl = opts.publicOrigin?.replace(/\/+$/, '') ?? `http://${opts.publicHost ?? urlHost(address.address)}:${address.port}`;
  const mcpUrl = `${baseUrl}/mcp`;
  const a2aUrl = `${baseUrl}/a2a`;
  const agentCardUrl = `${baseUrl}/.well-known/agent-card.json`;

  const records = new RecordStore(db);
  const clock = new SellerClock(new MetaStore(db));
  const mediaBuys = new MediaBuyService({ records, clock, events, faults });
  const hooks = opts.webhooks ?? {};
  const allowPrivate = opts.allowPrivateWebhooks === true;
  // Deliveries are pinned through the same policy registrations are checked with (local testing: LocalTestingPolicy).
  const webhookPolicy = allowPrivate ? new LocalTestingPolicy(hooks.lookup) : new AddressPolicy({ denyPrivate: true, lookup: hooks.lookup });
  const webhooks = new WebhookService({
    ids,
    faults,
    records,
    events,
    mediaBuys,
    keys: createWebhookKeys(ids, { deprecatedUsage: faults.has('webhook-key-deprecated-usage') }),
    retry: {
      baseDelayMs: hooks.retryBaseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: hooks.retryMaxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      maxAttempts: hooks.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    },
    timeoutMs: hooks.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    impairmentWindowMs: hooks.impairmentWindowMs ?? DEFAULT_IMPAIRMENT_WINDOW_MS,
    admission: new WebhookAdmission({
      allowPrivate,
      policy: webhookPolicy,
      skipAddressCheck: faults.has('webhook-url-not-checked'),
      httpAnywhere: faults.has('webhook-http-accepted'),
      maxUrls: hooks.maxUrlsPerPrincipal ?? DEFAULT_MAX_WEBHOOK_URLS,
    }),
    addressPolicy: webhookPolicy,
    operationIdFromUrl: protocolLine === '3.0',
    agentUrls: { mcp: mcpUrl, a2a: a2aUrl },
    log,
  });
  const services: SellerServices = {
    ids,
    faults,
    clock,
    events,
    records,
    catalog: buildCatalog(baseUrl),
    mediaBuys,
    asyncTasks: new AsyncTaskService(records, clock, events),
    idempotency: new IdempotencyGuard(new IdempotencyStore(db), clock, faults, opts.rateLimit ? { insertRateLimit: opts.rateLimit } : {}),
    webhooks,
    bookingLatencyMs: opts.bookingLatencyMs ?? DEFAULT_BOOKING_LATENCY_MS,
    testController: (opts.testController ?? true) && kinds.includes('media-buy'),
    kinds,
    requestSigning,
    protocolLine,
    brandJsonUrl: `https://${urlHost(address.address)}:${address.port}${BRAND_JSON_PATH}`,
    oauth: oauthGraph !== undefined,
    log,
  };
  const model = new SellerModel(services);
  const mcp = new McpEndpoint(model, {
    replyMode,
    maxSessions: opts.maxSessions ?? DEFAULT_MAX_SESSIONS,
    faults,
    serverName: SELLER_NAME,
    serverVersion: SELLER_VERSION,
    log,
  });
  const a2a = new A2aEndpoint(model, { name: SELLER_NAME, version: SELLER_VERSION, baseUrl, a2aUrl, bearerRequired: opts.authToken !== undefined });
  http.setRoutes([
    { path: '/mcp', methods: ['POST', 'GET', 'DELETE'], protectedAs: 'mcp', handle: (ctx) => mcp.handle(ctx) },
    { path: '/a2a', methods: ['POST'], protectedAs: 'a2a', handle: (ctx) => a2a.handle(ctx) },
    { path: '/.well-known/agent-card.json', methods: ['GET'], handle: (ctx) => a2a.handle(ctx) },
    ...identityRoutes({ baseUrl, mcpUrl, a2aUrl, name: SELLER_NAME }, webhooks.keys),
    ...(oauthGraph ? oauthRoutes(baseUrl, { '/mcp': mcpUrl, '/a2a': a2aUrl }, oauthGraph) : []),
  ]);
  log(
    `mock seller listening on ${baseUrl} (token ${ids.token}${faults.size ? `, faults: ${faults.names().join(', ')}` : ''}; ${
      allowPrivate
        ? 'webhooks to loopback or private networks, over http too (never link-local or metadata addresses): local testing'
        : 'webhook URLs must be https and public'
    })`,
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await mcp.close();
      a2a.close();
      await http.close();
      await webhooks.close();
      events.removeAll();
      db.close();
      removeTemp();
    })();
    return closing;
  };

  return {
    baseUrl,
    listenUrl: `http://${urlHost(address.address)}:${address.port}`,
    mcpUrl,
    a2aUrl,
    agentCardUrl,
    token: ids.token,
    faults: faults.names(),
    dbPath,
    events,
    brandJsonUrl: `${baseUrl}${BRAND_JSON_PATH}`,
    jwksUrl: `${baseUrl}${JWKS_PATH}`,
    webhooksIdle: () => webhooks.idle(),
    close,
  };
}
