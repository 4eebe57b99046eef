/**
 * The MCP endpoint (/mcp): the SDK's low-level `Server` over `StreamableHTTPServerTransport` in
 * stateful mode. One transport + server per session, kept in a bounded map (least recently used
 * session closed beyond the bound). A request naming an unknown session answers 404 and a
 * non-initialize request without a session answers 400, as the SDK does.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FaultSet } from '../faults.js';
import type { SellerModel } from '../domain/model.js';
import type { CallerContext } from '../domain/task-def.js';
import type { McpReplyMode } from '../options.js';
import { type RouteContext, jsonRpcError, sendJson } from '../http/server.js';
import { toCallToolResult } from './tool-result.js';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  toolCalls: number;
}

export interface McpEndpointOptions {
  replyMode: McpReplyMode;
  maxSessions: number;
  faults: FaultSet;
  serverName: string;
  serverVersion: string;
  log: (line: string) => void;
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly model: SellerModel,
    private readonly opts: McpEndpointOptions,
  ) {}

  get sessionCount(): number {
    return this.sessions.size;
  }

  async handle(ctx: RouteContext): Promise<void> {
    const { req, res, json } = ctx;
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    // The SDK transport answers a bare 400 to a Host no URL parser accepts (":80", "[::1"); such a
    // request only gets here past a verifier fault (digest 1.6 step 3), which must show on MCP as on A2A.
    if (req.headers.host !== undefined && !URL.canParse(`http://${req.headers.host}/`)) req.headers.host = 'host.invalid';
    const authed = req as IncomingMessage & { auth?: AuthInfo };
    authed.auth = { token: '', clientId: ctx.caller?.principal ?? 'anonymous', scopes: [], extra: { caller: ctx.caller } };

    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || (this.opts.faults.has('session-per-call') && session.toolCalls > 0)) {
        if (session) await this.drop(sessionId);
        sendJson(res, 404, jsonRpcError(null, -32001, 'Session not found'));
        return;
      }
      this.sessions.delete(sessionId); // re-insert: most recently used last
      this.sessions.set(sessionId, session);
      await session.transport.handleRequest(authed, res, json);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(json)) {
      sendJson(res, 400, jsonRpcError(null, -32000, 'Bad Request: Mcp-Session-Id header is required'));
      return;
    }
    const session = await this.open();
    await session.transport.handleRequest(authed, res, json);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.drop(id)));
  }

  private async open(): Promise<Session> {
    const server = new Server(
      { name: this.opts.serverName, version: this.opts.serverVersion },
      { capabilities: { tools: {} }, instructions: 'Sandbox seller: every task answers sandbox data.' },
    );
    const session: Session = {
      server,
      toolCalls: 0,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: this.opts.replyMode === 'json',
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
          this.evictBeyondBound();
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
        },
      }),
    };
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.model.describeTasks() }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      session.toolCalls += 1;
      const caller = (extra.authInfo?.extra?.caller as CallerContext | undefined) ?? { principal: 'anonymous', transport: 'mcp' };
      const outcome = await this.model.dispatch(request.params.name, request.params.arguments ?? {}, caller);
      return toCallToolResult(outcome, this.model.services.ids, this.model.services.faults);
    });
    await server.connect(session.transport);
    return session;
  }

  private evictBeyondBound(): void {
    while (this.sessions.size > this.opts.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.opts.log(`mcp: session limit ${this.opts.maxSessions} reached, closing the least recently used session`);
      void this.drop(oldest);
    }
  }

  private async drop(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    if (!session) return;
    try {
      await session.server.close();
    } catch (err) {
      this.opts.log(`mcp: closing session failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
