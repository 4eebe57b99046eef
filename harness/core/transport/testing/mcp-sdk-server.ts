/**
 * Test-only MCP servers built on the official SDK (`StreamableHTTPServerTransport` behind
 * express), on loopback with an ephemeral port. Stateful or stateless, JSON or SSE replies.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { protocolIds } from '../../token.js';

export interface SeenRequest {
  method: string;
  rpcMethod?: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface McpTestServer {
  /** The MCP endpoint (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  initializeCount(): number;
  seen: SeenRequest[];
  /** Forget every session, as a server does when sessions expire. */
  expireSessions(): void;
  close(): Promise<void>;
}

export interface McpServerOptions {
  stateful: boolean;
  json: boolean;
  /** When set, every request must carry `Authorization: Bearer <requireToken>`. */
  requireToken?: string;
  token?: string;
}

export const PRODUCTS = { products: [{ product_id: 'p1', name: 'Premium CTV', channels: ['ctv'] }] };

export function buildToolServer(token = 'proto'): McpServer {
  const ids = protocolIds(token);
  const server = new McpServer({ name: 'test-seller', version: '9.9.9' }, { capabilities: { logging: {} } });
  const json = (x: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(x) }] });
  server.registerTool('get_products', { description: 'JSON text payload' }, async () => json(PRODUCTS));
  server.registerTool('get_summary', { description: 'prose + structuredContent' }, async () => ({
    content: [{ type: 'text' as const, text: 'Found 1 product for your brief.' }],
    structuredContent: PRODUCTS,
  }));
  server.registerTool('fail_task', { description: 'isError with JSON text' }, async () => ({
    ...json({ code: 'INVALID_REQUEST', message: 'brief is required' }),
    isError: true,
  }));
  server.registerTool('fail_prose', { description: 'isError with prose + structured error' }, async () => ({
    content: [{ type: 'text' as const, text: 'Sorry, that went wrong.' }],
    structuredContent: { [ids.errorMember]: { code: 'RATE_LIMITED', message: 'slow down' } },
    isError: true,
  }));
  server.registerTool('fail_plain', { description: 'isError with prose only' }, async () => ({
    content: [{ type: 'text' as const, text: 'plain failure' }],
    isError: true,
  }));
  server.registerTool('async_task', { description: 'submitted task' }, async () => json({ status: 'submitted', task_id: 'task-123' }));
  server.registerTool('echo', { description: 'echo arguments', inputSchema: z.looseObject({}) }, async (args) => json({ echoed: args }));
  server.registerTool('notify_then_answer', { description: 'log notification first' }, async (extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working on it' } });
    return json({ done: true });
  });
  return server;
}

export async function startMcpServer(opts: McpServerOptions): Promise<McpTestServer> {
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  const seen: SeenRequest[] = [];
  let inits = 0;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const closers: Array<() => Promise<void>> = [];

  app.use((req: Request, res: Response, next) => {
    const rpcMethod = typeof req.body?.method === 'string' ? (req.body.method as string) : undefined;
    seen.push({ method: req.method, rpcMethod, headers: { ...req.headers }, body: req.body });
    if (rpcMethod === 'initialize') inits += 1;
    if (opts.requireToken !== undefined && req.headers.authorization !== `Bearer ${opts.requireToken}`) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="test-seller", error="invalid_token"')
        .json({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null });
      return;
    }
    next();
  });

  if (opts.stateful) {
    app.all('/mcp', async (req: Request, res: Response) => {
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string') {
        const s = sessions.get(sid);
        if (!s) {
          res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
          return;
        }
        await s.transport.handleRequest(req, res, req.body);
        return;
      }
      if (req.method === 'POST' && isInitializeRequest(req.body)) {
        const server = buildToolServer(opts.token);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: opts.json,
          onsessioninitialized: (id) => {
            sessions.set(id, { transport, server });
          },
        });
        closers.push(async () => {
          await transport.close();
          await server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        return;
      }
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
    });
  } else {
    app.post('/mcp', async (req: Request, res: Response) => {
      const server = buildToolServer(opts.token);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: opts.json });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
    app.all('/mcp', (_req: Request, res: Response) => {
      res.status(405).set('Allow', 'POST').end();
    });
  }

  const http: HttpServer = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    initializeCount: () => inits,
    seen,
    expireSessions: () => sessions.clear(),
    async close() {
      for (const c of closers) await c().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
