import { describe, expect, it } from 'vitest';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { explicitPort, frontRefusal } from './signed-host.js';

const reply = (failure?: TaskReply['failure']): TaskReply => ({ failure }) as unknown as TaskReply;

describe('signed_host (signatures.target.malformed-host, signatures.target.default-port)', () => {
  it('takes a non-401 status without a JSON-RPC answer, or no answer, as a refusal in front of the verifier', () => {
    expect(frontRefusal(reply({ kind: 'http_status', httpStatus: 400, message: 'HTTP 400' }))).toMatch(/HTTP 400 without/);
    expect(frontRefusal(reply({ kind: 'network', message: 'socket hang up' }))).toMatch(/ended without an answer/);
  });
  it('judges a 401, a JSON-RPC error answer and a completed reply (the verifier or the agent behind it answered)', () => {
    expect(frontRefusal(reply({ kind: 'http_status', httpStatus: 401, message: 'HTTP 401' }))).toBeUndefined();
    expect(frontRefusal(reply({ kind: 'http_status', httpStatus: 400, message: 'HTTP 400', jsonRpcError: { code: -32602, message: 'bad' } }))).toBeUndefined();
    expect(frontRefusal(reply())).toBeUndefined();
  });
  it('sees an explicit port only where the URL keeps one (a default port is dropped by URL parsing)', () => {
    expect(explicitPort('http://seller.test/mcp')).toBeUndefined();
    expect(explicitPort('https://seller.example:443/mcp')).toBeUndefined();
    expect(explicitPort('http://seller.example:80/mcp')).toBeUndefined();
    expect(explicitPort('http://127.0.0.1:4000/mcp')).toBe('4000');
    expect(explicitPort('https://seller.example:80/mcp')).toBe('80');
  });
});
