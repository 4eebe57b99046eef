import { describe, expect, it } from 'vitest';
import { passSuffix, withPassKey } from './pass-keys.js';

describe("a storyboard's literal idempotency keys", () => {
  const suffix = passSuffix('a2a', '20261129');

  it('are one per transport and seed, in the key grammar', () => {
    expect(suffix).toMatch(/^\.pc-a2a-[0-9a-f]{8}$/);
    expect(passSuffix('a2a', '20261129')).toBe(suffix);
    expect(passSuffix('mcp', '20261129')).not.toBe(suffix);
    expect(passSuffix('a2a', '1')).not.toBe(suffix);
  });

  it('are sent with the suffix of the pass, saying so; the rest of the request as it was', () => {
    const authored = { idempotency_key: 'pending-creatives-transition-v1', brand: { domain: 'a.example' } };
    const out = withPassKey(authored, { ...authored }, suffix);
    expect(out.args).toEqual({ idempotency_key: `pending-creatives-transition-v1${suffix}`, brand: { domain: 'a.example' } });
    expect(out.note).toMatch(/^the storyboard's idempotency_key pending-creatives-transition-v1 is sent as pending-creatives-transition-v1\.pc-a2a-/);
  });

  it('leave generated, captured, malformed and absent keys as they are', () => {
    const generated = { idempotency_key: '$generate:uuid_v4#k' };
    expect(withPassKey(generated, { idempotency_key: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }, suffix).note).toBeUndefined();
    expect(withPassKey({ idempotency_key: '$context.key_a' }, { idempotency_key: 'captured-key-0123456789' }, suffix).note).toBeUndefined();
    expect(withPassKey({ idempotency_key: 'short' }, { idempotency_key: 'short' }, suffix).args).toEqual({ idempotency_key: 'short' });
    expect(withPassKey({ idempotency_key: 'has space in it 0123' }, { idempotency_key: 'has space in it 0123' }, suffix).note).toBeUndefined();
    expect(withPassKey({}, {}, suffix)).toEqual({ args: {} });
    expect(withPassKey({ idempotency_key: 'x'.repeat(250) }, { idempotency_key: 'x'.repeat(250) }, suffix).note).toBeUndefined();
  });
});
