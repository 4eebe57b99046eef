/**
 * A2A over JSON-RPC (v0.3 shapes), spoken directly on the wire. `open()` reads the agent card
 * (its `url` is the JSON-RPC endpoint, its skills are the task list); a task call is a blocking
 * `message/send` whose single data part names the skill and carries the parameters.
 *
 * The card is the agent's word, not the user's: a card `url` on an origin the user did not name
 * makes the transport unusable (a `refused` failure; nothing is sent there) unless the caller
 * allows card origins, and even then the run's bearer token stays with the named origins unless
 * the caller says it may follow the card.
 */
import { randomUUID } from 'node:crypto';
import { protocolIds, type ProtocolIds } from '../token.js';
import { decodeA2aResult } from './a2a-payload.js';
import { describeError, failure, TransportConfigError } from './errors.js';
import { HttpClient, originOf, validateHttpUrl } from './http-client.js';
import { tooDeepMessage } from './bounded-json.js';
import { isObject, tryParseJson } from './jsonrpc.js';
import { failureReply, makeReply, type ReplyContext } from './reply.js';
import { postJsonRpc } from './rpc.js';
import { OpenOnce } from './open-once.js';
import {
  TERMINAL_TASK_STATUSES,
  type CallOptions,
  type OpenInfo,
  type TaskListReply,
  type TaskReply,
  type TransportFailure,
  type Transport,
  type TransportSettings,
  type TransportStats,
  type WireExchange,
} from './types.js';

export const A2A_PROTOCOL_VERSION = '0.3';
export const POLL_INITIAL_DELAY_MS = 100;
export const POLL_MAX_DELAY_MS = 2_000;
const MAX_REMEMBERED_TASKS = 10_000;

export interface A2aEndpoints {
  /** Agent card URLs, tried in order. */
  agentCard: string[];
  /** JSON-RPC endpoint to use when the card has no `url`. */
  a2a?: string;
}

/**
 * What to do with an agent card `url` on an origin the user did not name: `refuse` (default),
 * `allow` (use it without the bearer token), `allow-with-token` (use it and send the token there).
 */
export type CardOriginPolicy = 'refuse' | 'allow' | 'allow-with-token';

export interface A2aOptions {
  cardOrigin?: CardOriginPolicy;
}

/** Sleep that wakes early (returning false) when the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class A2aTransport implements Transport {
  readonly kind = 'a2a' as const;
  private readonly http: HttpClient;
  private readonly ids: ProtocolIds;
  private readonly cardUrls: string[];
  private readonly fallback?: string;
  private rpcUrl?: string;
  private card?: Record<string, unknown>;
  private readonly opened = new OpenOnce((signal) => this.fetchCard(signal));
  private nextId = 1;
  private calls = 0;
  private readonly taskNames = new Map<string, string>();
  /** Origins of the agent URL, its card and A2A URLs, and those the user named for credentials: a card url elsewhere is the agent's choice. */
  private readonly namedOrigins: Set<string>;
  private readonly cardOrigin: CardOriginPolicy;

  constructor(settings: TransportSettings, endpoints: A2aEndpoints, options: A2aOptions = {}) {
    if (endpoints.agentCard.length === 0 && !endpoints.a2a) {
      throw new TransportConfigError('A2A transport needs an agent card URL or an A2A endpoint');
    }
    this.cardUrls = endpoints.agentCard.map((u) => validateHttpUrl(u, 'agent card URL').toString());
    if (endpoints.a2a) this.fallback = validateHttpUrl(endpoints.a2a, 'A2A endpoint').toString();
    this.ids = protocolIds(settings.token);
    const own = [settings.agentUrl, ...this.cardUrls, ...(this.fallback ? [this.fallback] : [])];
    // The token goes only to the credential origins; the card url may point anywhere the agent's own
    // URLs are (an agent a discovery file names is called without the run's token, on its own origin).
    const named = settings.credentialOrigins ?? own;
    this.namedOrigins = new Set([...named, ...own].flatMap((u) => originOf(u) ?? []));
    this.cardOrigin = options.cardOrigin ?? 'refuse';
    this.http = new HttpClient({ ...settings, credentialOrigins: named });
  }

  /** The JSON-RPC endpoint: the card's `url` once opened, else the configured one. */
  get endpoint(): string {
    return this.rpcUrl ?? this.fallback ?? this.cardUrls[0];
  }

  /** The agent card read by `open()`, if any. */
  agentCard(): Record<string, unknown> | undefined {
    return this.card;
  }

  open(signal?: AbortSignal): Promise<OpenInfo> {
    return this.opened.open(signal);
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    return { accept: 'application/json', 'a2a-version': A2A_PROTOCOL_VERSION, ...extra };
  }

  private async fetchCard(signal?: AbortSignal): Promise<OpenInfo> {
    const exchanges: WireExchange[] = [];
    const failures: TransportFailure[] = [];
    for (const url of this.cardUrls) {
      const res = await this.http.send({ method: 'GET', url, headers: this.headers(), transport: 'a2a', purpose: 'agent-card', signal });
      exchanges.push(res.exchange);
      if (!res.ok) {
        failures.push(res.failure);
        if (res.failure.kind === 'aborted') break;
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        const extra: Omit<TransportFailure, 'kind' | 'message'> = { httpStatus: res.status };
        if (res.status === 401 && res.headers['www-authenticate'] !== undefined) extra.wwwAuthenticate = res.headers['www-authenticate'];
        failures.push(failure('http_status', `agent card ${url}: HTTP ${res.status}`, extra));
        continue;
      }
      const parsed = tryParseJson(res.text);
      if (!parsed.ok || !isObject(parsed.value)) {
        failures.push(failure('protocol', !parsed.ok && parsed.tooDeep ? tooDeepMessage(`agent card ${url}`) : `agent card ${url} is not a JSON object`));
        continue;
      }
      const card = parsed.value;
      let rpcUrl = this.fallback;
      if (typeof card.url === 'string') {
        try {
          rpcUrl = validateHttpUrl(card.url, 'agent card url').toString();
        } catch (err) {
          return { transport: 'a2a', agentCard: card, exchanges, failure: failure('protocol', describeError(err)) };
        }
      }
      if (!rpcUrl) {
        return {
          transport: 'a2a',
          agentCard: card,
          exchanges,
          failure: failure('protocol', `agent card ${url} has no url and no A2A endpoint was configured`),
        };
      }
      const rpcOrigin = originOf(rpcUrl);
      if (rpcOrigin === undefined || !this.namedOrigins.has(rpcOrigin)) {
        if (this.cardOrigin === 'refuse') {
          const message = `agent card url ${rpcUrl} is on another origin than ${originOf(url)}; pass --a2a-url to use it (or allow card origins with --allow-card-origin)`;
          return { transport: 'a2a', agentCard: card, exchanges, failure: failure('refused', message) };
        }
        if (this.cardOrigin === 'allow-with-token') this.http.allowTokenFor(rpcUrl);
      }
      this.card = card;
      this.rpcUrl = rpcUrl;
      const info: OpenInfo = { transport: 'a2a', agentCard: card, exchanges };
      if (typeof card.protocolVersion === 'string') info.protocolVersion = card.protocolVersion;
      if (typeof card.name === 'string') info.serverName = card.name;
      if (typeof card.version === 'string') info.serverVersion = card.version;
      return info;
    }
    if (this.cardUrls.length === 0 && this.fallback) {
      this.rpcUrl = this.fallback;
      return { transport: 'a2a', exchanges };
    }
    // Prefer the most telling failure: anything other than "not found" (e.g. 401, timeout).
    const telling = failures.find((f) => f.httpStatus !== 404) ?? failures[failures.length - 1];
    return { transport: 'a2a', exchanges, failure: telling ?? failure('protocol', 'no agent card found') };
  }

  async listTasks(signal?: AbortSignal): Promise<TaskListReply> {
    const opened = await this.open(signal);
    const base = { transport: 'a2a' as const, source: 'agent_card' as const, exchanges: [...opened.exchanges] };
    if (opened.failure) return { ...base, names: [], failure: opened.failure, ...(opened.agentCard ? { raw: opened.agentCard } : {}) };
    const card = this.card;
    if (!card) return { ...base, names: [], failure: failure('protocol', 'no agent card: the task list is unknown') };
    if (!Array.isArray(card.skills)) {
      return { ...base, names: [], raw: card, failure: failure('protocol', 'agent card has no skills array') };
    }
    const names = card.skills.flatMap((s) => (isObject(s) && typeof s.id === 'string' ? [s.id] : []));
    return { ...base, names, raw: card };
  }

  private remember(taskId: string | undefined, task: string): void {
    if (taskId === undefined) return;
    this.taskNames.set(taskId, task);
    if (this.taskNames.size > MAX_REMEMBERED_TASKS) {
      const oldest = this.taskNames.keys().next().value;
      if (oldest !== undefined) this.taskNames.delete(oldest);
    }
  }

  /** One JSON-RPC request to the A2A endpoint, decoded into a reply (pushed onto ctx). */
  private async request(ctx: ReplyContext, rpcMethod: string, params: unknown, purpose: string, options: CallOptions, timeoutMs?: number): Promise<TaskReply> {
    const outcome = await postJsonRpc(this.http, {
      url: this.endpoint,
      rpcMethod,
      params,
      id: this.nextId++,
      headers: this.headers(options.headers),
      transport: 'a2a',
      purpose,
      signal: options.signal,
      auth: options.auth,
      prepare: options.prepare,
      timeoutMs,
    });
    ctx.exchanges.push(outcome.exchange);
    ctx.notes.push(...outcome.notes);
    if (outcome.httpStatus !== undefined) ctx.httpStatus = outcome.httpStatus;
    if (outcome.failure) return failureReply(ctx, outcome.failure, this.ids.errorMember);
    const decoded = decodeA2aResult(outcome.response?.result, this.ids.errorMember);
    if (!decoded) {
      return failureReply(ctx, failure('protocol', `${rpcMethod} result is neither an A2A Task nor a Message`), this.ids.errorMember);
    }
    ctx.notes.push(...decoded.notes);
    return makeReply(ctx, decoded);
  }

  /** Poll `tasks/get` with backoff until the task is terminal or the call's total time is spent. */
  private async poll(first: TaskReply, ctx: ReplyContext, options: CallOptions): Promise<TaskReply> {
    const deadline = ctx.t0 + this.http.totalTimeoutMs;
    let reply = first;
    let delay = POLL_INITIAL_DELAY_MS;
    let polls = 0;
    while (!reply.failure && reply.taskId !== undefined && !TERMINAL_TASK_STATUSES.includes(reply.status)) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        ctx.notes.push(`task still ${reply.status} after ${polls} tasks/get poll(s) within the ${this.http.totalTimeoutMs} ms call timeout`);
        return makeReply(ctx, { ...replyFields(reply) });
      }
      const woke = await sleep(Math.min(delay, remaining), options.signal);
      if (!woke) return failureReply(ctx, failure('aborted', 'polling aborted by the caller'), this.ids.errorMember);
      delay = Math.min(delay * 2, POLL_MAX_DELAY_MS);
      const left = Math.max(1, Math.floor(deadline - performance.now()));
      polls += 1;
      reply = await this.request(ctx, 'tasks/get', { id: reply.taskId }, `tasks/get ${reply.taskId}`, options, left);
    }
    return reply;
  }

  async call(task: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
    this.calls += 1;
    const ctx: ReplyContext = { transport: 'a2a', task, t0: performance.now(), exchanges: [], notes: [] };
    const opened = await this.open(options.signal);
    if (opened.failure) {
      ctx.exchanges.push(...opened.exchanges);
      ctx.notes.push('the A2A agent card could not be read');
      return failureReply(ctx, opened.failure, this.ids.errorMember);
    }
    this.http.redactCredentialsOf(args, options.pushNotificationConfig, options.a2aPushNotificationConfig);
    // The protocol's registration is a task argument (spec 6.2: MCP envelope); the native one is A2A configuration (A2A envelope).
    const parameters = options.pushNotificationConfig ? { ...args, push_notification_config: options.pushNotificationConfig } : args;
    const configuration: Record<string, unknown> = { blocking: true };
    if (options.a2aPushNotificationConfig) configuration.pushNotificationConfig = options.a2aPushNotificationConfig;
    const params = {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        ...(options.a2aContextId ? { contextId: options.a2aContextId } : {}),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: task, parameters } }],
      },
      configuration,
    };
    const first = await this.request(ctx, 'message/send', params, options.purpose ?? `message/send ${task}`, options);
    this.remember(first.taskId, task);
    return options.pollUntilTerminal ? this.poll(first, ctx, options) : first;
  }

  async getTask(taskId: string, options: CallOptions = {}): Promise<TaskReply> {
    const task = this.taskNames.get(taskId) ?? 'tasks/get';
    const ctx: ReplyContext = { transport: 'a2a', task, t0: performance.now(), exchanges: [], notes: [] };
    const opened = await this.open(options.signal);
    if (opened.failure) {
      ctx.exchanges.push(...opened.exchanges);
      return failureReply(ctx, opened.failure, this.ids.errorMember);
    }
    const first = await this.request(ctx, 'tasks/get', { id: taskId }, options.purpose ?? `tasks/get ${taskId}`, options);
    return options.pollUntilTerminal ? this.poll(first, ctx, options) : first;
  }

  stats(): TransportStats {
    return { sessionsOpened: 0, calls: this.calls };
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

function replyFields(r: TaskReply): Parameters<typeof makeReply>[1] {
  return {
    status: r.status,
    payloadSource: r.payloadSource,
    isError: r.isError,
    ...(r.payload !== undefined ? { payload: r.payload } : {}),
    ...(r.text !== undefined ? { text: r.text } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.taskId !== undefined ? { taskId: r.taskId } : {}),
    ...(r.contextId !== undefined ? { contextId: r.contextId } : {}),
  };
}
