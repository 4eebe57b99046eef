/** The mock's account-level subscriber helpers: what counts as a proof of control, which transitions fire. */
import { describe, expect, it } from 'vitest';
import { createSchemaValidator } from '../../../harness/core/schemas/validator.js';
import { FaultSet } from '../faults.js';
import './faults.js';
import { answerEchoes, challengeBody, creativeStatusPayload, creativeTransitionReason } from './subscriptions.js';

const C = 'x'.repeat(40);
const none = new FaultSet([]);
const schemas = createSchemaValidator();

describe('account-level subscriptions of the mock seller', () => {
  it('takes an answer echoing the challenge in exactly one of challenge / token', () => {
    expect(answerEchoes(JSON.stringify({ challenge: C }), C)).toBe(true);
    expect(answerEchoes(JSON.stringify({ token: C }), C)).toBe(true);
    expect(answerEchoes(JSON.stringify({ challenge: C, token: C }), C)).toBe(false);
    expect(answerEchoes(JSON.stringify({ challenge: 'y'.repeat(40) }), C)).toBe(false);
    expect(answerEchoes('{"status":"ok"}', C)).toBe(false);
    expect(answerEchoes('not json', C)).toBe(false);
  });

  it('sends a challenge and events shaped as the harness schemas written from the released 3.1 ones', () => {
    const cfg = { subscriber_id: 'pc-primary', url: 'https://r.example/wh', event_types: ['creative.status_changed'], active: true };
    expect(schemas.validate('webhook-challenge', challengeBody(cfg, 'acc_1', 'https://s.example/mcp', none)).errors).toEqual([]);
    const event = creativeStatusPayload(
      {
        account_id: 'acc_1',
        creative_id: 'cr 1',
        from: 'approved',
        to: 'suspended',
        reason_code: 'identity_authorization_expired',
        at: new Date().toISOString(),
      },
      'pc-primary',
      none,
    );
    expect(schemas.validate('creative-status-changed-webhook', event).errors).toEqual([]);
  });

  it('fires only for the transitions the released payload allows', () => {
    expect(creativeTransitionReason('approved', 'suspended')).toBe('identity_authorization_expired');
    expect(creativeTransitionReason('pending_review', 'approved')).toBe('review_passed');
    expect(creativeTransitionReason('rejected', 'approved')).toBeUndefined();
    expect(creativeTransitionReason('approved', 'processing')).toBeUndefined();
  });
});
