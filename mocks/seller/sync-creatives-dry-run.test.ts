/**
 * sync_creatives with dry_run: true on the mock seller: validated like a real sync, answered with
 * dry_run true and the would-be outcome, and nothing stored (no creative, no assignment, the buy's
 * revision unchanged). The fault revision-incremented-on-validation-only has its probe in faults.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient } from './testing/wire-client.js';
import { createArgs, freshAccount, isoIn, key, startTestSeller } from './testing/seller-fixtures.js';

let seller: RunningMockSeller | undefined;
afterEach(async () => {
  await seller?.close();
  seller = undefined;
});

async function setup() {
  seller = await startTestSeller();
  const client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
  const account = freshAccount();
  const created = await client.ok('create_media_buy', createArgs({ account, start_time: isoIn(1), end_time: isoIn(31) }));
  const buyId = created.media_buy_id as string;
  const packageId = (created.packages as { package_id: string }[])[0]!.package_id;
  const creative = {
    creative_id: `cr-${key().slice(0, 8)}`,
    name: 'dry run',
    format_id: { agent_url: seller.baseUrl, id: 'display_300x250' },
    assets: {},
  };
  const read = async () => ((await client.ok('get_media_buys', { account, media_buy_ids: [buyId] })).media_buys as Record<string, unknown>[])[0]!;
  const sync = (extra: Record<string, unknown>) =>
    client.ok('sync_creatives', {
      idempotency_key: key(),
      account,
      creatives: [creative],
      assignments: [{ creative_id: creative.creative_id, package_id: packageId }],
      ...extra,
    });
  return { client, read, sync, packageId, creative };
}

describe('sync_creatives dry_run on the mock seller', () => {
  it('answers the would-be outcome with dry_run true and stores nothing', async () => {
    const { read, sync, packageId } = await setup();
    const before = await read();
    const rehearsed = await sync({ dry_run: true });
    expect(rehearsed).toMatchObject({ dry_run: true, creatives: [{ action: 'created', assigned_to: [packageId] }] });
    const after = await read();
    expect(after.revision).toBe(before.revision);
    expect(after.status).toBe(before.status);
    // Nothing was stored: the real sync still creates the creative.
    const real = await sync({});
    expect(real.dry_run).toBeUndefined();
    expect((real.creatives as { action: string }[])[0]!.action).toBe('created');
  });

  it('validates like a real sync: an unknown package is an assignment error', async () => {
    const { client, creative } = await setup();
    const account = freshAccount();
    const answer = await client.ok('sync_creatives', {
      idempotency_key: key(),
      account,
      dry_run: true,
      creatives: [creative],
      assignments: [{ creative_id: creative.creative_id, package_id: 'pkg_missing' }],
    });
    expect(answer).toMatchObject({ dry_run: true, creatives: [{ assigned_to: [], assignment_errors: { pkg_missing: expect.any(String) } }] });
  });
});
