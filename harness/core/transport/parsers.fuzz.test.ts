/**
 * Fuzzing the transport's parsers with fast-check: random bytes, random SSE framing and random
 * JSON-RPC envelopes never make a parser throw; whatever comes off the wire ends as a value or
 * a `TransportFailure`, never as a crash. Depth-bounded parsing agrees with JSON.parse within the
 * bound and refuses beyond it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseBoundedJson } from './bounded-json.js';
import { decodeA2aResult } from './a2a-payload.js';
import { HttpClient } from './http-client.js';
import { jsonRpcErrorOf, pickResponse } from './jsonrpc.js';
import { decodeToolResult } from './mcp-payload.js';
import { postJsonRpc } from './rpc.js';
import { createSsePicker } from './sse.js';
import { startRawServer, type RawServer } from './testing/raw-server.js';
import { testSettings } from './testing/settings.js';

const SEED = Number(process.env.PROTO_COMPLY_FUZZ_SEED ?? 20261125);

/** Random splits of a byte string into chunks. */
function chunked(bytes: Uint8Array, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    out.push(Buffer.from(bytes.subarray(at, p)));
    at = p;
  }
  return out;
}

const sseLine = fc.oneof(
  fc.constantFrom('data: ', 'data:', 'event: message', 'id: 7', 'retry: 10', ': comment', '', 'data: {"jsonrpc":"2.0","id":1,"result":{}}'),
  fc.string().map((s) => `data: ${s}`),
  fc.jsonValue().map((v) => `data: ${JSON.stringify(v)}`),
  fc.integer({ min: 1, max: 200 }).map((n) => `data: ${'['.repeat(n)}${']'.repeat(n)}`),
);
const eol = fc.constantFrom('\n', '\r\n', '\r');

describe('transport parsers under fuzzing', () => {
  it('bounded JSON parsing never throws on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        parseBoundedJson(text);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('bounded JSON parsing agrees with JSON.parse within the bound and refuses beyond it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 3 * MAX_JSON_DEPTH }), (value, wrap) => {
        const text = `${'['.repeat(wrap)}${JSON.stringify(value)}${']'.repeat(wrap)}`;
        const parsed = parseBoundedJson(text);
        if (parsed.ok) expect(parsed.value).toEqual(JSON.parse(text));
        else expect(parsed.tooDeep).toBe(MAX_JSON_DEPTH);
        if (wrap > MAX_JSON_DEPTH) expect(parsed.ok).toBe(false);
        if (wrap + 9 <= MAX_JSON_DEPTH) expect(parsed.ok).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('the SSE reader never throws on random bytes in random chunks, and counts every event against its bound', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 10 }), (bytes, cuts) => {
        const picker = createSsePicker(1, 5);
        for (const chunk of chunked(bytes, cuts)) if (picker.feed(chunk)) break;
        picker.end();
        picker.found();
        picker.notes();
        expect(picker.events()).toBeLessThanOrEqual(5 + 1);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('the SSE reader never throws on random framing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(sseLine, eol), { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 }), (lines, cuts) => {
        const text = lines.map(([l, e]) => l + e).join('');
        const picker = createSsePicker(1, 20);
        for (const chunk of chunked(Buffer.from(text), cuts)) if (picker.feed(chunk)) break;
        picker.end();
        const found = picker.found();
        if (found) expect(found.id).toBe(1);
        expect(picker.events()).toBeLessThanOrEqual(21);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  const envelope = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.anything()),
      id: fc.oneof(fc.constant(1), fc.anything()),
      result: fc.anything({ maxDepth: 6 }),
      error: fc.oneof(fc.record({ code: fc.anything(), message: fc.anything(), data: fc.anything() }, { requiredKeys: [] }), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it('random JSON-RPC envelopes never make the decoders throw', () => {
    fc.assert(
      fc.property(fc.oneof(envelope, fc.array(envelope, { maxLength: 4 }), fc.anything()), (msg) => {
        const response = pickResponse(msg, 1);
        if (response) {
          jsonRpcErrorOf(response);
          decodeToolResult(response.result, 'proto_error');
          decodeA2aResult(response.result, 'proto_error');
        }
        decodeToolResult(msg, 'proto_error');
        decodeA2aResult(msg, 'proto_error');
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  describe('postJsonRpc over the wire', () => {
    let server: RawServer;
    let next: { type: string; body: Buffer; status: number } = { type: 'application/json', body: Buffer.from('{}'), status: 200 };
    beforeAll(async () => {
      server = await startRawServer((_req, res) => {
        res.writeHead(next.status, next.type ? { 'content-type': next.type } : {}).end(next.body);
      });
    });
    afterAll(async () => server?.close());

    it('turns random bodies, content types and statuses into a reply or a failure, never a throw', async () => {
      const http = new HttpClient(testSettings({ agentUrl: server.url }));
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b)),
              envelope.map((e) => Buffer.from(JSON.stringify(e) ?? 'null')),
              fc.array(fc.tuple(sseLine, eol), { maxLength: 20 }).map((ls) => Buffer.from(ls.map(([l, e]) => l + e).join(''))),
            ),
            fc.constantFrom('application/json', 'text/event-stream', '', 'text/html', 'application/problem+json'),
            fc.constantFrom(200, 202, 400, 401, 404, 500),
            async (body, type, status) => {
              next = { type, body, status };
              const outcome = await postJsonRpc(http, { url: `${server.url}/mcp`, rpcMethod: 'tools/call', id: 1, transport: 'mcp', purpose: 'fuzz' });
              expect(outcome.response !== undefined || outcome.failure !== undefined || outcome.httpStatus !== undefined).toBe(true);
            },
          ),
          { seed: SEED, numRuns: 150 },
        );
      } finally {
        await http.close();
      }
    }, 60_000);
  });
});
