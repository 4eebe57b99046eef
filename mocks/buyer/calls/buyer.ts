/**
 * The calling mock buyer: a small scripted buyer that books through an agent the way a real one
 * would (capabilities, products, a media buy with a push registration, a read, a pause and a
 * resume), over MCP and A2A, signing the operations the agent lists in request_signing.supported_for
 * with the harness's test counterparty key, and retrying a mutating call whose outcome it could not
 * know (no answer, HTTP 5xx, IDEMPOTENCY_IN_FLIGHT) with the same key and a fresh signature. Its
 * faults (faults.ts) each break one rule of the `caller` suite, so the proxy's buyer audit can be
 * shown to catch them. For tests and demonstrations; it judges nothing itself.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { counterpartyKeys } from '../../../harness/core/signing/keys/counterparty.js';
import { signRequest } from '../../../harness/core/signing/sign/signer.js';
import { protocolIds } from '../../../harness/core/token.js';
import {
  createRecorder,
  createTransport,
  DEFAULT_TRANSPORT_LIMITS,
  namedUrls,
  resolveEndpoints,
  type Transport,
  type TransportKind,
} from '../../../harness/core/transport/index.js';
import type { OutgoingRequest, TaskReply } from '../../../harness/core/transport/types.js';
import { callingFaultSet } from './faults.js';

export interface CallingBuyerOptions {
  /** The agent's base URL (or the proxy's in front of it). */
  agentUrl: string;
  authToken?: string;
  token?: string;
  transports?: readonly TransportKind[];
  faults?: readonly string[];
  /** The receiver URL registered in push_notification_config (default: an unroutable example). */
  webhookUrl?: string;
  /** Attempts of one mutating call while its outcome stays unknown (default 6). */
  maxAttempts?: number;
}

export interface CallingBuyerLog {
  calls: number;
  retries: number;
  /** One line per call: transport, task, outcome. */
  lines: string[];
}

const BRAND = { domain: 'calling-buyer.example' };
const TIMEOUT_MS = 10_000;

function unknownOutcome(r: TaskReply): boolean {
  if (r.failure)
    return r.failure.kind === 'network' || r.failure.kind === 'timeout' || (r.failure.kind === 'http_status' && (r.failure.httpStatus ?? 0) >= 500);
  return r.error?.code === 'IDEMPOTENCY_IN_FLIGHT';
}

function firstOffer(payload: unknown): { product_id: string; pricing_option_id: string } | undefined {
  const products = (payload as { products?: unknown })?.products;
  for (const p of Array.isArray(products) ? products : []) {
    const options = (p as { pricing_options?: unknown })?.pricing_options;
    const option = Array.isArray(options) ? options.find((o) => typeof (o as { pricing_option_id?: unknown })?.pricing_option_id === 'string') : undefined;
    if (typeof (p as { product_id?: unknown })?.product_id === 'string' && option)
      return { product_id: (p as { product_id: string }).product_id, pricing_option_id: (option as { pricing_option_id: string }).pricing_option_id };
  }
  return undefined;
}

export async function runCallingBuyer(o: CallingBuyerOptions): Promise<CallingBuyerLog> {
  const token = o.token ?? 'proto';
  const ids = protocolIds(token);
  const faults = callingFaultSet(o.faults ?? []);
  const key = counterpartyKeys(ids).signingKey('ed25519');
  const log: CallingBuyerLog = { calls: 0, retries: 0, lines: [] };
  let counter = 0;
  const newKey = (): string => (faults.has('key-not-uuid') ? `calling-buyer-key-${String(++counter).padStart(6, '0')}` : randomUUID());
  const recorder = createRecorder({ token, secrets: o.authToken ? [o.authToken] : [], maxExchanges: 1 });
  const endpoints = resolveEndpoints(o.agentUrl, {});
  for (const kind of o.transports ?? (['mcp', 'a2a'] as const)) {
    const t: Transport = createTransport(
      kind,
      {
        agentUrl: o.agentUrl,
        token,
        authToken: o.authToken,
        connectTimeoutMs: DEFAULT_TRANSPORT_LIMITS.connectTimeoutMs,
        totalTimeoutMs: TIMEOUT_MS,
        maxResponseBytes: DEFAULT_TRANSPORT_LIMITS.maxResponseBytes,
        capture: recorder,
        credentialOrigins: namedUrls(o.agentUrl, {}),
      },
      endpoints,
    );
    const call = async (task: string, args: Record<string, unknown>, prepare?: (r: OutgoingRequest) => OutgoingRequest): Promise<TaskReply> => {
      log.calls++;
      const r = await t.call(task, args, prepare ? { prepare } : {});
      log.lines.push(`${kind} ${task}: ${r.ok ? r.status : r.error ? `${r.error.code} ${r.error.message}` : (r.failure?.message ?? r.status)}`);
      return r;
    };
    try {
      await t.open();
      const signed = new Set<string>();
      const sign = (req: OutgoingRequest): OutgoingRequest => {
        const now = Math.floor(Date.now() / 1000);
        const out = signRequest(
          { method: req.method, url: req.url, headers: { ...req.headers }, body: req.body },
          {
            profile: 'request',
            ids,
            key,
            encoding: 'legacy',
            coverContentDigest: true,
            ...(faults.has('stale-signature') ? { created: now - 900, expires: now - 600 } : {}),
          },
        );
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(out.headers)) headers[k.toLowerCase()] = v;
        return { ...req, headers, body: out.body };
      };
      /** A call retried while its outcome is unknown: same key (if any) and payload, signed afresh. */
      const attempt = async (task: string, args: Record<string, unknown>): Promise<TaskReply> => {
        let r: TaskReply | undefined;
        for (let n = 1; n <= (o.maxAttempts ?? 6); n++) {
          const retry = n > 1;
          if (retry) log.retries++;
          const sent = retry && faults.has('new-key-on-retry') && 'idempotency_key' in args ? { ...args, idempotency_key: newKey() } : args;
          const signIt = signed.has(task) && !(retry && faults.has('retry-unsigned'));
          r = await call(task, sent, signIt ? sign : undefined);
          if (!unknownOutcome(r)) return r;
          await new Promise((done) => setTimeout(done, 10 * n));
        }
        return r as TaskReply;
      };
      const caps = await attempt(ids.capabilitiesTask, { context: { buyer: 'calling-mock' } });
      const signing = (caps.payload as { request_signing?: { supported?: unknown; supported_for?: unknown } } | undefined)?.request_signing;
      if (signing?.supported === true && Array.isArray(signing.supported_for)) for (const op of signing.supported_for) signed.add(String(op));
      const products = await attempt('get_products', { buying_mode: 'brief', brief: 'display in news, one month', brand: BRAND });
      const offer = firstOffer(products.payload);
      if (!offer) continue;
      const account = { brand: BRAND, operator: `cb-${randomBytes(6).toString('hex')}.example` };
      const createKey = newKey();
      const push: Record<string, unknown> = { url: o.webhookUrl ?? 'https://calling-buyer.example/hooks/create' };
      if (!faults.has('no-operation-id')) push.operation_id = randomUUID();
      const created = await attempt('create_media_buy', {
        idempotency_key: createKey,
        account,
        brand: BRAND,
        start_time: 'asap',
        end_time: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        packages: [{ ...offer, budget: faults.has('invalid-arguments') ? '1000' : 1000 }],
        push_notification_config: push,
        context: { step: 'create' },
      });
      const buy = (created.payload as { media_buy_id?: unknown } | undefined)?.media_buy_id;
      await attempt('get_media_buys', { account });
      if (typeof buy !== 'string') continue;
      for (const paused of [true, false]) {
        const args: Record<string, unknown> = { account, media_buy_id: buy, paused };
        if (faults.has('key-reused')) args.idempotency_key = createKey;
        else if (!faults.has('no-idempotency-key')) args.idempotency_key = newKey();
        await attempt('update_media_buy', args);
      }
    } finally {
      await t.close();
    }
  }
  return log;
}
