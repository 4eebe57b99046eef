/**
 * Judging a signed probe's answer: a probe signed with one of the counterparty's special keys
 * that meets `request_signature_key_unknown` is a coverage gap (the agent was configured with an
 * older counterparty key set), never a failure; the main key's probes and a wrong code still fail.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../harness/core/engine/kinds/types.js';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { judgeSigned } from './probe.js';

const refused = (code: string): TaskReply =>
  ({
    transport: 'mcp',
    task: 'get_products',
    ok: false,
    status: 'failed',
    payloadSource: 'none',
    isError: false,
    failure: { kind: 'http_status', httpStatus: 401, message: 'HTTP 401', wwwAuthenticate: `Signature error="${code}"` },
    httpStatus: 401,
    durationMs: 1,
    exchanges: [],
    notes: [],
  }) as unknown as TaskReply;

const ctx = { notes: [] as string[] } as unknown as CheckContext;
const purpose = { error: 'request_signature_key_purpose_invalid' };

describe('judgeSigned', () => {
  it('makes key_unknown on a special counterparty key a coverage gap naming the key and the fix', () => {
    const v = judgeSigned(refused('request_signature_key_unknown'), purpose, ctx, 'probe', { specialKey: 'own-webhook-usage-2026' });
    expect(v).toMatchObject({ status: 'gap' });
    expect((v as { message: string }).message).toMatch(/own-webhook-usage-2026.*proto-comply keys --agent-config/);
  });

  it('still fails key_unknown on the main key, and another wrong code on a special key', () => {
    expect(judgeSigned(refused('request_signature_key_unknown'), purpose, ctx, 'probe')).toMatchObject({ status: 'failed' });
    expect(judgeSigned(refused('request_signature_invalid'), purpose, ctx, 'probe', { specialKey: 'own-webhook-usage-2026' })).toMatchObject({
      status: 'failed',
    });
  });

  it('passes the expected code on a special key', () => {
    expect(judgeSigned(refused('request_signature_key_purpose_invalid'), purpose, ctx, 'probe', { specialKey: 'own-webhook-usage-2026' })).toEqual({
      status: 'ok',
    });
  });
});
