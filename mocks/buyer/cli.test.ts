/** `proto-comply mock buyer`: flags, fault listing, start and clean stop. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { mockBuyerCommand } from './cli.js';
import { listBuyerFaults } from './faults.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) } };
}

describe('mock buyer command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'buyer-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists its faults with their targets', async () => {
    const c = io();
    expect(await mockBuyerCommand(['--list-faults'], c.io)).toBe(0);
    const text = c.out.join('');
    for (const f of listBuyerFaults()) expect(text).toContain(f.name);
    expect(text).toContain('webhook-receiver.');
  });

  it.each([
    [['--port', '1'], '--db FILE is required'],
    [['--db', join(dir, 'x.sqlite'), '--fault', 'nope'], 'unknown fault "nope"'],
    [['--db', join(dir, 'x.sqlite'), '--trust-brand', 'http://example.com/.well-known/brand.json'], 'must be https'],
    [['--db', join(dir, 'x.sqlite'), '--dedup-bound', '0'], '--dedup-bound must be a positive integer'],
    [['--db', join(dir, 'x.sqlite'), '--sender-dedup-bound', 'nobound'], 'SENDER=N'],
    [['--db', join(dir, 'x.sqlite'), '--bogus'], 'Unknown option'],
    [['--db', join(dir, 'x.sqlite'), '--hmac-endpoint', 'hmac'], '--hmac-endpoint needs the shared secret in $PROTO_COMPLY_RECEIVER_HMAC_SECRET'],
    [['--db', join(dir, 'x.sqlite'), '--bearer-endpoint', 'b'], '--bearer-endpoint needs the credential in $PROTO_COMPLY_RECEIVER_BEARER_TOKEN'],
  ])('refuses %j with exit code 2', async (argv, message) => {
    const c = io();
    expect(await mockBuyerCommand(argv, { ...c.io, env: {} })).toBe(2);
    expect(c.err.join('')).toContain(message);
  });

  it('refuses an HMAC secret under 32 characters with exit code 2', async () => {
    const c = io();
    const argv = ['--db', join(dir, 'x.sqlite'), '--hmac-endpoint', 'hmac'];
    expect(await mockBuyerCommand(argv, { ...c.io, env: { PROTO_COMPLY_RECEIVER_HMAC_SECRET: 'short' } })).toBe(2);
    expect(c.err.join('')).toContain('at least 32 characters');
  });

  it('starts, prints its URLs, answers, and stops cleanly', async () => {
    const c = io();
    const stop = new AbortController();
    const done = mockBuyerCommand(
      [
        '--db',
        join(dir, 'run.sqlite'),
        '--endpoint',
        'second',
        '--hmac-endpoint',
        'legacy',
        '--insecure-loopback',
        '--trust-brand',
        'http://127.0.0.1:9/.well-known/brand.json',
      ],
      { ...c.io, stop: stop.signal, env: { PROTO_COMPLY_RECEIVER_HMAC_SECRET: 'x'.repeat(40) } },
    );
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      url = /^state\s+(\S+)$/m.exec(c.out.join(''))?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 25));
    }
    expect(url).toBeDefined();
    expect(c.out.join('')).toMatch(/^endpoint second http:\/\/127\.0\.0\.1:\d+\/webhooks\/second$/m);
    expect(c.out.join('')).toMatch(/^endpoint legacy http:\/\/127\.0\.0\.1:\d+\/webhooks\/legacy$/m);
    expect(c.out.join('') + c.err.join('')).not.toContain('x'.repeat(40));
    const res = await request(url!);
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { receiver: string }).receiver).toBe('proto-comply mock buyer');
    stop.abort();
    expect(await done).toBe(0);
    expect(c.err.join('')).toContain('mock buyer stopped');
  });
});
