/**
 * The two contenders the benchmarks compare on one MCP session of the mock seller: the harness
 * transport, and bare undici get_products calls (send, read the body) reusing its session.
 */
import { request } from 'undici';
import type { startMockSeller } from '../mocks/seller/index.js';
import { createRecorder, createTransport, resolveEndpoints, DEFAULT_TRANSPORT_LIMITS } from '../harness/core/transport/index.js';
import type { Transport } from '../harness/core/transport/types.js';
import { protocolIds } from '../harness/core/token.js';

export const GET_PRODUCTS_ARGS = { buying_mode: 'brief', brief: 'Video campaign for a sports drink', brand: { domain: 'example.com' } };

type MockSeller = Awaited<ReturnType<typeof startMockSeller>>;

/** Open the harness's MCP transport to the seller; `bare` makes one get_products call with bare undici on its session. */
export async function openMcpContenders(
  seller: MockSeller,
  authToken: string,
): Promise<{
  transport: Transport;
  bare: () => Promise<void>;
  send: (task: string, args: Record<string, unknown>) => Promise<string>;
}> {
  const transport = createTransport(
    'mcp',
    { agentUrl: seller.baseUrl, token: protocolIds().token, authToken, ...DEFAULT_TRANSPORT_LIMITS, capture: createRecorder({ secrets: [authToken] }) },
    resolveEndpoints(seller.baseUrl),
  );
  const open = await transport.open();
  if (open.failure) {
    await transport.close();
    throw new Error(`cannot open the MCP session: ${open.failure.message}`);
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${authToken}`,
    ...(open.sessionId ? { 'mcp-session-id': open.sessionId } : {}),
    ...(open.protocolVersion ? { 'mcp-protocol-version': open.protocolVersion } : {}),
  };
  let id = 1_000_000;
  /** One tools/call, bare: send, read the whole body; the reply text. */
  const send = async (task: string, args: Record<string, unknown>): Promise<string> => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: task, arguments: args } });
    const res = await request(seller.mcpUrl, { method: 'POST', headers, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`bare ${task} call failed: HTTP ${res.statusCode}`);
    return text;
  };
  const bare = async () => {
    if (!(await send('get_products', GET_PRODUCTS_ARGS)).includes('products')) throw new Error('bare get_products call answered no products');
  };
  return { transport, bare, send };
}

/** The median of timings (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * The peer a user would pick instead: the official MCP TypeScript SDK client (`Client` over
 * `StreamableHTTPClientTransport`) on its own session of the same seller. `call` makes one
 * get_products call the way an SDK user gets the payload: `callTool`, then parse content[0].text.
 */
export async function openSdkContender(seller: MockSeller, authToken: string): Promise<{ call: () => Promise<void>; close: () => Promise<void> }> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'bench-sdk-client', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(seller.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${authToken}` } },
  });
  await client.connect(transport);
  const call = async () => {
    const result = await client.callTool({ name: 'get_products', arguments: GET_PRODUCTS_ARGS });
    const first = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
    const payload = first?.type === 'text' && first.text ? (JSON.parse(first.text) as { products?: unknown }) : undefined;
    if (result.isError || !payload?.products) throw new Error('SDK client get_products call answered no products');
  };
  return { call, close: () => client.close() };
}
