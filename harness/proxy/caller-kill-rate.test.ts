/**
 * The buyer audit (caller suite) against the calling mock buyer: through the proxy, with resets
 * and 503s injected so that it retries, a correct buyer breaks no rule and exercises every one on
 * both transports; each of its faults is flagged by exactly the check it targets, from traffic
 * alone. The agent (the reference mock seller) stays clean throughout.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCallingBuyer } from '../../mocks/buyer/calls/buyer.js';
import { CALLING_FAULTS } from '../../mocks/buyer/calls/faults.js';
import { startMockSeller } from '../../mocks/seller/index.js';
import type { RunResult } from '../core/engine/result.js';
import { Injector, parseInjectRules } from './inject.js';
import { startAuditingProxy } from './session.js';
import { counterpartyKeys } from '../core/signing/keys/counterparty.js';
import { StaticKeyResolver } from '../core/signing/keys/key-resolver.js';
import { protocolIds } from '../core/token.js';

const AUTH = 'calling-buyer-bearer-0123456789';
/** Resets and 503s on about a third of the task calls each; seed 1 hits a mutating call on both transports. */
const INJECT = 'call:reset:0.3,call:status:503:0.3';
const SEED = '1';

let hook: Server;
let hookUrl: string;

beforeAll(async () => {
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/create`;
});
afterAll(() => new Promise<void>((r) => hook.close(() => r())));

const failing = (run: RunResult): string[] => run.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'warn').map((c) => c.check_id);

async function throughProxy(faults: string[], withKeys = true): Promise<{ buyer: RunResult; agent: RunResult; retries: number }> {
  const seller = await startMockSeller({ authToken: AUTH, allowPrivateWebhooks: true, faults: [] });
  const proxy = await startAuditingProxy({
    upstream: seller.baseUrl,
    token: 'proto',
    inject: new Injector(parseInjectRules([INJECT]), SEED),
    // Every caller rule is one of the 3.2 line (caller.retry.stays-signed is 3.2's only).
    target: '3.2',
    // The buyer's published keys (`--caller-jwks`): its signatures go through the whole checklist.
    ...(withKeys ? { callerKeys: new StaticKeyResolver(counterpartyKeys(protocolIds('proto')).jwks.keys) } : {}),
  });
  try {
    const log = await runCallingBuyer({ agentUrl: proxy.url, authToken: AUTH, webhookUrl: hookUrl, faults });
    await proxy.settle();
    return { buyer: proxy.callerResult(), agent: proxy.result(), retries: log.retries };
  } finally {
    await proxy.close();
    await seller.close();
  }
}

describe('the buyer audit against the calling mock buyer', () => {
  it.each([
    ['with', true],
    ['without', false],
  ])(
    "finds nothing on a correct buyer, and judges every caller rule on both transports (%s the buyer's keys)",
    async (_, withKeys) => {
      const { buyer, agent, retries } = await throughProxy([], withKeys);
      expect(retries).toBeGreaterThan(0);
      expect(failing(buyer)).toEqual([]);
      expect(buyer.checks.filter((c) => c.outcome !== 'pass').map((c) => `${c.transport} ${c.check_id}`)).toEqual([]);
      expect(buyer.checks.map((c) => c.check_id).sort()).toEqual([...new Set(CALLING_FAULTS.flatMap((f) => f.targets))].flatMap((id) => [id, id]).sort());
      expect(failing(agent)).toEqual([]);
      expect(JSON.stringify(buyer)).not.toContain(AUTH);
      const signature = buyer.checks.find((c) => c.check_id === 'caller.signature.verifies');
      expect(signature?.message).toMatch(withKeys ? /passes every step/ : /up to the key lookup/);
    },
    60_000,
  );

  it('flags each calling-buyer fault by exactly its check (prints the buyer kill rate)', async () => {
    const wrong: string[] = [];
    for (const f of CALLING_FAULTS) {
      const { buyer } = await throughProxy([f.name]);
      const got = [...new Set(failing(buyer))].sort();
      const allowed = new Set([...f.targets, ...(f.collateral ?? [])]);
      const missed = f.targets.filter((t) => !got.includes(t));
      const extra = got.filter((id) => !allowed.has(id));
      if (missed.length || extra.length) wrong.push(`${f.name}: missed ${missed.join(', ') || '-'}; extra ${extra.join(', ') || '-'}`);
    }
    console.log(
      `passive kill rate (buyer): ${CALLING_FAULTS.length - wrong.length}/${CALLING_FAULTS.length} calling-buyer faults flagged by exactly their check`,
    );
    expect(wrong).toEqual([]);
  }, 120_000);
});
