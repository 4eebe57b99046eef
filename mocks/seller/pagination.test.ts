/** Cursor pagination of the mock seller's list answers (domain/pagination.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMockSeller } from './index.js';
import { McpTestClient } from './testing/wire-client.js';
import { freshAccount, key, startTestSeller } from './testing/seller-fixtures.js';

let seller: RunningMockSeller;
let client: McpTestClient;

beforeAll(async () => {
  seller = await startTestSeller();
  client = new McpTestClient(seller.mcpUrl);
  await client.initialize();
});
afterAll(() => seller.close());

describe('pagination of list answers', () => {
  it('walks list_accounts in pages of max_results, a cursor only while more remain, every item once', async () => {
    await client.ok('sync_accounts', { idempotency_key: key(), accounts: [1, 2, 3].map(() => ({ ...freshAccount(), billing: 'operator' })) });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const r = await client.ok('list_accounts', { pagination: { max_results: 2, ...(cursor ? { cursor } : {}) } });
      const page = r.pagination as { has_more: boolean; cursor?: string };
      seen.push(...(r.accounts as { account_id: string }[]).map((a) => a.account_id));
      expect((r.accounts as unknown[]).length).toBeLessThanOrEqual(2);
      expect(page.cursor !== undefined).toBe(page.has_more);
      if (!page.has_more) break;
      cursor = page.cursor;
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });

  it('answers every list with a pagination envelope, and refuses a cursor it did not issue', async () => {
    for (const [task, args] of [
      ['get_media_buys', {}],
      ['get_signals', { signal_spec: 'audience' }],
      ['list_creative_formats', {}],
    ] as const)
      expect((await client.ok(task, args)).pagination, task).toMatchObject({ has_more: expect.any(Boolean) });
    expect(await client.err('list_accounts', { pagination: { cursor: 'bm90LWEtY3Vyc29y' } })).toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'pagination.cursor',
    });
  });
});
