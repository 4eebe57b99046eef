/** Webhook registrations: operation_id required, except on a 3.0 seller, which takes it from the URL as 3.0 does. */
import { describe, expect, it } from 'vitest';
import { TaskFailure } from '../domain/errors.js';
import { parseRegistration } from './registration.js';

describe('parseRegistration', () => {
  it('refuses a registration without operation_id (interface spec 6.1 rule 1 lets a seller)', () => {
    expect(() => parseRegistration({ url: 'https://buyer.example/hooks/op-1' }, 'push_notification_config')).toThrow(TaskFailure);
  });

  it('on a 3.0 seller takes the last path segment of the URL, the 3.0 contract, and keeps a given operation_id first', () => {
    const opts = { operationIdFromUrl: true };
    expect(parseRegistration({ url: 'https://buyer.example/hooks/op%2D7?x=1' }, 'f', undefined, opts).operation_id).toBe('op-7');
    expect(parseRegistration({ url: 'https://buyer.example/hooks/op-1', operation_id: 'given' }, 'f', undefined, opts).operation_id).toBe('given');
    expect(parseRegistration({ url: 'https://buyer.example/hooks/%E0%A4%A' }, 'f', undefined, opts).operation_id).toBe('%E0%A4%A');
    expect(() => parseRegistration({ url: 'https://buyer.example/' }, 'f', undefined, opts)).toThrow(TaskFailure);
  });
});
