// Opt-in (ADCP_SELLER_A2A=1): an example that serves MCP only through `serve()` of @adcp/sdk is also
// served over A2A, the way the SDK's guide "Exposing your agent over A2A" shows and hybrid.mjs does:
// `createA2AAdapter({ server }).mount(app)` on an express app of its own, with the same
// `authenticate` the example gave `serve()`. The example stays unmodified: `serve()` is wrapped
// before the example is imported, and the A2A side gets one AdcpServer from the example's own
// factory (the example's state lives at module scope, so both transports see the same seller).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import express from 'express';
import { createA2AAdapter, InMemoryTaskStore } from '@adcp/sdk/server';
import { sdkDir, waitForHttp } from './common.mjs';

const require = createRequire(import.meta.url);

/**
 * When ADCP_SELLER_A2A=1, wraps `serve()` so that the next example to call it is served over A2A
 * too, and returns a function that resolves to `{a2a, card}` once the card answers; otherwise the
 * function resolves to `{}`. Call before importing the example.
 */
export function serveA2ABeside(name) {
  if (process.env.ADCP_SELLER_A2A !== '1') return async () => ({});
  // The module whose `serve` every re-export of @adcp/sdk reads when it is called.
  const serveModule = require(join(sdkDir, 'dist', 'lib', 'server', 'serve.js'));
  const serveMcp = serveModule.serve;
  let facts;
  serveModule.serve = (createAgent, options) => {
    serveModule.serve = serveMcp;
    const server = serveMcp(createAgent, options);
    const app = express();
    const a2aServer = app.listen(0, '127.0.0.1');
    facts = new Promise((resolve, reject) => {
      a2aServer.once('error', reject);
      a2aServer.once('listening', () => {
        const base = `http://127.0.0.1:${a2aServer.address().port}`;
        const adcp = createAgent({ taskStore: new InMemoryTaskStore(), host: new URL(base).host });
        const a2a = createA2AAdapter({
          server: adcp,
          ...(options?.authenticate ? { authenticate: options.authenticate } : {}),
          agentCard: { name, description: `${name} of @adcp/sdk over A2A`, url: `${base}/a2a`, version: '0.0.1' },
        });
        app.use(express.json());
        a2a.mount(app);
        const card = `${base}/.well-known/agent-card.json`;
        waitForHttp(card, 20_000).then(() => resolve({ a2a: `${base}/a2a`, card }), reject);
      });
    });
    return server;
  };
  return async () => {
    if (!facts) throw new Error(`${name}: the example never called serve(), so nothing serves A2A`);
    return facts;
  };
}
