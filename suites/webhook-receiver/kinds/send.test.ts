/** judgeVerified (digest 2.3, webhook vector positive 007): only a signature refusal fails. */
import { describe, expect, it } from 'vitest';
import type { PostResult } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { judgeVerified } from './send.js';

const answer = (status: number, wwwAuthenticate?: string): PostResult =>
  ({ result: { ok: true }, status, ...(wwwAuthenticate ? { wwwAuthenticate } : {}), body: '{}' }) as unknown as PostResult;

describe('judgeVerified', () => {
  it('passes a schema error or an acknowledgement, fails a signature refusal', () => {
    expect(judgeVerified(answer(400)).status).toBe('ok');
    expect(judgeVerified(answer(422)).status).toBe('ok');
    expect(judgeVerified(answer(200)).status).toBe('ok');
    expect(judgeVerified(answer(401, 'Signature error="webhook_signature_params_incomplete"')).status).toBe('failed');
    expect(judgeVerified(answer(400, 'Signature error="webhook_signature_invalid"')).status).toBe('failed');
    expect(judgeVerified(answer(401)).status).toBe('failed');
    expect(judgeVerified(answer(403)).status).toBe('failed');
  });
});
