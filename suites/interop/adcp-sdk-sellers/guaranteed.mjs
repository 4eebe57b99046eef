// The sales-guaranteed example seller of @adcp/sdk (examples/hello_seller_adapter_guaranteed.ts:
// HITL IO approval, create_media_buy handed off to a background task for live accounts, answered
// synchronously for sandbox accounts without push_notification_config, comply_test_controller
// with force_media_buy_status and simulate_delivery), run unmodified on loopback in front of the
// SDK's own mock upstream (`adcp mock-server sales-guaranteed`, a GAM-style ad server), over MCP
// only (the example serves no A2A). Run with `node --import tsx --import ./loopback.mjs guaranteed.mjs`;
// prints `READY {"mcp": …, "upstream": …, "token": …}` once the seller answers.
// With ADCP_SELLER_A2A=1 it is served over A2A too (a2a.mjs), and READY also names `a2a` and `card`.
import { bootMockServer } from '@adcp/sdk/mock-server';
import { example, freePort, waitForHttp, announce } from './common.mjs';
import { serveA2ABeside } from './a2a.mjs';

// The example keeps its tasks and state in memory, which the SDK refuses outside development.
process.env.NODE_ENV = 'development';
const upstream = await bootMockServer({ specialism: 'sales-guaranteed', port: 0 });
const port = await freePort();
const token = process.env.ADCP_AUTH_TOKEN ?? 'sk_harness_do_not_use_in_prod';
Object.assign(process.env, { UPSTREAM_URL: upstream.url, PORT: String(port), ADCP_AUTH_TOKEN: token });
const a2a = serveA2ABeside('hello-seller-adapter-guaranteed');
await import(example('hello_seller_adapter_guaranteed.ts'));
const mcp = `http://127.0.0.1:${port}/mcp`;
await waitForHttp(mcp, 20_000);
announce({ mcp, upstream: upstream.url, token, ...(await a2a()) });
