import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolIds } from '../../token.js';
import { agentConfiguration, COUNTERPARTY_ROLES, counterpartyKeys, TEST_COUNTERPARTY_PER_KEYID_CAP, type CounterpartyRole } from './counterparty.js';
import { AGENT_PATH, startCounterpartyServer, type RunningCounterpartyServer } from './counterparty-server.js';
import { BrandJwksResolver } from './jwks-resolver.js';
import { StaticKeyResolver, type KeyResolver } from './key-resolver.js';
import { InMemoryReplayCache } from '../verify/replay-cache.js';
import { InMemoryRevocation, listRefreshedAgo } from '../verify/revocation.js';
import { signRequest } from '../sign/signer.js';
import { verifyRequestSignature } from '../verify/verifier.js';
import type { VerifyContext } from '../verify/verifier-types.js';

const ids = protocolIds('proto');
const BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":{}}}';

function context(keys: KeyResolver, revoked: string[] = []): VerifyContext {
  const now = Math.floor(Date.now() / 1000);
  return {
    profile: 'request',
    ids,
    encoding: 'legacy',
    capability: { supported: true, covers_content_digest: 'required', supported_for: ['get_products'] },
    digestPolicy: 'required',
    operation: 'get_products',
    jsonRpcMethod: 'tools/call',
    now: () => now,
    keys,
    replayCache: new InMemoryReplayCache({ perKeyidCap: TEST_COUNTERPARTY_PER_KEYID_CAP }),
    revocation: new InMemoryRevocation(listRefreshedAgo(0, now, revoked)),
  };
}

function signedBy(role: CounterpartyRole, url = 'http://127.0.0.1:8080/mcp') {
  const keys = counterpartyKeys(ids);
  return signRequest(
    { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: BODY },
    { profile: 'request', ids, key: keys.signingKey(role) },
  );
}

describe('test counterparty keys', () => {
  it('publish public members only, one key per role, purpose spelled for the token', () => {
    for (const token of ['proto', 'adcp']) {
      const t = protocolIds(token);
      const { jwks, kid } = counterpartyKeys(t);
      expect(jwks.keys.map((k) => k.kid)).toEqual(COUNTERPARTY_ROLES.map((r) => kid(r)));
      expect(new Set(jwks.keys.map((k) => k.kid)).size).toBe(jwks.keys.length);
      for (const k of jwks.keys) {
        expect(Object.keys(k).filter((m) => m === 'd' || m.startsWith('_'))).toEqual([]);
        expect(typeof k[t.keyUseMember]).toBe('string');
        expect(Object.keys(k).filter((m) => m.endsWith('_use') && m !== t.keyUseMember)).toEqual([]);
      }
    }
  });

  it('describe the agent-side configuration: trusted JWKS, pre-revoked kid, per-keyid cap', () => {
    const cfg = agentConfiguration(ids) as { trusted_jwks: { keys: unknown[] }; pre_revoked_kids: string[]; per_keyid_cap: { requests: number } };
    expect(cfg.trusted_jwks.keys).toHaveLength(COUNTERPARTY_ROLES.length);
    expect(cfg.pre_revoked_kids).toEqual([counterpartyKeys(ids).kid('revoked')]);
    expect(cfg.per_keyid_cap.requests).toBe(100);
  });

  it('verify under the published JWKS for the request-signing roles and fail step 8 for the others', async () => {
    const resolver = new StaticKeyResolver(counterpartyKeys(ids).jwks.keys);
    for (const role of ['ed25519', 'es256', 'rate-cap'] as const) {
      const r = await verifyRequestSignature(signedBy(role), context(resolver));
      expect(r.ok && r.signer?.keyid).toBe(counterpartyKeys(ids).kid(role));
    }
    for (const role of ['governance', 'sign-only', 'enc-use', 'webhook-usage'] as const) {
      expect(await verifyRequestSignature(signedBy(role), context(resolver))).toMatchObject({
        ok: false,
        code: 'request_signature_key_purpose_invalid',
        step: 8,
      });
    }
    const revoked = counterpartyKeys(ids).revokedKids;
    expect(await verifyRequestSignature(signedBy('revoked'), context(resolver, revoked))).toMatchObject({ ok: false, code: 'request_signature_key_revoked' });
  });
});

describe('test counterparty key server', () => {
  let server: RunningCounterpartyServer;
  beforeAll(async () => {
    server = await startCounterpartyServer({ ids });
  });
  afterAll(() => server?.close());

  it('serves brand.json whose agents[] entry points at the JWKS', async () => {
    const brand = (await (await fetch(server.brandJsonUrl, { signal: AbortSignal.timeout(5_000) })).json()) as { agents: { url: string; jwks_uri: string }[] };
    expect(brand.agents).toEqual([{ type: 'buying', url: `${server.baseUrl}${AGENT_PATH}`, jwks_uri: server.jwksUrl }]);
    const jwks = (await (await fetch(server.jwksUrl, { signal: AbortSignal.timeout(5_000) })).json()) as unknown;
    expect(jwks).toEqual(counterpartyKeys(ids).jwks);
  });

  it('lets a verifier resolve the harness key through brand.json and records the agent url', async () => {
    const resolver = new BrandJwksResolver({ brandJsonUrl: server.brandJsonUrl, agentUrl: server.agentUrl, allowInsecureLoopback: true });
    const r = await verifyRequestSignature(signedBy('ed25519'), context(resolver));
    expect(r).toMatchObject({ ok: true, signer: { keyid: 'own-ed25519-2026', agent_url: server.agentUrl } });
  });

  it('serves nothing else', async () => {
    expect((await fetch(`${server.baseUrl}/other`, { signal: AbortSignal.timeout(5_000) })).status).toBe(404);
    expect((await fetch(server.jwksUrl, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5_000) })).status).toBe(405);
  });
});
