/**
 * MCP over streamable HTTP, spoken directly on the wire (no SDK client): one session per run,
 * opened by `initialize` on first use, reused for every call, re-opened once when the server
 * answers 404 to the session id (expired).
 */
import { protocolIds, type ProtocolIds } from '../token.js';
import { failure } from './errors.js';
import { HttpClient, validateHttpUrl } from './http-client.js';
import { isObject } from './jsonrpc.js';
import { decodeToolResult } from './mcp-payload.js';
import { failureReply, makeReply, type ReplyContext } from './reply.js';
import { postJsonRpc, type RpcOutcome } from './rpc.js';
import { HARNESS_NAME, HARNESS_VERSION } from './version.js';
import type { CallOptions, OpenInfo, TaskListReply, TaskReply, Transport, TransportSettings, TransportStats, WireExchange } from './types.js';
import { OpenOnce } from './open-once.js';

export const MCP_PROTOCOL_VERSION = '2025-06-18';
/** Upper bound on `tools/list` pages followed through `nextCursor`. */
export const MAX_TOOL_PAGES = 50;
/** Upper bound on tools kept from `tools/list` (all pages together). */
export const MAX_TOOLS = 10_000;

export interface McpOptions {
  /** Protocol version offered in `initialize` (default 2025-06-18). */
  protocolVersion?: string;
}

interface Session {
  /** Absent for stateless servers. */
  id?: string;
  protocolVersion: string;
  info: OpenInfo;
}

interface RpcRequest {
  rpcMethod: string;
  params: unknown;
  purpose: string;
  options: CallOptions;
}

export class McpTransport implements Transport {
  readonly kind = 'mcp' as const;
  readonly endpoint: string;
  private readonly http: HttpClient;
  private readonly ids: ProtocolIds;
  private readonly offeredVersion: string;
  private nextId = 1;
  private session?: Session;
  private readonly opened = new OpenOnce((signal) => this.initialize(signal));
  private reopening?: Promise<OpenInfo>;
  private sessionsOpened = 0;
  private calls = 0;

  constructor(settings: TransportSettings, endpoint: string, options: McpOptions = {}) {
    this.endpoint = validateHttpUrl(endpoint, 'MCP endpoint').toString();
    this.ids = protocolIds(settings.token);
    this.http = new HttpClient({ ...settings, credentialOrigins: settings.credentialOrigins ?? [settings.agentUrl, this.endpoint] });
    this.offeredVersion = options.protocolVersion ?? MCP_PROTOCOL_VERSION;
  }

  open(signal?: AbortSignal): Promise<OpenInfo> {
    return this.opened.open(signal);
  }

  private baseHeaders(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (this.session?.id !== undefined) h['mcp-session-id'] = this.session.id;
    if (this.session) h['mcp-protocol-version'] = this.session.protocolVersion;
    return { ...h, ...extra };
  }

  private async initialize(signal?: AbortSignal): Promise<OpenInfo> {
    const exchanges: WireExchange[] = [];
    const outcome = await postJsonRpc(this.http, {
      url: this.endpoint,
      rpcMethod: 'initialize',
      id: this.nextId++,
      params: {
        protocolVersion: this.offeredVersion,
        capabilities: {},
        clientInfo: { name: HARNESS_NAME, version: HARNESS_VERSION },
      },
      headers: { accept: 'application/json, text/event-stream' },
      transport: 'mcp',
      purpose: 'initialize',
      signal,
    });
    exchanges.push(outcome.exchange);
    if (outcome.failure) return { transport: 'mcp', exchanges, failure: outcome.failure };
    const result = outcome.response?.result;
    if (!isObject(result)) {
      return { transport: 'mcp', exchanges, failure: failure('protocol', 'initialize result is not an object') };
    }
    const protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : this.offeredVersion;
    const info: OpenInfo = { transport: 'mcp', protocolVersion, exchanges };
    const serverInfo = result.serverInfo;
    if (isObject(serverInfo)) {
      if (typeof serverInfo.name === 'string') info.serverName = serverInfo.name;
      if (typeof serverInfo.version === 'string') info.serverVersion = serverInfo.version;
    }
    const sessionId = outcome.http?.headers['mcp-session-id'];
    if (sessionId !== undefined && sessionId !== '') info.sessionId = sessionId;
    this.session = { id: info.sessionId, protocolVersion, info };
    this.sessionsOpened += 1;

    const note = await postJsonRpc(this.http, {
      url: this.endpoint,
      rpcMethod: 'notifications/initialized',
      headers: this.baseHeaders(),
      transport: 'mcp',
      purpose: 'notifications/initialized',
      signal,
    });
    exchanges.push(note.exchange);
    return info;
  }

  /**
   * Re-open after the server declared `staleId` expired. Concurrent callers share one re-open;
   * `mine` tells whether this caller performed it (and so owns its exchanges as evidence).
   */
  private async reinitialize(staleId: string, signal?: AbortSignal): Promise<{ info: OpenInfo; mine: boolean }> {
    if (this.reopening) return { info: await this.reopening, mine: false };
    if (this.session && this.session.id !== staleId) return { info: this.session.info, mine: false };
    const attempt = this.initialize(signal);
    this.reopening = attempt;
    try {
      const info = await attempt;
      if (!info.failure) this.opened.reset(info);
      return { info, mine: true };
    } finally {
      this.reopening = undefined;
    }
  }

  /** One JSON-RPC request inside the session, with the expired-session retry. */
  private async rpc(req: RpcRequest, exchanges: WireExchange[], notes: string[]): Promise<RpcOutcome> {
    const send = (): Promise<RpcOutcome> =>
      postJsonRpc(this.http, {
        url: this.endpoint,
        rpcMethod: req.rpcMethod,
        params: req.params,
        id: this.nextId++,
        headers: this.baseHeaders(req.options.headers),
        transport: 'mcp',
        purpose: req.purpose,
        signal: req.options.signal,
        auth: req.options.auth,
        prepare: req.options.prepare,
      });
    const sentSession = this.session?.id;
    const first = await send();
    exchanges.push(first.exchange);
    if (first.httpStatus !== 404 || sentSession === undefined) return first;

    notes.push(`server answered 404 to session ${sentSession.slice(0, 8)}…: session expired; re-initializing once and retrying`);
    const { info: reopened, mine } = await this.reinitialize(sentSession, req.options.signal);
    if (mine) exchanges.push(...reopened.exchanges);
    if (reopened.failure) {
      notes.push(`re-initialize failed: ${reopened.failure.message}`);
      return first;
    }
    const second = await send();
    exchanges.push(second.exchange);
    return second;
  }

  async call(task: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<TaskReply> {
    this.calls += 1;
    const ctx: ReplyContext = { transport: 'mcp', task, t0: performance.now(), exchanges: [], notes: [] };
    const opened = await this.open(options.signal);
    if (opened.failure) {
      ctx.exchanges.push(...opened.exchanges);
      ctx.notes.push('the MCP session could not be opened');
      return failureReply(ctx, opened.failure, this.ids.errorMember);
    }
    if (options.a2aPushNotificationConfig) {
      ctx.notes.push('A2A-native push registration (configuration.pushNotificationConfig) has no MCP form; nothing was sent');
      return failureReply(ctx, failure('refused', 'A2A-native push registration is an A2A call option; MCP has no such channel'), this.ids.errorMember);
    }
    this.http.redactCredentialsOf(args, options.pushNotificationConfig);
    const argumentsOut = options.pushNotificationConfig ? { ...args, push_notification_config: options.pushNotificationConfig } : args;
    const outcome = await this.rpc(
      {
        rpcMethod: 'tools/call',
        params: { name: task, arguments: argumentsOut },
        purpose: options.purpose ?? `tools/call ${task}`,
        options,
      },
      ctx.exchanges,
      ctx.notes,
    );
    ctx.notes.push(...outcome.notes);
    if (outcome.httpStatus !== undefined) ctx.httpStatus = outcome.httpStatus;
    if (outcome.failure) return failureReply(ctx, outcome.failure, this.ids.errorMember);

    const decoded = decodeToolResult(outcome.response?.result, this.ids.errorMember);
    ctx.notes.push(...decoded.notes);
    return makeReply(ctx, decoded);
  }

  async listTasks(signal?: AbortSignal): Promise<TaskListReply> {
    const exchanges: WireExchange[] = [];
    const notes: string[] = [];
    const base = { transport: 'mcp' as const, source: 'tools/list' as const, exchanges };
    const opened = await this.open(signal);
    if (opened.failure) return { ...base, names: [], failure: opened.failure, exchanges: [...opened.exchanges] };

    const tools: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const outcome = await this.rpc(
        { rpcMethod: 'tools/list', params: cursor === undefined ? {} : { cursor }, purpose: 'tools/list', options: { signal } },
        exchanges,
        notes,
      );
      pages += 1;
      if (outcome.failure) return { ...base, names: names(tools), failure: outcome.failure, raw: { tools, pages } };
      const result = outcome.response?.result;
      if (!isObject(result) || !Array.isArray(result.tools)) {
        return { ...base, names: names(tools), failure: failure('protocol', 'tools/list result has no tools array'), raw: result };
      }
      tools.push(...result.tools.slice(0, MAX_TOOLS - tools.length));
      if (tools.length >= MAX_TOOLS) {
        return {
          ...base,
          names: names(tools),
          failure: failure('protocol', `tools/list lists more than ${MAX_TOOLS} tools`),
          raw: { tools: tools.slice(0, 100), pages },
        };
      }
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '') break;
      if (seen.has(next)) {
        return { ...base, names: names(tools), failure: failure('protocol', `tools/list repeated cursor ${JSON.stringify(next)}`), raw: { tools, pages } };
      }
      if (pages >= MAX_TOOL_PAGES) {
        return { ...base, names: names(tools), failure: failure('protocol', `tools/list still paging after ${MAX_TOOL_PAGES} pages`), raw: { tools, pages } };
      }
      seen.add(next);
      cursor = next;
    }
    return { ...base, names: names(tools), raw: { tools, pages } };
  }

  async getTask(taskId: string, options: CallOptions = {}): Promise<TaskReply> {
    const ctx: ReplyContext = { transport: 'mcp', task: options.purpose ?? 'tasks/get', t0: performance.now(), exchanges: [], notes: [] };
    return failureReply(ctx, failure('protocol', `MCP has no task polling over tools: cannot get task ${JSON.stringify(taskId)}`), this.ids.errorMember);
  }

  stats(): TransportStats {
    return { sessionsOpened: this.sessionsOpened, calls: this.calls };
  }

  /** Ends the session (HTTP DELETE, as MCP asks of clients) and closes connections. */
  async close(): Promise<void> {
    const id = this.session?.id;
    this.session = undefined;
    this.opened.reset();
    if (id !== undefined) {
      await this.http
        .send({
          method: 'DELETE',
          url: this.endpoint,
          headers: { 'mcp-session-id': id },
          transport: 'mcp',
          purpose: 'session/delete',
          timeoutMs: 2_000,
        })
        .catch(() => undefined);
    }
    await this.http.close();
  }
}

function names(tools: unknown[]): string[] {
  return tools.flatMap((t) => (isObject(t) && typeof t.name === 'string' ? [t.name] : []));
}
