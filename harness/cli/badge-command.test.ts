/** `proto-comply badge verify` as a user runs it: the real CLI spawned, the JWKS from a file or a loopback server; one line out, exit 0 / 1 / 2 / 3. */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BadgeStatement } from '../compliance-service/badge-tokens/claims.js';
import { BadgeKeySet } from '../compliance-service/badge-tokens/key-set.js';
import { issueBadgeToken } from '../compliance-service/badge-tokens/token.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const STATEMENT: BadgeStatement = {
  iss: 'https://registry.example',
  sub: 'https://agent.example/mcp',
  role: 'media-buy',
  verified_specialisms: ['sales-guaranteed'],
  verification_modes: ['spec'],
  proto_version: '3.0',
  verified_protocol_version: '3.0.6',
};
const HOUR = 3600;

let dir: string;
let keys: BadgeKeySet;
let jwksFile: string;
let token: string;
let servers: Server[] = [];
let base: string;
let otherBase: string;

function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as { port: number }).port}`)));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'badge-cli-'));
  keys = await BadgeKeySet.open(join(dir, 'badge-keys.json'), { maxTokenLifetimeSeconds: 24 * HOUR });
  jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(keys.jwks()));
  token = await issueBadgeToken(keys, STATEMENT, { lifetimeSeconds: 12 * HOUR });
  otherBase = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys.jwks())));
  base = await serve((req, res) => {
    if (req.url === '/api/.well-known/jwks.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys.jwks()));
    else if (req.url === '/moved') res.writeHead(301, { location: '/api/.well-known/jwks.json' }).end();
    else if (req.url === '/elsewhere') res.writeHead(302, { location: `${otherBase}/api/.well-known/jwks.json` }).end();
    else if (req.url === '/huge') res.writeHead(200).end(JSON.stringify({ keys: [], pad: 'x'.repeat(300 * 1024) }));
    else res.writeHead(404).end();
  });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  rmSync(dir, { recursive: true, force: true });
});

const oneLine = (r: { stdout: string }) => {
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
};

describe('proto-comply badge verify', () => {
  it('a valid token, JWKS from a FILE: one line, exit 0', async () => {
    const r = await cli(['badge', 'verify', token, '--jwks', jwksFile]);
    expect(r.code, r.stderr).toBe(0);
    oneLine(r);
    expect(r.stdout).toMatch(
      /^valid: media-buy badge for https:\/\/agent\.example\/mcp \(protocol 3\.0 \(bundle 3\.0\.6\); specialisms sales-guaranteed; modes spec; issuer https:\/\/registry\.example; expires \d{4}-\d\d-\d\dT[\d:.]+Z\)\n$/,
    );
    expect(r.stderr).toBe('');
  });

  it('a valid token, JWKS by URL from a loopback server (also through a same-origin redirect), with issuer, agent and role expected', async () => {
    const [direct, moved] = await Promise.all([
      cli([
        'badge',
        'verify',
        token,
        '--jwks',
        `${base}/api/.well-known/jwks.json`,
        '--issuer',
        STATEMENT.iss,
        '--agent',
        STATEMENT.sub,
        '--role',
        'media-buy',
      ]),
      cli(['badge', 'verify', token, '--jwks', `${base}/moved`]),
    ]);
    for (const r of [direct, moved]) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      oneLine(r);
      expect(r.stdout).toMatch(/^valid: media-buy badge for https:\/\/agent\.example\/mcp /);
    }
  });

  it('invalid tokens: tampered, expired, another role or issuer: one line, exit 1', async () => {
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), role: 'creative' })).toString('base64url')}.${s}`;
    const expired = await issueBadgeToken(keys, STATEMENT, { now: new Date(Date.now() - 2 * HOUR * 1000), lifetimeSeconds: HOUR });
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'badge+jwt', kid: keys.currentKid })).toString('base64url')}.${p}.`;
    const cases: Array<[string[], RegExp]> = [
      [[tampered], /^invalid: bad_signature: /],
      [[expired], /^invalid: expired: expired at \d{4}-/],
      [[none], /^invalid: alg_not_allowed: /],
      [[token, '--role', 'signals'], /^invalid: wrong_role: /],
      [[token, '--issuer', 'https://other.example'], /^invalid: wrong_issuer: /],
      [[token, '--agent', 'https://agent.example/a2a'], /^invalid: wrong_agent: /],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(['badge', 'verify', ...args, '--jwks', jwksFile])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]![1]} ${r.stdout}${r.stderr}`).toBe(1);
      oneLine(r);
      expect(r.stdout).toMatch(cases[i]![1]);
      expect(r.stderr).toBe('');
    });
  });

  it('usage errors: missing TOKEN or --jwks, unreadable file, bad flag or role: one line on stderr, exit 2, no stack trace', async () => {
    const unreadable = join(dir, 'unreadable.json');
    writeFileSync(unreadable, '{}');
    chmodSync(unreadable, 0o000);
    const cases = [
      ['badge', 'verify', '--jwks', jwksFile],
      ['badge', 'verify', token],
      ['badge', 'verify', token, '--jwks', join(dir, 'missing.json')],
      ['badge', 'verify', token, '--jwks', dir],
      ['badge', 'verify', token, '--jwks', 'ftp://127.0.0.1/jwks.json'],
      ['badge', 'verify', token, '--jwks', jwksFile, '--role', 'seller'],
      ['badge', 'verify', token, '--jwks', jwksFile, '--agent', 'not a url'],
      ['badge', 'verify', token, '--jwks', jwksFile, '--nope'],
      ['badge', 'frob'],
      // Root reads any file: the mode-000 case is a usage error only for other users.
      ...(process.getuid?.() === 0 ? [] : [['badge', 'verify', token, '--jwks', unreadable]]),
    ];
    const results = await Promise.all(cases.map((args) => cli(args)));
    results.forEach((r, i) => {
      const label = cases[i]!.slice(2).join(' ');
      expect(r.code, `${label}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), label).toHaveLength(1);
      expect(r.stderr, label).toMatch(/^proto-comply: badge/);
      expect(r.stderr, label).not.toMatch(/\n\s+at /);
      expect(r.stdout, label).toBe('');
    });
  });

  it('a JWKS that cannot be had: redirect to another origin, too large, not found, not a JWKS: one line, exit 3', async () => {
    const notJwks = join(dir, 'not-jwks.json');
    writeFileSync(notJwks, '{"hello": 1}');
    const cases: Array<[string, RegExp]> = [
      [`${base}/elsewhere`, /redirect to another origin .* refused/],
      [`${base}/huge`, /larger than 262144 bytes/],
      [`${base}/nothing`, /HTTP 404/],
      [notJwks, /not a JWKS/],
    ];
    const results = await Promise.all(cases.map(([jwks]) => cli(['badge', 'verify', token, '--jwks', jwks])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]![0]}: ${r.stdout}${r.stderr}`).toBe(3);
      oneLine(r);
      expect(r.stdout).toMatch(/^error: cannot load the JWKS: /);
      expect(r.stdout).toMatch(cases[i]![1]);
    });
  });

  it('agent-supplied text in the claims and the header is printed inert', async () => {
    const hostile = await issueBadgeToken(
      keys,
      { ...STATEMENT, sub: 'https://agent.example/\u001b[2J\u001b]0;pwned\u0007\u202emcp' },
      { lifetimeSeconds: HOUR },
    );
    const unknownKid = `${Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'badge+jwt', kid: 'k\u001b[31m\u009b1m' })).toString('base64url')}.${token.split('.')[1]}.${token.split('.')[2]}`;
    const [a, b] = await Promise.all([cli(['badge', 'verify', hostile, '--jwks', jwksFile]), cli(['badge', 'verify', unknownKid, '--jwks', jwksFile])]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(1);
    for (const r of [a, b]) {
      oneLine(r);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(a.stdout).toContain('https://agent.example/\\u001b[2J\\u001b]0;pwned\\u0007\\u202emcp');
    expect(b.stdout).toMatch(/^invalid: unknown_kid: kid "k\\u001b\[31m\\u009b1m" is not in the JWKS/);
  });

  it('--help: the usage, exit 0; listed in the main help', async () => {
    const [own, verifyHelp, main] = await Promise.all([cli(['badge', '--help']), cli(['badge', 'verify', '--help']), cli(['--help'])]);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: proto-comply badge verify TOKEN --jwks URL\|FILE/);
    expect(verifyHelp.code).toBe(0);
    expect(verifyHelp.stdout).toBe(own.stdout);
    expect(main.stdout).toMatch(/proto-comply badge verify TOKEN --jwks URL\|FILE/);
  });
});
