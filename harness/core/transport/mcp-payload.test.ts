/** Decoding tools/call results, including shapes the SDK test servers do not produce. */
import { describe, expect, it } from 'vitest';
import { protocolIds } from '../token.js';
import { decodeToolResult } from './mcp-payload.js';

const member = protocolIds('acme').errorMember;
const text = (t: string) => ({ type: 'text', text: t });

describe('decodeToolResult', () => {
  it('prefers a JSON object text over structuredContent', () => {
    const d = decodeToolResult({ content: [text('{"a":1}')], structuredContent: { a: 2 } }, member);
    expect(d).toMatchObject({ payload: { a: 1 }, payloadSource: 'content_text', status: 'completed', isError: false });
    expect(d.notes.join()).toContain('structuredContent also present');
  });

  it('uses structuredContent when the text is JSON but not an object', () => {
    const d = decodeToolResult({ content: [text('"done"')], structuredContent: { a: 2 } }, member);
    expect(d).toMatchObject({ payload: { a: 2 }, payloadSource: 'structured_content', text: '"done"' });
  });

  it('has no payload for prose without structuredContent', () => {
    const d = decodeToolResult({ content: [text('hello')] }, member);
    expect(d).toMatchObject({ payloadSource: 'none', text: 'hello', status: 'completed' });
    expect(d.payload).toBeUndefined();
  });

  it('finds the first text item when content[0] is not text, and says so', () => {
    const d = decodeToolResult({ content: [{ type: 'image', data: '', mimeType: 'image/png' }, text('{"x":1}')] }, member);
    expect(d.payload).toEqual({ x: 1 });
    expect(d.notes.join()).toContain('content[1]');
  });

  it('reads errors from the text: bare object, <token>_error member, errors[]', () => {
    expect(decodeToolResult({ isError: true, content: [text('{"code":"A","message":"m"}')] }, member).error).toMatchObject({
      code: 'A',
      source: 'is_error_text',
    });
    expect(decodeToolResult({ isError: true, content: [text(JSON.stringify({ [member]: { code: 'B', message: 'm' } }))] }, member).error).toMatchObject({
      code: 'B',
    });
    expect(decodeToolResult({ isError: true, content: [text('{"errors":[{"code":"C","message":"m"}]}')] }, member).error).toMatchObject({
      code: 'C',
    });
  });

  it('reads errors from structuredContent when the text is prose', () => {
    const d = decodeToolResult({ isError: true, content: [text('oops')], structuredContent: { errors: [{ code: 'D', message: 'm' }] } }, member);
    expect(d.error).toMatchObject({ code: 'D', source: 'payload_errors' });
    expect(d.text).toBe('oops');
  });

  it("keeps an error's structuredContent (what the agent echoed beside the error) when the payload came from the text", () => {
    const structured = { [member]: { code: 'E', message: 'm' }, context: { correlation_id: 'c' } };
    const d = decodeToolResult({ isError: true, content: [text('{"code":"E","message":"m"}')], structuredContent: structured }, member);
    expect(d).toMatchObject({ payload: { code: 'E' }, errorEnvelope: structured });
    expect(decodeToolResult({ isError: false, content: [text('{"a":1}')], structuredContent: { a: 1 } }, member).errorEnvelope).toBeUndefined();
  });

  it('flags an error object inside a non-error payload without calling it isError', () => {
    const d = decodeToolResult({ content: [text('{"errors":[{"code":"PARTIAL","message":"m"}],"ok":1}')] }, member);
    expect(d).toMatchObject({ isError: false, status: 'completed', error: { code: 'PARTIAL', source: 'payload_errors' } });
    // a bare {code} in a success payload is data, not an error
    expect(decodeToolResult({ content: [text('{"code":"X","message":"y"}')] }, member).error).toBeUndefined();
  });

  it('maps async statuses only together with a task_id', () => {
    expect(decodeToolResult({ content: [text('{"status":"working","task_id":"t1"}')] }, member)).toMatchObject({ status: 'working', taskId: 't1' });
    expect(decodeToolResult({ content: [text('{"status":"working"}')] }, member).status).toBe('completed');
    expect(decodeToolResult({ content: [text('{"status":"active","task_id":"t1"}')] }, member).status).toBe('completed');
    expect(decodeToolResult({ isError: true, content: [text('{"status":"working","task_id":"t1"}')] }, member).status).toBe('failed');
  });

  it('survives malformed results', () => {
    expect(decodeToolResult(null, member)).toMatchObject({ status: 'unknown', payloadSource: 'none' });
    expect(decodeToolResult({ content: 'nope', isError: 'yes' }, member).notes.length).toBe(3);
  });
});
