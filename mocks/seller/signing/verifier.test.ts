import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolIds } from '../../../harness/core/token.js';
import { COUNTERPARTY_ROLES, counterpartyKeys, type CounterpartyRole } from '../../../harness/core/signing/keys/counterparty.js';
import { DEFECTS, type DefectName } from '../../../harness/core/signing/sign/defects.js';
import { signRequest } from '../../../harness/core/signing/sign/signer.js';
import { FaultSet } from '../faults.js';
import type { RunningMockSeller, VerifyRequestInput } from '../options.js';
import { startTestSeller } from '../testing/seller-fixtures.js';
import { McpTestClient, postJson } from '../testing/wire-client.js';
import { VERIFIER_FAULTS } from './faults.js';
import { createMockRequestVerifier, MOCK_RATE_CAP_KEY_CAP, mockRequestSigningCapability } from './verifier.js';

const ids = protocolIds('proto');
const URL_MCP = 'http://127.0.0.1:9999/mcp';
const BEARER = 'mock-verifier-test-bearer-0123456789';

function mcpBody(name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });
}

function input(body: string, headers: Record<string, string> = {}, route: 'mcp' | 'a2a' = 'mcp', url = URL_MCP): VerifyRequestInput {
  const lower: Record<string, string> = { host: new URL(url).host, 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  return { route, method: 'POST', url, headers: lower, rawBody: new TextEncoder().encode(body), json: JSON.parse(body) };
}

function signed(body: string, opts: { role?: CounterpartyRole; defects?: DefectName[]; url?: string } = {}): VerifyRequestInput {
  const url = opts.url ?? URL_MCP;
  const s = signRequest(
    { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
    { profile: 'request', ids, key: counterpartyKeys(ids).signingKey(opts.role ?? 'ed25519'), defects: opts.defects },
  );
  return { ...input(body, s.headers, 'mcp', url), rawBody: s.body };
}

function hook(faults: string[] = []) {
  const capability = mockRequestSigningCapability({ authToken: BEARER });
  return createMockRequestVerifier({ ids, capability, faults: new FaultSet(faults), authToken: BEARER });
}

describe('mock seller request verifier (hook)', () => {
  it('declares create_media_buy required only when a bearer token is the fallback credential', () => {
    expect(mockRequestSigningCapability({ authToken: 'x' })).toMatchObject({
      supported: true,
      covers_content_digest: 'required',
      required_for: ['create_media_buy'],
    });
    expect(mockRequestSigningCapability({}).required_for).toEqual([]);
    const cap = mockRequestSigningCapability({ authToken: 'x' });
    expect(cap.required_for!.every((op) => cap.supported_for!.includes(op))).toBe(true);
  });

  it('verifies a counterparty signature and names the signer', async () => {
    const r = await hook()(signed(mcpBody('get_products')));
    expect(r).toMatchObject({ outcome: 'verified', signer: { keyid: 'own-ed25519-2026' } });
  });

  it('answers the checklist code with exactly the Signature challenge and a JSON-RPC error body', async () => {
    const r = await hook()(signed(mcpBody('get_products'), { defects: ['wrong-tag'] }));
    expect(r).toMatchObject({ outcome: 'rejected', wwwAuthenticate: 'Signature error="request_signature_tag_invalid"' });
    expect((r as { body: { id: unknown; error: { data: { code: string } } } }).body).toMatchObject({
      id: 3,
      error: { data: { code: 'request_signature_tag_invalid' } },
    });
    expect(await hook()(signed(mcpBody('get_products'), { role: 'revoked' }))).toMatchObject({
      wwwAuthenticate: 'Signature error="request_signature_key_revoked"',
    });
  });

  it('requires a signature for an unauthenticated required_for call, not with a valid bearer', async () => {
    const body = mcpBody('create_media_buy');
    expect(await hook()(input(body))).toMatchObject({ outcome: 'rejected', wwwAuthenticate: 'Signature error="request_signature_required"' });
    expect(await hook()(input(body, { authorization: `Bearer ${BEARER}` }))).toEqual({ outcome: 'absent' });
    expect(await hook()(input(mcpBody('get_products')))).toEqual({ outcome: 'absent' });
    expect(await hook([VERIFIER_FAULTS.unsignedAccepted])(input(body))).toEqual({ outcome: 'absent' });
  });

  it('requires a signature for an A2A registration of a webhook authentication block', async () => {
    const message = { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'data', data: { skill: 'get_products', parameters: {} } }] };
    const auth = { schemes: ['HMAC-SHA256'], credentials: 'x'.repeat(40) };
    const withConfig = JSON.stringify({
      jsonrpc: '2.0',
      id: 'a',
      method: 'message/send',
      params: { message, configuration: { pushNotificationConfig: { url: 'https://b.example/h', authentication: auth } } },
    });
    const url = 'http://127.0.0.1:9999/a2a';
    const bearer = { authorization: `Bearer ${BEARER}` };
    expect(await hook()(input(withConfig, bearer, 'a2a', url))).toMatchObject({
      outcome: 'rejected',
      wwwAuthenticate: 'Signature error="request_signature_required"',
    });
    const plain = JSON.stringify({ jsonrpc: '2.0', id: 'b', method: 'message/send', params: { message } });
    expect(await hook()(input(plain, bearer, 'a2a', url))).toEqual({ outcome: 'absent' });
  });

  it('judges the authority as received: a raw U-label Host is malformed, two trailing dots a malformed target', async () => {
    const body = mcpBody('get_products');
    const uLabel = { ...signed(body), url: 'http://ü127.0.0.1:9999/mcp' };
    uLabel.headers = { ...uLabel.headers, host: 'ü127.0.0.1:9999' };
    expect(await hook()(uLabel)).toMatchObject({ wwwAuthenticate: 'Signature error="request_signature_header_malformed"' });
    const dots = { ...signed(body), url: 'http://127.0.0.1..:9999/mcp' };
    dots.headers = { ...dots.headers, host: '127.0.0.1..:9999' };
    expect(await hook()(dots)).toMatchObject({ wwwAuthenticate: 'Signature error="request_target_uri_malformed"' });
  });

  it('refuses a replayed request, and accepts it under the replay fault', async () => {
    const h = hook();
    const req = signed(mcpBody('get_products'));
    expect((await h(req)).outcome).toBe('verified');
    expect(await h(req)).toMatchObject({ wwwAuthenticate: 'Signature error="request_signature_replayed"' });
    const faulty = hook([VERIFIER_FAULTS.replayAccepted]);
    expect((await faulty(req)).outcome).toBe('verified');
    expect((await faulty(req)).outcome).toBe('verified');
  });

  it('each short-circuit fault lets exactly its step through', async () => {
    const body = mcpBody('get_products');
    const cases: [string, DefectName[] | CounterpartyRole][] = [
      [VERIFIER_FAULTS.expiredAccepted, ['expired']],
      [VERIFIER_FAULTS.unknownAlgAccepted, ['alg-not-allowed']],
      [VERIFIER_FAULTS.authorityOptional, ['drop-component:@authority']],
      [VERIFIER_FAULTS.signatureUnchecked, ['bad-signature']],
      [VERIFIER_FAULTS.duplicateKeysAccepted, ['duplicate-json-key']],
      [VERIFIER_FAULTS.keyPurposeIgnored, 'governance'],
      [VERIFIER_FAULTS.revocationIgnored, 'revoked'],
    ];
    for (const [fault, what] of cases) {
      const req = () => (Array.isArray(what) ? signed(body, { defects: what }) : signed(body, { role: what }));
      expect((await hook()(req())).outcome, `${fault} off`).toBe('rejected');
      expect((await hook([fault])(req())).outcome, `${fault} on`).toBe('verified');
    }
    // The expiry fault does not open the other window rules.
    expect((await hook([VERIFIER_FAULTS.expiredAccepted])(signed(body, { defects: ['window-too-long'] }))).outcome).toBe('rejected');
    // The @authority fault does not open the other components.
    expect((await hook([VERIFIER_FAULTS.authorityOptional])(signed(body, { defects: ['drop-component:@method'] }))).outcome).toBe('rejected');
  });

  it('each let-through or refusing fault changes the verdict on exactly its own probes', async () => {
    const body = mcpBody('get_products');
    const probe = (defect?: DefectName, role: CounterpartyRole = 'ed25519'): VerifyRequestInput => {
      const s = signRequest(
        { method: 'POST', url: URL_MCP, headers: { 'content-type': 'application/json' }, body },
        { profile: 'request', ids, key: counterpartyKeys(ids).signingKey(role), defects: defect ? [defect] : [] },
      );
      const headers: Record<string, string> = { host: /^https?:\/\/([^/]+)/.exec(s.url)![1]! };
      for (const [k, v] of Object.entries(s.headers)) headers[k.toLowerCase()] = v;
      return { route: 'mcp', method: 'POST', url: s.url, headers, rawBody: s.body, json: JSON.parse(body) };
    };
    const withWebhookAuth = mcpBody('get_products', {
      push_notification_config: { url: 'https://b.example/h', authentication: { schemes: ['HMAC-SHA256'], credentials: 'x'.repeat(40) } },
    });
    const cases: Record<string, () => VerifyRequestInput> = {
      'unsigned-webhook-auth': () => input(withWebhookAuth, { authorization: `Bearer ${BEARER}` }),
    };
    for (const d of DEFECTS) if (d.encodings?.includes('strict') !== true) cases[d.name] = () => probe(d.name);
    for (const role of COUNTERPARTY_ROLES) cases[`key:${role}`] = () => probe(undefined, role);
    const verdicts = async (faults: string[]) => {
      const h = hook(faults);
      const out: Record<string, string> = {};
      for (const [name, make] of Object.entries(cases)) {
        const r = await h(make());
        out[name] = r.outcome === 'rejected' ? r.wwwAuthenticate : r.outcome;
      }
      return out;
    };
    const F = VERIFIER_FAULTS;
    const expected: Record<string, string[]> = {
      [F.ed25519Refused]: ['key:ed25519', 'key:rate-cap'],
      [F.es256Refused]: ['key:es256'],
      [F.webhookAuthUnsigned]: ['unsigned-webhook-auth'],
      [F.halfPairIgnored]: ['signature-without-input', 'input-without-signature'],
      [F.malformedInputIgnored]: ['malformed-input'],
      [F.lenientParse]: ['duplicate-label', 'unquoted-string-param', 'mixed-alphabet'],
      [F.nonceUnchecked]: ['short-nonce', 'padded-nonce'],
      [F.multiValuedAccepted]: ['multi-valued-content-type', 'digest-multi-valued'],
      [F.hostUnvalidated]: ['non-ascii-host', 'malformed-target-uri', 'authority-mismatch', 'host-empty', 'host-broken-bracket', 'host-bare-ipv6'],
      [F.malformedHostAccepted]: ['host-empty', 'host-broken-bracket', 'host-bare-ipv6'],
      [F.coveredHeaderAbsentAccepted]: ['covered-header-absent'],
      [F.paramsUnchecked]: DEFECTS.filter((d) => d.name.startsWith('missing-param:')).map((d) => d.name),
      [F.windowBoundsIgnored]: ['window-too-long', 'expires-before-created', 'created-in-future'],
      [F.componentsUnchecked]: DEFECTS.filter((d) => d.name.startsWith('drop-component:') && d.name !== 'drop-component:@authority').map((d) => d.name),
      [F.unknownKeyAccepted]: ['unknown-keyid'],
      [F.keyConstraintsIgnored]: ['alg-key-mismatch', 'key:sign-only', 'key:enc-use'],
      // Declares forbidden, verifies as either: only a missing content-digest changes.
      [F.digestForbiddenDeclared]: ['drop-component:content-digest'],
      // Declares either, verifies as declared before (required): nothing changes here; the declaration does.
      [F.digestEitherDeclared]: [],
    };
    const base = await verdicts([]);
    expect(Object.entries(base).filter(([, v]) => v !== 'rejected' && !v.startsWith('Signature error'))).toEqual(
      [
        ['base64url-in-3.2', 'verified'],
        ['unsigned', 'absent'],
        ['key:ed25519', 'verified'],
        ['key:es256', 'verified'],
        ['key:rate-cap', 'verified'],
      ].filter(([name]) => name in base),
    );
    for (const [fault, changed] of Object.entries(expected)) {
      const got = await verdicts([fault]);
      expect(
        Object.keys(got)
          .filter((k) => got[k] !== base[k])
          .sort(),
        fault,
      ).toEqual([...changed].sort());
    }
  });

  it('declares the content-digest policy a digest-policy fault names', () => {
    const declared = (fault: string) => mockRequestSigningCapability({ authToken: 'x', faults: new FaultSet([fault]) }).covers_content_digest;
    expect(declared(VERIFIER_FAULTS.digestEitherDeclared)).toBe('either');
    expect(declared(VERIFIER_FAULTS.digestForbiddenDeclared)).toBe('forbidden');
  });

  it('refuses once the per-keyid cap is full: small for the rate-cap key, 100 for the other counterparty keys', async () => {
    const h = hook();
    const body = mcpBody('get_products');
    for (let i = 0; i < MOCK_RATE_CAP_KEY_CAP; i++) expect((await h(signed(body, { role: 'rate-cap' }))).outcome).toBe('verified');
    expect(await h(signed(body, { role: 'rate-cap' }))).toMatchObject({ wwwAuthenticate: 'Signature error="request_signature_rate_abuse"' });
    expect((await h(signed(body))).outcome).toBe('verified'); // per keyid
    for (let i = 0; i < counterpartyKeys(ids).perKeyidCap; i++) expect((await h(signed(body, { role: 'es256' }))).outcome).toBe('verified');
    expect(await h(signed(body, { role: 'es256' }))).toMatchObject({ wwwAuthenticate: 'Signature error="request_signature_rate_abuse"' });
  });
});

describe('mock seller request signing (wire)', () => {
  let seller: RunningMockSeller;
  let off: RunningMockSeller;
  beforeAll(async () => {
    [seller, off] = await Promise.all([startTestSeller({ authToken: BEARER }), startTestSeller({ authToken: BEARER, requestSigning: false })]);
  });
  afterAll(() => Promise.all([seller?.close(), off?.close()]));

  async function capabilities(s: RunningMockSeller) {
    const client = new McpTestClient(s.mcpUrl, BEARER);
    await client.initialize();
    return client.ok(ids.capabilitiesTask, {});
  }

  it('declares request_signing in its capabilities, and not when switched off', async () => {
    expect((await capabilities(seller)).request_signing).toEqual(mockRequestSigningCapability({ authToken: BEARER }));
    expect((await capabilities(off)).request_signing).toBeUndefined();
  });

  it('answers a refused signature with HTTP 401 and the exact challenge; ignores signatures when switched off', async () => {
    const headers = { authorization: `Bearer ${BEARER}`, 'signature-input': 'not a dictionary', signature: 'sig1=:AAAA:' };
    const refused = await postJson(seller.a2aUrl, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, headers);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Signature error="request_signature_header_malformed"');
    const ignored = await postJson(off.a2aUrl, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, headers);
    expect(ignored.status).not.toBe(401);
  });
});
