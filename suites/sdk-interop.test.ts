/**
 * A run against an MCP server built directly on the official SDK (McpServer + stateful
 * StreamableHTTPServerTransport, SSE replies), not our mock: the harness must complete every
 * suite without a harness error, whatever the server's own conformance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { certify } from '../harness/certify/index.js';
import { protocolIds } from '../harness/core/token.js';
import type { RunResult } from '../harness/core/engine/result.js';

function sdkSeller(): McpServer {
  const server = new McpServer({ name: 'sdk-seller', version: '1.0.0' });
  const json = (x: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(x) }] });
  const buys = new Map<string, Record<string, unknown>>();
  const args = { inputSchema: z.looseObject({}) };
  const ids = protocolIds();
  server.registerTool(ids.capabilitiesTask, args, async () => json({ [ids.token]: { idempotency: { supported: false } } }));
  server.registerTool('get_products', args, async (a) =>
    json({
      products: [
        {
          product_id: 'p1',
          name: 'CTV',
          channels: ['ctv'],
          delivery_type: 'guaranteed',
          pricing_options: [{ pricing_option_id: 'po1', pricing_model: 'cpm', currency: 'USD', fixed_price: 20 }],
        },
      ],
      ...(a.context ? { context: a.context } : {}),
    }),
  );
  server.registerTool('create_media_buy', args, async (a) => {
    const id = `mb-${randomUUID()}`;
    const buy = { media_buy_id: id, status: 'active', revision: 1, valid_actions: ['pause', 'cancel'], packages: a.packages };
    buys.set(id, buy);
    return json(buy);
  });
  server.registerTool('get_media_buys', args, async () => json({ media_buys: [...buys.values()] }));
  server.registerTool('list_creative_formats', args, async () => json({ formats: [] }));
  return server;
}

describe('a server built directly on the official MCP SDK', () => {
  let http: Server;
  let url: string;
  let run: RunResult;
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  beforeAll(async () => {
    http = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string') {
          res.writeHead(404).end();
          return;
        }
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, t) });
        await sdkSeller().connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    run = await certify({ agentUrl: url, transports: ['mcp'], transportExplicit: true });
  });

  afterAll(async () => {
    await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    await new Promise((r) => http.close(r));
  });

  it('completes every suite without a harness error', () => {
    expect(run.overall_status).not.toBe('unreachable');
    // no harness error and nothing blocked; the only coverage gaps are the checks that need a test controller
    expect(run.coverage.blocked).toEqual([]);
    expect(run.coverage.gaps.map((g) => g.gap)).toEqual([
      'test controller (force_create_media_buy_arm, force_task_completion)',
      'test controller (force_media_buy_status)',
    ]);
    expect(run.checks.filter((c) => c.outcome === 'error').map((c) => `${c.check_id}: ${c.message}`)).toEqual([]);
    expect(run.transport_info[0]).toMatchObject({ reachable: true, sessions_opened: 1 });
  });

  it('grades what the server really does', () => {
    const outcome = (id: string) => run.checks.find((c) => c.check_id === id)?.outcome;
    expect(outcome('capabilities.task.answers')).toBe('pass');
    expect(outcome('capabilities.mcp.session-reused')).toBe('pass');
    expect(outcome('schemas.context.echoed')).toBe('pass');
    // It declares no idempotency support: the idempotency checks do not apply.
    expect(outcome('idempotency.replay.flagged')).toBe('not_applicable');
    // It does not answer an unknown tool with isError INVALID_REQUEST as spec 7 requires.
    expect(outcome('errors.unknown-task.invalid-request')).toBe('fail');
  });
});
