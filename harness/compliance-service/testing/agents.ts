/**
 * Agents for the storyboard operations' tests: a counting proxy in front of an agent (every
 * request it forwards is counted, so a test can prove a dry run sent nothing), and a minimal MCP
 * agent declaring whatever capabilities a test gives it (JSON replies; no A2A card).
 */
import { createServer, request, type Server } from 'node:http';
import { baseUrlOf, listen } from '../../core/net/listen.js';

export interface RunningTestAgent {
  url: string;
  /** Requests received so far (only those whose path starts with `pathPrefix`, when given). */
  count(pathPrefix?: string): number;
  close(): Promise<void>;
}

/** Counts the requests seen, or those whose path starts with a prefix. */
const counter =
  (paths: readonly string[]) =>
  (prefix?: string): number =>
    prefix === undefined ? paths.length : paths.filter((p) => p.startsWith(prefix)).length;

async function serve(server: Server): Promise<string> {
  return baseUrlOf(await listen(server, 0, '127.0.0.1'));
}

const closer = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Forwards every request to `target` (its origin; the path as asked), counting them. The client's
 * Host goes on unchanged, as a transparent proxy's does: signed requests cover the authority the
 * client called.
 */
export async function startCountingProxy(target: string): Promise<RunningTestAgent> {
  const to = new URL(target);
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  const url = await serve(server);
  return { url: `${url}/`, count: counter(paths), close: closer(server) };
}

/** A minimal MCP agent (`/mcp`, JSON replies) whose capabilities task answers `capabilities`. */
export async function startDeclaringAgent(capabilities: Record<string, unknown>, token = 'proto'): Promise<RunningTestAgent> {
  const paths: string[] = [];
  const capabilitiesTask = `get_${token}_capabilities`;
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    if (req.method !== 'POST' || !req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: { name?: string } };
      if (msg.id === undefined) {
        res.writeHead(202);
        res.end();
        return;
      }
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'declaring-agent-session' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      };
      if (msg.method === 'initialize')
        return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'declaring test agent', version: '1.0.0' } });
      if (msg.method === 'tools/list') return reply({ tools: [{ name: capabilitiesTask, inputSchema: { type: 'object' } }] });
      if (msg.method === 'tools/call' && msg.params?.name === capabilitiesTask)
        return reply({ content: [{ type: 'text', text: JSON.stringify(capabilities) }], structuredContent: capabilities });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } }));
    });
  });
  const url = await serve(server);
  return { url: `${url}/`, count: counter(paths), close: closer(server) };
}
