// The creative-template example agent of @adcp/sdk (examples/hello_creative_adapter_template.ts:
// list_creative_formats from the upstream's templates, build_creative and preview_creative through
// upstream renders, accounts resolved to an upstream workspace), run unmodified on loopback in front
// of the SDK's own mock upstream (`adcp mock-server creative-template`), over MCP only (the example
// serves no A2A). Its formats name the agent's own URL, which the example takes from its port.
// Run with `node --import tsx --import ./loopback.mjs creative-template.mjs`; prints
// `READY {"mcp": …, "upstream": …, "token": …}` once the agent answers.
import { bootMockServer } from '@adcp/sdk/mock-server';
import { example, freePort, waitForHttp, announce } from './common.mjs';

// The example keeps its tasks and state in memory, which the SDK refuses outside development.
process.env.NODE_ENV = 'development';
const upstream = await bootMockServer({ specialism: 'creative-template', port: 0 });
const port = await freePort();
const token = process.env.ADCP_AUTH_TOKEN ?? 'sk_harness_do_not_use_in_prod';
Object.assign(process.env, { UPSTREAM_URL: upstream.url, PORT: String(port), ADCP_AUTH_TOKEN: token });
await import(example('hello_creative_adapter_template.ts'));
const mcp = `http://127.0.0.1:${port}/mcp`;
await waitForHttp(mcp, 20_000);
announce({ mcp, upstream: upstream.url, token });
