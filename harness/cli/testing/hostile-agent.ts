/**
 * Test-only hostile agent on loopback: a minimal MCP + A2A agent (initialize, tools/list,
 * tools/call, agent card, message/send) whose every answer a scenario can replace with a
 * misbehaviour: hanging, drip-feeding, endless SSE, huge or deeply nested bodies, resets,
 * redirects, secret echoes, control-character and workflow-command injection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Rpc {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
}

export interface AgentContext {
  origin: string;
  /** The Authorization header the harness sent. */
  authorization: string;
}

/** A misbehaviour: return true when it answered (or deliberately did not). */
export type Hook = (req: IncomingMessage, res: ServerResponse, rpc: Rpc | undefined, ctx: AgentContext) => boolean;

export interface Scenario {
  /** Replaces every answer on every path. */
  any?: Hook;
  initialize?: Hook;
  toolsList?: Hook;
  toolsCall?: Hook;
  card?: Hook;
  a2a?: Hook;
}

export interface HostileAgent {
  origin: string;
  close(): Promise<void>;
}

export const CAPABILITIES_TASK = 'get_proto_capabilities';

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
  return true;
}

export function rpcResult(res: ServerResponse, id: unknown, result: unknown): true {
  return json(res, 200, { jsonrpc: '2.0', id, result });
}

function capabilities(): Record<string, unknown> {
  return { adcp: { major_versions: [3] }, supported_protocols: ['media_buy'], media_buy: {}, idempotency: { replay_ttl_seconds: 86400 } };
}

function defaults(ctx: AgentContext): Required<Omit<Scenario, 'any'>> {
  return {
    initialize: (_q, res, rpc) =>
      json(
        res,
        200,
        { jsonrpc: '2.0', id: rpc?.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } } },
        { 'mcp-session-id': 'hostile-session-1' },
      ),
    toolsList: (_q, res, rpc) => rpcResult(res, rpc?.id, { tools: [{ name: CAPABILITIES_TASK, inputSchema: { type: 'object' } }] }),
    toolsCall: (_q, res, rpc) =>
      rpcResult(res, rpc?.id, { content: [{ type: 'text', text: JSON.stringify(capabilities()) }], structuredContent: capabilities() }),
    card: (_q, res) =>
      json(res, 200, {
        name: 'hostile',
        version: '1',
        protocolVersion: '0.3.0',
        url: `${ctx.origin}/a2a`,
        skills: [{ id: CAPABILITIES_TASK, name: CAPABILITIES_TASK, description: 'x', tags: [] }],
      }),
    a2a: (_q, res, rpc) =>
      rpcResult(res, rpc?.id, {
        kind: 'task',
        id: 'task-1',
        contextId: 'ctx-1',
        status: { state: 'completed' },
        artifacts: [{ artifactId: 'a1', parts: [{ kind: 'data', data: capabilities() }] }],
      }),
  };
}

export async function startHostileAgent(scenario: Scenario): Promise<HostileAgent> {
  const sockets = new Set<Socket>();
  let origin = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (chunks.length < 1000) chunks.push(c);
    });
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('end', () => {
      let rpc: Rpc | undefined;
      try {
        rpc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Rpc;
      } catch {
        rpc = undefined;
      }
      const ctx: AgentContext = { origin, authorization: String(req.headers.authorization ?? '') };
      const d = defaults(ctx);
      try {
        if (scenario.any?.(req, res, rpc, ctx)) return;
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'GET' && path.endsWith('agent-card.json')) return void (scenario.card ?? d.card)(req, res, rpc, ctx);
        if (req.method === 'DELETE') return void res.writeHead(204).end();
        if (path === '/a2a') return void (scenario.a2a ?? d.a2a)(req, res, rpc, ctx);
        if (path !== '/mcp') return void res.writeHead(404).end();
        if (rpc?.id === undefined) return void res.writeHead(202).end();
        if (rpc.method === 'initialize') return void (scenario.initialize ?? d.initialize)(req, res, rpc, ctx);
        if (rpc.method === 'tools/list') return void (scenario.toolsList ?? d.toolsList)(req, res, rpc, ctx);
        return void (scenario.toolsCall ?? d.toolsCall)(req, res, rpc, ctx);
      } catch {
        res.destroy();
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
