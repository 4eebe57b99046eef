/** Envelope detection by shape (interface spec 6.2, digest 5.2), on the project's sample payloads. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeState, parseEnvelope } from './envelope.js';

const sample = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/samples/${name}`, import.meta.url), 'utf8')) as Record<string, any>;

describe('parseEnvelope', () => {
  it('reads the MCP envelope: status string + task_id', () => {
    const r = parseEnvelope(sample('mcp-webhook-payload.json'));
    expect(r).toEqual({
      ok: true,
      envelope: expect.objectContaining({ format: 'mcp', status: 'completed', taskId: expect.stringMatching(/^task_/), timestamp: '2026-07-01T09:30:12Z' }),
    });
  });

  it('reads the A2A status update: status object with state, taskId, derived key without metadata', () => {
    const r = parseEnvelope(sample('a2a-task.status-update.json'));
    if (!r.ok) throw new Error(r.problem);
    expect(r.envelope).toMatchObject({ format: 'a2a', status: 'working', taskId: '4f6c1a2e-9b3d-4e8f-a7c5-1d2e3f4a5b6c', derivedKey: true });
    expect(r.envelope.idempotencyKey).toMatch(/^a2a:4f6c1a2e/);
  });

  it('prefers metadata.idempotency_key on the A2A envelope', () => {
    const doc = { ...sample('a2a-task.json'), metadata: { idempotency_key: 'key-0123456789abcdef', notification_id: 'n1' } };
    const r = parseEnvelope(doc);
    expect(r).toMatchObject({ ok: true, envelope: { format: 'a2a', idempotencyKey: 'key-0123456789abcdef', notificationId: 'n1' } });
  });

  it('keeps other keyed events (no task status) as format other', () => {
    expect(parseEnvelope({ idempotency_key: 'key-0123456789abcdef', event: 'property_list_changed' })).toMatchObject({
      ok: true,
      envelope: { format: 'other' },
    });
  });

  it.each([
    ['an array', []],
    ['MCP without idempotency_key', { task_id: 't', status: 'working' }],
    ['MCP with a short key', { task_id: 't', status: 'working', idempotency_key: 'short' }],
    ['A2A without a task id', { status: { state: 'working' } }],
    ['nothing recognizable', { hello: 'world' }],
  ])('refuses %s', (_what, body) => {
    expect(parseEnvelope(body).ok).toBe(false);
  });

  it('normalizes A2A state spellings', () => {
    expect(['TASK_STATE_INPUT_REQUIRED', 'input-required', 'INPUT_REQUIRED'].map(normalizeState)).toEqual([
      'input-required',
      'input-required',
      'input-required',
    ]);
  });
});
