import { describe, expect, it } from 'vitest';
import { protocolIds } from '../../../harness/core/token.js';
import type { CheckContext } from '../../../harness/core/engine/kinds/types.js';
import { coverDigest } from '../../../harness/core/signing/counterparty-signing.js';
import { eligibleOperations, isSandbox, resolveTarget } from './target.js';

const ids = protocolIds('proto');

/** The part of a check context target selection reads (it calls nothing on these paths). */
function ctxWith(capabilities: Record<string, unknown>, tasks: string[]): CheckContext {
  return {
    ids,
    profile: { transport: 'mcp', offered: true, reachable: true, authRequired: false, tasks, capabilities, authTokenSet: true },
    call: () => {
      throw new Error('target selection must not call the agent on this path');
    },
    // the setup suite's facts, as templates would resolve them
    expand: (v: unknown) =>
      JSON.parse(
        JSON.stringify(v)
          .replaceAll('"{{facts.buyer.brief}}"', '"a brief"')
          .replaceAll('"{{facts.buyer.brand}}"', '{"domain":"example.com"}')
          .replaceAll('"{{account:signed}}"', '{"brand":{"domain":"example.com"},"operator":"pc-signed.example"}'),
      ),
  } as unknown as CheckContext;
}

const ALL = ['get_products', 'create_media_buy', 'update_media_buy', ids.capabilitiesTask];

describe('signed probe targets', () => {
  it('are operations listed in supported_for / required_for and as tasks, never warn_for', () => {
    const ctx = ctxWith(
      {
        request_signing: {
          supported: true,
          supported_for: ['update_media_buy', 'sync_creatives', 'get_products'],
          required_for: ['create_media_buy'],
          warn_for: ['get_products'],
        },
      },
      ALL,
    );
    expect(eligibleOperations(ctx, 'signed')).toEqual(['update_media_buy', 'create_media_buy']);
    expect(eligibleOperations(ctx, 'required')).toEqual(['create_media_buy']);
  });

  it('prefer a listed read; rejections fall back to inert arguments on a mutating operation', async () => {
    const reads = ctxWith({ request_signing: { supported: true, supported_for: ['create_media_buy', 'get_products'] } }, ALL);
    expect(await resolveTarget(reads, 'accept')).toMatchObject({ ok: true, target: { task: 'get_products' } });
    expect(await resolveTarget(reads, 'replay')).toMatchObject({ ok: true, target: { task: 'get_products' } }); // not a sandbox
    const writes = ctxWith({ request_signing: { supported: true, supported_for: ['create_media_buy'] } }, ALL);
    expect(await resolveTarget(writes, 'reject')).toEqual({ ok: true, target: { task: 'create_media_buy', args: {}, how: expect.stringContaining('inert') } });
  });

  it('never mutate a seller that is not a sandbox to get an accepted call', async () => {
    const writes = ctxWith({ request_signing: { supported: true, supported_for: ['create_media_buy'] } }, ALL);
    expect(isSandbox(writes)).toBe(false);
    for (const purpose of ['accept', 'replay'] as const) {
      const r = await resolveTarget(writes, purpose);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toMatch(/not a sandbox/);
    }
    expect(isSandbox(ctxWith({ sandbox: true }, ALL))).toBe(true);
    expect(isSandbox(ctxWith({ compliance_testing: { scenarios: [] } }, ALL))).toBe(true);
  });

  it('report when nothing is declared or listed', async () => {
    const none = ctxWith({ request_signing: { supported: true } }, ALL);
    expect(await resolveTarget(none, 'reject')).toMatchObject({ ok: false, message: expect.stringContaining('lists no task') });
    const unlisted = ctxWith({ request_signing: { supported: true, supported_for: ['get_products'] } }, ['create_media_buy']);
    expect((await resolveTarget(unlisted, 'accept')).ok).toBe(false);
  });

  it('cover content-digest by policy unless told otherwise', () => {
    expect(coverDigest('policy', ctxWith({ request_signing: { supported: true } }, []))).toBe(true);
    expect(coverDigest('policy', ctxWith({ request_signing: { supported: true, covers_content_digest: 'forbidden' } }, []))).toBe(false);
    expect(coverDigest('covered', ctxWith({ request_signing: { supported: true, covers_content_digest: 'forbidden' } }, []))).toBe(true);
    expect(coverDigest('uncovered', ctxWith({}, []))).toBe(false);
  });
});
