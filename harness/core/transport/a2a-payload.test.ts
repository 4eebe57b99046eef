/** Decoding A2A results, including v1.0 spellings the SDK's v0.3 layer does not emit. */
import { describe, expect, it } from 'vitest';
import { protocolIds } from '../token.js';
import { decodeA2aResult, mapA2aState } from './a2a-payload.js';

const member = protocolIds('acme').errorMember;
const data = (d: unknown) => ({ kind: 'data', data: d });
const txt = (t: string) => ({ kind: 'text', text: t });
const task = (state: string, artifactParts: unknown[] = [], statusParts: unknown[] = []) => ({
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state, timestamp: '2026-01-01T00:00:00Z', ...(statusParts.length ? { message: { kind: 'message', role: 'agent', parts: statusParts } } : {}) },
  artifacts: artifactParts.length ? [{ artifactId: 'a', parts: artifactParts }] : [],
});

describe('mapA2aState', () => {
  it.each([
    ['completed', 'completed'],
    ['TASK_STATE_COMPLETED', 'completed'],
    ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
    ['input-required', 'input-required'],
    ['auth-required', 'auth-required'],
    ['cancelled', 'canceled'],
    ['TASK_STATE_REJECTED', 'rejected'],
    ['paused', 'unknown'],
    [3, 'unknown'],
  ])('%s → %s', (input, out) => expect(mapA2aState(input)).toBe(out));
});

describe('decodeA2aResult', () => {
  it('takes the last data part of artifacts[0] as the final payload', () => {
    const d = decodeA2aResult(task('completed', [data({ n: 1 }), txt('x'), data({ n: 2 })], [data({ interim: true })]), member);
    expect(d).toMatchObject({ status: 'completed', payloadSource: 'artifact', payload: { n: 2 }, taskId: 't1', contextId: 'c1', isError: false });
  });

  it('takes the first status-message data part as interim data', () => {
    const d = decodeA2aResult(task('TASK_STATE_WORKING', [], [data({ p: 1 }), data({ p: 2 })]), member);
    expect(d).toMatchObject({ status: 'working', payloadSource: 'status_message', payload: { p: 1 } });
  });

  it('finds the error in artifact data, then status data, then JSON text', () => {
    expect(decodeA2aResult(task('failed', [data({ errors: [{ code: 'E1', message: 'm' }] })]), member)?.error).toMatchObject({
      code: 'E1',
      source: 'payload_errors',
    });
    expect(decodeA2aResult(task('rejected', [], [data({ code: 'E2', message: 'm' })]), member)).toMatchObject({
      isError: true,
      status: 'rejected',
      error: { code: 'E2', source: 'a2a_part' },
    });
    const viaText = decodeA2aResult(task('failed', [], [txt(JSON.stringify({ [member]: { code: 'E3', message: 'm' } }))]), member);
    expect(viaText).toMatchObject({ isError: true, error: { code: 'E3' }, payload: { [member]: { code: 'E3', message: 'm' } } });
  });

  it('reads a failed task whose data part has a message but no code as a codeless error reply', () => {
    const d = decodeA2aResult(task('failed', [data({ reason: 'HANDLER_THREW', message: 'tool "x" is not registered' })]), member);
    expect(d).toMatchObject({ status: 'failed', isError: true, error: { code: '', message: 'tool "x" is not registered', source: 'a2a_part' } });
  });

  it('keeps a failed task without an error object as failed but not isError', () => {
    const d = decodeA2aResult(task('failed', [], [txt('it broke')]), member);
    expect(d).toMatchObject({ status: 'failed', isError: false, text: 'it broke' });
    expect(d?.error).toBeUndefined();
    expect(d?.notes.join()).toContain('no {code, message}');
  });

  it('accepts v1.0 wrappers and parts without kind', () => {
    const d = decodeA2aResult(
      { task: { id: 't9', contextId: 'c9', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ data: { v: 1 } }] }] } },
      member,
    );
    expect(d).toMatchObject({ status: 'completed', payload: { v: 1 }, taskId: 't9' });
    expect(decodeA2aResult({ message: { messageId: 'm', parts: [{ text: 'hi' }] } }, member)).toMatchObject({ text: 'hi', payloadSource: 'none' });
  });

  it('treats a Message carrying <token>_error as a failed reply', () => {
    const d = decodeA2aResult({ kind: 'message', messageId: 'm', role: 'agent', parts: [data({ [member]: { code: 'X', message: 'y' } })] }, member);
    expect(d).toMatchObject({ status: 'failed', isError: true, error: { code: 'X' } });
  });

  it('returns undefined for something that is neither Task nor Message', () => {
    expect(decodeA2aResult({ hello: 1 }, member)).toBeUndefined();
    expect(decodeA2aResult('x', member)).toBeUndefined();
    expect(decodeA2aResult({ kind: 'task', id: 't', status: { state: 'paused' } }, member)).toMatchObject({ status: 'unknown' });
  });
});
