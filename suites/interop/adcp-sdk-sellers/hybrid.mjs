// The hybrid mock seller of @adcp/sdk (examples/decisioning-platform-mock-seller.ts: MockHybridSeller,
// sync fast path plus a background task for buyers that are not pre-approved, built by the example's
// own buildHybridServerExample), served over MCP and A2A from one AdcpServer the way the SDK's guide
// "Exposing your agent over A2A" shows: `serve()` for MCP, `createA2AAdapter(...).mount(app)` for A2A.
// Run with `node --import tsx --import ./loopback.mjs hybrid.mjs`; prints
// `READY {"mcp": …, "a2a": …, "card": …}` once both answer. Like the example, no bearer is required.
import express from 'express';
import { serve } from '@adcp/sdk';
import { createA2AAdapter } from '@adcp/sdk/server';
import { example, freePort, waitForHttp, announce } from './common.mjs';

// The example keeps its tasks and state in memory, which the SDK refuses outside development
// (the example doubles as the SDK's own integration test, run with NODE_ENV=test).
process.env.NODE_ENV = 'development';
const { MockHybridSeller, buildHybridServerExample } = await import(example('decisioning-platform-mock-seller.ts'));
const adcp = buildHybridServerExample(new MockHybridSeller());

const mcpPort = await freePort();
// One AdcpServer for every request (reuseAgent) is what lets A2A share the seller's state, but the
// SDK then serializes requests on it: an MCP client that opens the optional GET event stream (the
// SDK's own storyboard runner does) would hold it and every POST would wait. This agent pushes
// nothing on that stream, so it answers GET 405, as the MCP transport allows.
serve(() => adcp, {
  port: mcpPort,
  reuseAgent: true,
  preTransport: async (req, res) => {
    if (req.method !== 'GET') return false;
    res.writeHead(405, { allow: 'POST' }).end();
    return true;
  },
});

const app = express();
const a2aServer = app.listen(0, '127.0.0.1');
await new Promise((r) => a2aServer.once('listening', r));
const base = `http://127.0.0.1:${a2aServer.address().port}`;
const a2a = createA2AAdapter({
  server: adcp,
  agentCard: { name: 'mock-hybrid', description: 'MockHybridSeller of @adcp/sdk over A2A', url: `${base}/a2a`, version: '0.0.1' },
});
app.use(express.json());
a2a.mount(app);

const mcp = `http://127.0.0.1:${mcpPort}/mcp`;
await waitForHttp(mcp, 20_000);
await waitForHttp(`${base}/.well-known/agent-card.json`, 20_000);
announce({ mcp, a2a: `${base}/a2a`, card: `${base}/.well-known/agent-card.json` });
