/**
 * The mock seller's webhook URL policy (digest 5.9): a strict seller refuses http and reserved
 * receivers at registration with INVALID_REQUEST and never connects to one when it delivers; the
 * local-testing switch lets loopback through; distinct URLs per principal are bounded. Names map
 * to addresses through an injected resolver (no DNS); nothing leaves loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy, type LookupFunction } from '../../../harness/core/net/address-policy.js';
import { policyAgent } from '../../../harness/core/net/pinned-connector.js';
import { startTrap, type TestServer } from '../../../harness/core/net/testing/trap-server.js';
import type { RunningMockSeller } from '../options.js';
import { createArgs, freshAccount, key, startTestSeller } from '../testing/seller-fixtures.js';
import { McpTestClient } from '../testing/wire-client.js';
import { LocalTestingPolicy, WebhookAdmission } from './admission.js';
import { postWebhook } from './post.js';

const HOSTS: Record<string, string> = {
  'hooks.example.com': '10.0.0.7',
  'meta.example.com': '169.254.169.254',
  'buyer.example.com': '93.184.215.14',
};
const lookup: LookupFunction = async (host) => (HOSTS[host] ? [{ address: HOSTS[host]!, family: 4 }] : []);

describe('a strict mock seller (the default)', () => {
  let seller: RunningMockSeller;
  let client: McpTestClient;
  let trap: TestServer;
  beforeAll(async () => {
    trap = await startTrap();
    seller = await startTestSeller({ allowPrivateWebhooks: false, requestSigning: false, webhooks: { lookup } });
    client = new McpTestClient(seller.mcpUrl);
    await client.initialize();
  });
  afterAll(async () => {
    await seller?.close();
    await trap?.close();
  });

  it.each([
    [`http://127.0.0.1:1/hook`, /must be an https URL/],
    ['http://buyer.example.com/hook', /must be an https URL/],
    ['https://127.0.0.1/hook', /public addresses only/],
    ['https://[::1]/hook', /public addresses only/],
    ['https://[::ffff:169.254.169.254]/hook', /public addresses only/],
    ['https://hooks.example.com/hook', /public addresses only/],
    ['https://meta.example.com/latest/meta-data', /public addresses only/],
    ['https://unknown.example.com/hook', /public addresses only/],
  ])('refuses push_notification_config.url %s with INVALID_REQUEST', async (url, message) => {
    const e = await client.err('create_media_buy', createArgs({ push_notification_config: { url, operation_id: 'op' } }));
    expect(e).toMatchObject({ code: 'INVALID_REQUEST', field: 'push_notification_config.url' });
    expect(String(e.message)).toMatch(message);
    // Never what the name resolved to.
    expect(String(e.message)).not.toMatch(/10\.0\.0\.7|169\.254/);
  });

  it('refuses reporting_webhook on create and update; the buy keeps its registration', async () => {
    const account = freshAccount();
    const bad = { url: `https://127.0.0.1:${trap.port}/report`, operation_id: 'op' };
    expect(await client.err('create_media_buy', createArgs({ account, reporting_webhook: bad }))).toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'reporting_webhook.url',
    });
    const buy = await client.ok('create_media_buy', createArgs({ account }));
    const e = await client.err('update_media_buy', { idempotency_key: key(), media_buy_id: buy.media_buy_id, reporting_webhook: bad });
    expect(e).toMatchObject({ code: 'INVALID_REQUEST', field: 'reporting_webhook.url' });
    expect(trap.connections).toBe(0);
  });
});

describe('a mock seller started for local testing', () => {
  it('accepts its loopback receivers but refuses link-local and metadata addresses with INVALID_REQUEST', async () => {
    const seller = await startTestSeller({ requestSigning: false, webhooks: { lookup } });
    try {
      const client = new McpTestClient(seller.mcpUrl);
      await client.initialize();
      await client.ok('create_media_buy', createArgs({ push_notification_config: { url: 'http://127.0.0.1:9/hook', operation_id: 'op' } }));
      for (const url of ['https://169.254.169.254/latest/meta-data/x', 'https://[fd00:ec2::254]/latest/meta-data/x']) {
        const e = await client.err('create_media_buy', createArgs({ push_notification_config: { url, operation_id: 'op' } }));
        expect(e, url).toMatchObject({ code: 'INVALID_REQUEST', field: 'push_notification_config.url' });
      }
    } finally {
      await seller.close();
    }
  });
});

describe('deliveries go only to checked addresses', () => {
  it('a delivery to a reserved address is refused before connecting, final, and the reason names no address', async () => {
    const trap = await startTrap();
    const dispatcher = policyAgent(new AddressPolicy({ denyPrivate: true }));
    try {
      const outcome = await postWebhook(`${trap.origin}/hook`, { 'content-type': 'application/json' }, Buffer.from('{}'), {
        dispatcher,
        timeoutMs: 2_000,
        maxResponseBytes: 1024,
        signal: new AbortController().signal,
      });
      expect(outcome).toEqual({ status: 'connection_error', error_message: 'receiver address refused (digest 5.9)', retryable: false });
      expect(trap.connections).toBe(0);
    } finally {
      await dispatcher.close();
      await trap.close();
    }
  });
});

describe('WebhookAdmission', () => {
  it('accepts an https URL on public addresses and refuses the rest; for local testing, lets loopback and private networks through, over http too', async () => {
    const policy = new AddressPolicy({ denyPrivate: true, lookup });
    const strict = new WebhookAdmission({ allowPrivate: false, policy, maxUrls: 10 });
    await expect(strict.admit({ url: 'https://buyer.example.com/hook' }, 'push_notification_config', 'p')).resolves.toBeUndefined();
    await expect(strict.admit({ url: 'https://hooks.example.com/hook' }, 'push_notification_config', 'p')).rejects.toMatchObject({
      body: { code: 'INVALID_REQUEST', field: 'push_notification_config.url' },
    });
    // Values without a usable URL are the registration parser's to name.
    await expect(strict.admit({ operation_id: 'x' }, 'reporting_webhook', 'p')).resolves.toBeUndefined();
    const local = new WebhookAdmission({ allowPrivate: true, policy: new LocalTestingPolicy(lookup), maxUrls: 10 });
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://[::1]:9/hook',
      'https://hooks.example.com/hook',
      'http://hooks.example.com/hook',
      'https://buyer.example.com/hook',
      'https://unknown.example.com/hook',
    ]) {
      await expect(local.admit({ url }, 'push_notification_config', 'p'), url).resolves.toBeUndefined();
    }
  });

  it('refuses plain http to a public or unresolvable host even for local testing (https only, digest 5.9), unless the fault webhook-http-accepted is on', async () => {
    const local = new WebhookAdmission({ allowPrivate: true, policy: new LocalTestingPolicy(lookup), maxUrls: 10 });
    for (const url of ['http://buyer.example.com/hook', 'http://unknown.example.com/hook', 'http://93.184.215.14/hook']) {
      await expect(local.admit({ url }, 'push_notification_config', 'p'), url).rejects.toMatchObject({
        body: { code: 'INVALID_REQUEST', field: 'push_notification_config.url', message: expect.stringMatching(/https/) },
      });
    }
    const careless = new WebhookAdmission({ allowPrivate: true, policy: new LocalTestingPolicy(lookup), maxUrls: 10, httpAnywhere: true });
    await expect(careless.admit({ url: 'http://buyer.example.com/hook' }, 'push_notification_config', 'p')).resolves.toBeUndefined();
  });

  it('refuses link-local and cloud metadata addresses even for local testing, at registration and at delivery', async () => {
    const policy = new LocalTestingPolicy(lookup);
    const local = new WebhookAdmission({ allowPrivate: true, policy, maxUrls: 10 });
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'http://169.254.1.1/hook',
      'https://[fe80::1]/hook',
      'https://[fd00:ec2::254]/latest/meta-data',
      'https://[::ffff:169.254.169.254]/hook',
      'https://meta.example.com/latest/meta-data',
      'https://224.0.0.1/hook',
    ]) {
      const refused = local.admit({ url }, 'push_notification_config', 'p');
      await expect(refused, url).rejects.toMatchObject({ body: { code: 'INVALID_REQUEST', field: 'push_notification_config.url' } });
      await expect(refused).rejects.toMatchObject({ body: { message: expect.not.stringMatching(/169\.254|fd00|fe80/) } });
    }
    // The fault webhook-url-not-checked: the host is never looked at.
    const careless = new WebhookAdmission({ allowPrivate: true, policy, maxUrls: 10, skipAddressCheck: true });
    await expect(careless.admit({ url: 'https://169.254.169.254/x' }, 'push_notification_config', 'p')).resolves.toBeUndefined();
    // A delivery pinned through the same policy never connects there.
    const trap = await startTrap();
    const dispatcher = policyAgent(new LocalTestingPolicy(async () => [{ address: '169.254.169.254', family: 4 }]));
    try {
      const outcome = await postWebhook(`http://meta.example.com:${trap.port}/hook`, { 'content-type': 'application/json' }, Buffer.from('{}'), {
        dispatcher,
        timeoutMs: 2_000,
        maxResponseBytes: 1024,
        signal: new AbortController().signal,
      });
      expect(outcome).toMatchObject({ status: 'connection_error', retryable: false });
      expect(trap.connections).toBe(0);
    } finally {
      await dispatcher.close();
      await trap.close();
    }
  });

  it('bounds distinct URLs per principal within the window, with a clear error', async () => {
    let now = 0;
    const cap = new WebhookAdmission({ allowPrivate: true, policy: new AddressPolicy(), maxUrls: 2, windowMs: 1_000, now: () => now });
    await cap.admit({ url: 'http://127.0.0.1/a' }, 'push_notification_config', 'p');
    await cap.admit({ url: 'http://127.0.0.1/b' }, 'push_notification_config', 'p');
    await cap.admit({ url: 'http://127.0.0.1/a' }, 'push_notification_config', 'p');
    await expect(cap.admit({ url: 'http://127.0.0.1/c' }, 'reporting_webhook', 'p')).rejects.toMatchObject({
      body: { code: 'INVALID_REQUEST', field: 'reporting_webhook.url', message: expect.stringMatching(/at most 2 distinct webhook URLs per account/) },
    });
    await cap.admit({ url: 'http://127.0.0.1/c' }, 'reporting_webhook', 'other-principal');
    now = 1_000;
    await cap.admit({ url: 'http://127.0.0.1/c' }, 'reporting_webhook', 'p');
  });

  it('the seller applies the bound (webhooks.maxUrlsPerPrincipal)', async () => {
    const seller = await startTestSeller({ requestSigning: false, webhooks: { maxUrlsPerPrincipal: 1 } });
    try {
      const client = new McpTestClient(seller.mcpUrl);
      await client.initialize();
      await client.ok('create_media_buy', createArgs({ reporting_webhook: { url: 'http://127.0.0.1:9/one', operation_id: 'op' } }));
      const e = await client.err('create_media_buy', createArgs({ reporting_webhook: { url: 'http://127.0.0.1:9/two', operation_id: 'op' } }));
      expect(e).toMatchObject({ code: 'INVALID_REQUEST', field: 'reporting_webhook.url' });
      expect(String(e.message)).toMatch(/at most 1 distinct webhook URLs per account within 60 minutes; reuse a registered URL/);
    } finally {
      await seller.close();
    }
  });
});
