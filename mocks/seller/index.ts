/**
 * The reference mock seller: one domain model served over MCP (/mcp) and A2A (/a2a, plus the
 * agent card) on one port, backed by an embedded database. Fault profiles (faults.ts) each break
 * exactly one rule so the harness's checks can be shown to catch violations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TOKEN, protocolIds } from '../../harness/token.js';
import { A2aEndpoint } from './a2a/endpoint.js';
import { AsyncTaskService } from './domain/async-tasks.js';
import { buildCatalog } from './domain/catalog.js';
import { SellerClock } from './domain/clock.js';
import { SellerEvents } from './domain/events.js';
import { IdempotencyGuard } from './domain/idempotency.js';
import { MediaBuyService } from './domain/media-buys.js';
import { SellerModel } from './domain/model.js';
import type { SellerServices } from './domain/services.js';
import { FaultSet } from './faults.js';
import { SellerHttpServer } from './http/server.js';
import { McpEndpoint } from './mcp/endpoint.js';
import {
  DEFAULT_BOOKING_LATENCY_MS,
  DEFAULT_MAX_SESSIONS,
  MAX_BODY_BYTES,
  type MockSellerOptions,
  type RunningMockSeller,
} from './options.js';
import { openDatabase } from './store/db.js';
import { IdempotencyStore } from './store/idempotency-store.js';
import { MetaStore } from './store/meta-store.js';
import { RecordStore } from './store/record-store.js';

export type { MockSellerOptions, RunningMockSeller, VerifyRequestHook, VerifyRequestInput, VerifyRequestResult, McpReplyMode } from './options.js';
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
  const ids = protocolIds(opts.token ?? DEFAULT_TOKEN);
  const log = opts.log ?? (() => {});
  const replyMode = opts.mcpReplyMode ?? 'sse';
  if (replyMode !== 'sse' && replyMode !== 'json') throw new Error(`mcpReplyMode must be "sse" or "json", got ${JSON.stringify(replyMode)}`);
  if (opts.authToken !== undefined && opts.authToken.trim() === '') throw new Error('authToken must not be empty');

  const tempDir = opts.dbPath === undefined ? mkdtempSync(join(tmpdir(), 'mock-seller-')) : undefined;
  const dbPath = opts.dbPath ?? join(tempDir as string, 'seller.sqlite');
  const db = openDatabase(dbPath);
  const removeTemp = () => {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };
  const http = new SellerHttpServer({ maxBodyBytes: MAX_BODY_BYTES, authToken: opts.authToken, faults, verifyRequest: opts.verifyRequest, log });
  const events = new SellerEvents(log);

  let address;
  try {
    address = await http.listen(opts.host ?? '127.0.0.1', opts.port ?? 0);
  } catch (err) {
    db.close();
    removeTemp();
    throw err;
  }
  const baseUrl = `http://${urlHost(address.address)}:${address.port}`;
  const mcpUrl = `${baseUrl}/mcp`;
  const a2aUrl = `${baseUrl}/a2a`;
  const agentCardUrl = `${baseUrl}/.well-known/agent-card.json`;

  const records = new RecordStore(db);
  const clock = new SellerClock(new MetaStore(db));
  const services: SellerServices = {
    ids,
    faults,
    clock,
    events,
    records,
    catalog: buildCatalog(baseUrl),
    mediaBuys: new MediaBuyService({ records, clock, events, faults }),
    asyncTasks: new AsyncTaskService(records, clock, events),
    idempotency: new IdempotencyGuard(new IdempotencyStore(db), clock, faults),
    bookingLatencyMs: opts.bookingLatencyMs ?? DEFAULT_BOOKING_LATENCY_MS,
    testController: opts.testController ?? true,
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
  ]);
  log(`mock seller listening on ${baseUrl} (token ${ids.token}${faults.size ? `, faults: ${faults.names().join(', ')}` : ''})`);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await mcp.close();
      a2a.close();
      await http.close();
      events.removeAll();
      db.close();
      removeTemp();
    })();
    return closing;
  };

  return { baseUrl, mcpUrl, a2aUrl, agentCardUrl, token: ids.token, faults: faults.names(), dbPath, events, close };
}
