// The signal-marketplace example agent of @adcp/sdk (examples/hello_signals_adapter_marketplace.ts:
// get_signals and activate_signal, a buyer-agent registry that admits the bearer token as the
// sandbox-only agent "Addie", accounts resolved from `account.operator` to an upstream operator,
// comply_test_controller with query_upstream_traffic), run unmodified on loopback in front of the
// SDK's own mock upstream (`adcp mock-server signal-marketplace`), over MCP only (the example serves
// no A2A). Run with `node --import tsx --import ./loopback.mjs signals.mjs`; prints
// `READY {"mcp": …, "upstream": …, "token": …}` once the agent answers.
// With ADCP_SELLER_A2A=1 it is served over A2A too (a2a.mjs), and READY also names `a2a` and `card`.
import { bootMockServer } from '@adcp/sdk/mock-server';
import { example, freePort, waitForHttp, announce } from './common.mjs';
import { serveA2ABeside } from './a2a.mjs';

// The example keeps its tasks and state in memory, which the SDK refuses outside development.
process.env.NODE_ENV = 'development';
const upstream = await bootMockServer({ specialism: 'signal-marketplace', port: 0 });
const port = await freePort();
const token = process.env.ADCP_AUTH_TOKEN ?? 'sk_harness_do_not_use_in_prod';
Object.assign(process.env, { UPSTREAM_URL: upstream.url, PORT: String(port), ADCP_AUTH_TOKEN: token });
const a2a = serveA2ABeside('hello-signals-adapter-marketplace');
await import(example('hello_signals_adapter_marketplace.ts'));
const mcp = `http://127.0.0.1:${port}/mcp`;
await waitForHttp(mcp, 20_000);
announce({ mcp, upstream: upstream.url, token, ...(await a2a()) });
