// The sales-social example seller of @adcp/sdk (examples/hello_seller_adapter_social.ts: a
// walled-garden social platform behind OAuth2 client_credentials; accounts resolved from
// `account.brand.domain` to an upstream advertiser; sync_audiences, sync_creatives, sync_catalogs,
// event sources and log_event, and no get_products or create_media_buy), run unmodified on loopback
// in front of the SDK's own mock upstream (`adcp mock-server sales-social`, whose default OAuth
// client the example uses), over MCP only (the example serves no A2A). Run with
// `node --import tsx --import ./loopback.mjs social.mjs`; prints
// `READY {"mcp": …, "upstream": …, "token": …}` once the seller answers.
import { bootMockServer } from '@adcp/sdk/mock-server';
import { example, freePort, waitForHttp, announce } from './common.mjs';

// The example keeps its tasks and state in memory, which the SDK refuses outside development.
process.env.NODE_ENV = 'development';
const upstream = await bootMockServer({ specialism: 'sales-social', port: 0 });
const port = await freePort();
const token = process.env.ADCP_AUTH_TOKEN ?? 'sk_harness_do_not_use_in_prod';
Object.assign(process.env, { UPSTREAM_URL: upstream.url, PORT: String(port), ADCP_AUTH_TOKEN: token });
await import(example('hello_seller_adapter_social.ts'));
const mcp = `http://127.0.0.1:${port}/mcp`;
await waitForHttp(mcp, 20_000);
announce({ mcp, upstream: upstream.url, token });
