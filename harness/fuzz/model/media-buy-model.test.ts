import { describe, expect, it } from 'vitest';
import { type BuyModel, canonicalJson, payloadHash, predictForce, predictUpdate } from './media-buy-model.js';
import { ranCommands } from './media-buy-property.js';
import { joinPath, splitPath } from './run-path.js';

const buy = (status: BuyModel['status'], revision = 3): BuyModel => ({ id: 'mb', account: {}, status, revision });

describe('the media-buy model', () => {
  it('predicts the transitions of digest 4.2 with revision + 1', () => {
    expect(predictUpdate(buy('active'), { kind: 'pause' }, undefined)).toEqual({ kind: 'success', status: 'paused', revision: 4 });
    expect(predictUpdate(buy('paused'), { kind: 'resume' }, 3)).toEqual({ kind: 'success', status: 'active', revision: 4 });
    expect(predictUpdate(buy('paused'), { kind: 'cancel' }, undefined)).toEqual({ kind: 'success', status: 'canceled', revision: 4 });
    expect(predictUpdate(buy('active'), { kind: 'budget', amount: 1 }, undefined)).toEqual({ kind: 'success', status: 'active', revision: 4 });
  });

  it('refuses changes to terminal buys with the codes of digest 4.4', () => {
    expect(predictUpdate(buy('canceled'), { kind: 'cancel' }, undefined)).toEqual({ kind: 'error', codes: ['NOT_CANCELLABLE'] });
    expect(predictUpdate(buy('completed'), { kind: 'cancel' }, undefined)).toEqual({ kind: 'error', codes: ['INVALID_STATE'] });
    expect(predictUpdate(buy('canceled'), { kind: 'resume' }, undefined)).toEqual({ kind: 'error', codes: ['INVALID_STATE'] });
    // A stale revision on a terminal buy: either refusal is the spec's.
    expect(predictUpdate(buy('canceled'), { kind: 'pause' }, 2)).toEqual({ kind: 'error', codes: ['INVALID_STATE', 'CONFLICT'] });
  });

  it('answers CONFLICT for a stale revision and leaves open what the spec leaves open', () => {
    expect(predictUpdate(buy('active'), { kind: 'pause' }, 2)).toEqual({ kind: 'error', codes: ['CONFLICT'] });
    expect(predictUpdate(buy('paused'), { kind: 'pause' }, undefined)).toBeUndefined();
    expect(predictUpdate(buy('active'), { kind: 'resume' }, undefined)).toBeUndefined();
    expect(predictUpdate(buy('pending_creatives'), { kind: 'budget', amount: 1 }, undefined)).toBeUndefined();
  });

  it('hashes payloads without key and context (digest 3.3), key order aside', () => {
    expect(payloadHash('t', { idempotency_key: 'a', context: { x: 1 }, b: 1, a: 2 })).toBe(payloadHash('t', { a: 2, b: 1, idempotency_key: 'z' }));
    expect(payloadHash('t', { a: 1 })).not.toBe(payloadHash('u', { a: 1 }));
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });
});

describe('forced transitions (digest 4.6)', () => {
  it('follow the production rules and leave open what the spec leaves open', () => {
    expect(predictForce('active', 'completed')).toBe('success');
    expect(predictForce('pending_creatives', 'rejected')).toBe('success');
    expect(predictForce('active', 'rejected')).toBe('INVALID_TRANSITION');
    expect(predictForce('completed', 'active')).toBe('INVALID_TRANSITION');
    expect(predictForce('canceled', 'completed')).toBe('INVALID_TRANSITION');
    expect(predictForce('pending_start', 'active')).toBe('success');
    expect(predictForce('pending_creatives', 'pending_start')).toBe('success');
    expect(predictForce('completed', 'completed')).toBeUndefined();
    expect(predictForce('paused', 'active')).toBeUndefined();
    expect(predictForce('pending_start', 'completed')).toBeUndefined();
  });
});

describe('replay paths', () => {
  it('carry fast-check replayPath with the path', () => {
    expect(splitPath(joinPath('3:1:0', 'AAB'))).toEqual({ path: '3:1:0', replayPath: 'AAB' });
    expect(splitPath('3:1')).toEqual({ path: '3:1' });
    expect(splitPath(undefined)).toEqual({});
  });

  it('read the commands that ran from fast-check rendering', () => {
    expect(ranCommands('pause buy#0 key=fresh,replay sent#1 /*replayPath="CC"*/')).toEqual({
      commands: ['pause buy#0 key=fresh', 'replay sent#1'],
      replayPath: 'CC',
    });
    expect(ranCommands('')).toEqual({ commands: [] });
  });
});
