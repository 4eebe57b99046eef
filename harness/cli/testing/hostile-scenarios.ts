/**
 * The hostile-agent battery's misbehaving agents (test-only). Each names the exit codes its run
 * may end with; the battery checks the same properties of every one.
 */
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { json, rpcResult, type AgentContext, type Hook, type Scenario } from './hostile-agent.js';

export interface HostileCase {
  name: string;
  scenario: Scenario;
  /** Exit codes the run may end with (all documented: 0 ok, 1 failed, 3 unreachable, 4 partial, 5 harness error). */
  exits: number[];
  /** Extra CLI arguments (e.g. `--transport mcp`). */
  args?: string[];
}

const DEEP = 100_000;
const deepArray = (): string => `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const deepObject = (): string => `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;
const rpcText = (id: unknown, inner: string, member: 'result' | 'error' = 'result'): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"${member}":${inner}}`;

/** Text an attacker wants on a CI console: ANSI, a terminal title, forged lines, workflow commands. */
export const INJECTION = [
  'bad\u001b[2K\r\u001b[32mall checks PASSED\u001b[0m',
  '\u001b]0;pwned title\u0007',
  '::error file=x.ts,line=1::forged failure',
  '::add-mask::hidden',
  '##[group]forged group',
  '  ::set-output name=x::y',
  '\u0000\u0008\u009b31m',
].join('\n');

/** Every way the bearer token can come back: plain, JSON, base64 std/url, url-encoded, as a key. */
function echoes(ctx: AgentContext): Record<string, unknown> {
  const token = ctx.authorization.replace(/^Bearer\s+/i, '');
  const b64 = Buffer.from(token).toString('base64');
  return {
    message: `you sent ${ctx.authorization}`,
    b64,
    b64url: Buffer.from(token).toString('base64url'),
    basic: Buffer.from(`user:${token}`).toString('base64'),
    url: encodeURIComponent(`${token}&x=1`),
    [token]: 'as a key',
  };
}

function echoError(id: unknown, ctx: AgentContext, res: ServerResponse): true {
  return json(
    res,
    200,
    { jsonrpc: '2.0', id, error: { code: -32000, message: `denied for ${ctx.authorization}`, data: echoes(ctx) } },
    { 'x-echo': ctx.authorization },
  );
}

/** Keep writing `chunk` every `ms` until the client goes away. */
function drip(res: ServerResponse, chunk: string, ms: number): void {
  const t = setInterval(() => res.write(chunk), ms);
  res.on('close', () => clearInterval(t));
}

let bomb: Buffer | undefined;
/** 64 MiB of blanks in about 64 KiB of gzip, compressed once. */
function gzipBomb(): Buffer {
  bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 1 });
  return bomb;
}

const hang: Hook = () => true;
const reset: Hook = (req) => {
  req.socket.destroy();
  return true;
};

export function hostileCases(trap: string): HostileCase[] {
  const failing = [1, 3, 4];
  return [
    { name: 'hang (never answers)', scenario: { any: hang }, exits: [3] },
    {
      name: 'slow drip (a byte every 200 ms)',
      scenario: {
        any: (_q, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          drip(res, ' ', 200);
          return true;
        },
      },
      exits: [3],
    },
    {
      name: 'endless SSE keep-alives',
      scenario: {
        toolsCall: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          drip(res, 'data: \n\n'.repeat(50), 5);
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'endless SSE non-matching events',
      scenario: {
        toolsCall: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          drip(res, 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'.repeat(20), 5);
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'huge body (12 MB streamed)',
      scenario: {
        toolsCall: (_q, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          const piece = 'x'.repeat(64 * 1024);
          let n = 0;
          const more = (): void => {
            while (n < 192) {
              n++;
              if (!res.write(piece)) return void res.once('drain', more);
            }
            res.end();
          };
          more();
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'declared 1 GB content-length',
      scenario: {
        toolsCall: (_q, res) => {
          res.writeHead(200, { 'content-length': String(2 ** 30) }).write('{');
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'deep nesting in the initialize reply',
      scenario: { initialize: (_q, res, rpc) => json(res, 200, rpcText(rpc?.id, deepArray())) },
      exits: [3],
      args: ['--transport', 'mcp'],
    },
    {
      name: 'deep nesting in a tool reply',
      scenario: {
        toolsCall: (_q, res, rpc) => json(res, 200, rpcText(rpc?.id, `{"content":[{"type":"text","text":"{}"}],"structuredContent":${deepObject()}}`)),
      },
      exits: failing,
    },
    {
      name: 'deep nesting inside the tool content text',
      scenario: { toolsCall: (_q, res, rpc) => rpcResult(res, rpc?.id, { content: [{ type: 'text', text: deepArray() }] }) },
      exits: failing,
    },
    {
      name: 'deep nesting in an SSE event',
      scenario: {
        toolsCall: (_q, res, rpc) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${rpcText(rpc?.id, deepArray())}\n\n`);
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'deep nesting in a JSON-RPC error',
      scenario: { toolsCall: (_q, res, rpc) => json(res, 200, rpcText(rpc?.id, `{"code":-32000,"message":${deepArray()}}`, 'error')) },
      exits: failing,
    },
    {
      name: 'deep nesting in an A2A part',
      scenario: {
        a2a: (_q, res, rpc) =>
          json(
            res,
            200,
            rpcText(
              rpc?.id,
              `{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"data","data":${deepObject()}}]}]}`,
            ),
          ),
      },
      exits: failing,
    },
    { name: 'deep nesting in the agent card', scenario: { card: (_q, res) => json(res, 200, deepObject()) }, exits: failing, args: ['--transport', 'a2a'] },
    { name: 'invalid JSON', scenario: { toolsCall: (_q, res) => json(res, 200, '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"te') }, exits: failing },
    {
      name: 'wrong content type (HTML page)',
      scenario: {
        any: (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html><script>alert(1)</script></html>');
          return true;
        },
      },
      exits: [3],
    },
    { name: 'connection reset', scenario: { any: reset }, exits: [3] },
    {
      name: 'half-closed body (short of its content-length)',
      scenario: {
        toolsCall: (req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          res.write('{"jsonrpc":"2.0",');
          setTimeout(() => req.socket.end(), 20);
          return true;
        },
      },
      exits: failing,
    },
    { name: 'response id mismatch', scenario: { toolsCall: (_q, res) => rpcResult(res, 'not-your-id', { content: [] }) }, exits: failing },
    {
      name: 'redirect to another origin',
      scenario: {
        any: (_q, res) => {
          res.writeHead(307, { location: `${trap}/mcp` }).end();
          return true;
        },
      },
      exits: [3],
    },
    {
      name: 'agent card url on another origin',
      scenario: { card: (_q, res) => json(res, 200, { name: 'x', url: `${trap}/a2a`, skills: [{ id: 'get_proto_capabilities' }] }) },
      exits: failing,
      args: ['--transport', 'a2a'],
    },
    {
      name: 'secret echo (plain, base64, url-encoded, as a key, in headers)',
      scenario: { toolsCall: (_q, res, rpc, ctx) => echoError(rpc?.id, ctx, res), a2a: (_q, res, rpc, ctx) => echoError(rpc?.id, ctx, res) },
      exits: failing,
    },
    {
      name: 'secret echo in the initialize failure',
      scenario: { initialize: (_q, res, _rpc, ctx) => json(res, 500, { error: { code: -1, message: `bad token ${ctx.authorization}`, data: echoes(ctx) } }) },
      exits: [3],
      args: ['--transport', 'mcp'],
    },
    {
      name: 'secret echo straddling where snippets are cut',
      scenario: {
        initialize: (_q, res, _rpc, ctx) => {
          res.writeHead(200, { 'content-type': 'text/html' }).end(`${'x'.repeat(176)}${ctx.authorization.replace(/^Bearer /, '')}`);
          return true;
        },
      },
      exits: [3],
      args: ['--transport', 'mcp'],
    },
    {
      name: 'secret echo straddling where SSE notes are cut',
      scenario: {
        toolsCall: (_q, res, _rpc, ctx) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${'y'.repeat(96)}${ctx.authorization.replace(/^Bearer /, '')}\n\n`);
          return true;
        },
      },
      exits: failing,
      args: ['--transport', 'mcp'],
    },
    {
      name: 'control characters and workflow commands in errors',
      scenario: {
        toolsCall: (_q, res, rpc) => json(res, 200, { jsonrpc: '2.0', id: rpc?.id, error: { code: -32000, message: INJECTION } }),
        initialize: undefined,
      },
      exits: failing,
    },
    {
      name: 'workflow commands in the unreachable headline',
      scenario: { initialize: (_q, res) => json(res, 503, { error: { code: -1, message: INJECTION } }) },
      exits: [3],
      args: ['--transport', 'mcp'],
    },
    {
      name: 'huge error messages (1 MiB each)',
      scenario: {
        toolsCall: (_q, res, rpc) =>
          json(res, 200, { jsonrpc: '2.0', id: rpc?.id, error: { code: -32000, message: 'M'.repeat(1 << 20), data: { d: 'D'.repeat(1 << 20) } } }),
        a2a: (_q, res, rpc) => json(res, 200, { jsonrpc: '2.0', id: rpc?.id, error: { code: -32000, message: 'A'.repeat(1 << 20) } }),
      },
      exits: failing,
    },
    {
      name: 'HTML and XML injection',
      scenario: {
        toolsCall: (_q, res, rpc) =>
          json(res, 200, { jsonrpc: '2.0', id: rpc?.id, error: { code: -1, message: '<script>alert(1)</script>]]></failure><testcase name="x"/><![CDATA[' } }),
      },
      exits: failing,
    },
    {
      name: 'gzip decompression bomb',
      scenario: {
        toolsCall: (_q, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipBomb());
          return true;
        },
      },
      exits: failing,
    },
    {
      name: 'tools/list pages forever',
      scenario: { toolsList: (_q, res, rpc) => rpcResult(res, rpc?.id, { tools: [{ name: `t${Math.random()}` }], nextCursor: String(Math.random()) }) },
      exits: failing,
    },
  ];
}
