/**
 * The latency bench's agent in its own process, as `proxy --inject call:delay:…` in front of an
 * agent is: the built-in mock seller behind the auditing proxy holding every task call DELAY ms.
 * Prints `{"url", "authToken"}` as one JSON line; then answers each stdin line with the number of
 * task calls delayed so far (one JSON line); exits when stdin closes.
 */
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { startMockSeller } from '../mocks/seller/index.js';
import { startAuditingProxy } from '../harness/proxy/session.js';
import { Injector, parseInjectRules } from '../harness/proxy/inject.js';

const delayMs = Number(process.argv[2] ?? 100);
const authToken = randomBytes(18).toString('base64url');
const seller = await startMockSeller({ allowPrivateWebhooks: true, authToken });
const inject = new Injector(parseInjectRules([`call:delay:${delayMs}ms`]), '1');
const proxy = await startAuditingProxy({ upstream: seller.baseUrl, token: 'proto', inject });
process.stdout.write(`${JSON.stringify({ url: proxy.url, direct: seller.baseUrl, authToken })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', () => process.stdout.write(`${JSON.stringify({ delayed: inject.summary().total })}\n`));
lines.on('close', () => void Promise.all([proxy.close(), seller.close()]).then(() => process.exit(0)));
