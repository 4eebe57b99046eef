/** The badge key file: created 0600 and atomically, rotation with publication until tokens expire, refusals of unsafe or corrupted files. */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BadgeKeyFileError } from './key-file.js';
import { BadgeKeySet, badgeKeyPathBeside } from './key-set.js';

const DAY = 86_400;
const T0 = new Date('2026-03-01T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'badge-keys-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (path = join(dir, 'badge-keys.json'), now = () => T0) => BadgeKeySet.open(path, { maxTokenLifetimeSeconds: 30 * DAY, now });

describe('badge key file', () => {
  it('is created on first use with mode 0600, one current Ed25519 key named by its thumbprint, the directory untouched, no temp file left', async () => {
    chmodSync(dir, 0o755);
    const keys = await open();
    const path = join(dir, 'badge-keys.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(['badge-keys.json']);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.version).toBe(1);
    expect(doc.keys).toHaveLength(1);
    expect(doc.keys[0]).toMatchObject({ kid: keys.currentKid, created_at: T0.toISOString(), jwk: { kty: 'OKP', crv: 'Ed25519' } });
    expect(keys.currentKid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Reopened: the same key, not a new one.
    expect((await open()).currentKid).toBe(keys.currentKid);
  });

  it('creates a missing state directory owner-only', async () => {
    const keys = await open(join(dir, 'state', 'badge-keys.json'));
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700);
    expect(keys.jwks().keys).toHaveLength(1);
  });

  it('publishes public members only: no d, whatever the file holds', async () => {
    const keys = await open();
    await keys.rotate(at(10));
    const jwks = keys.jwks(at(10));
    expect(jwks.keys).toHaveLength(2);
    for (const k of jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    }
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
    const d = JSON.parse(readFileSync(keys.path, 'utf8')).keys.map((k: { jwk: { d: string } }) => k.jwk.d) as string[];
    for (const secret of d) expect(JSON.stringify(jwks)).not.toContain(secret);
  });

  it('rotation: the old key stays published until every token it signed has expired, then is dropped from the JWKS and the file', async () => {
    const keys = await open();
    const first = keys.currentKid;
    const { kid, retired } = await keys.rotate(at(DAY));
    expect(kid).not.toBe(first);
    expect(keys.currentKid).toBe(kid);
    expect(retired).toEqual({ kid: first, created_at: T0.toISOString(), retired_at: at(DAY).toISOString(), publish_until: at(31 * DAY).toISOString() });
    expect(statSync(keys.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['badge-keys.json']);
    expect(keys.jwks(at(31 * DAY - 1)).keys.map((k) => k.kid)).toEqual([kid, first]);
    expect(keys.jwks(at(31 * DAY)).keys.map((k) => k.kid)).toEqual([kid]);
    expect(await keys.prune(at(31 * DAY))).toEqual([first]);
    expect(JSON.parse(readFileSync(keys.path, 'utf8')).keys.map((k: { kid: string }) => k.kid)).toEqual([kid]);
    // Reopening later drops expired keys too.
    const third = await keys.rotate(at(40 * DAY));
    const reopened = await open(keys.path, () => at(71 * DAY));
    expect(reopened.keys().map((k) => k.kid)).toEqual([third.kid]);
  });

  it('refuses a file readable by group or others, saying chmod 600, and leaves it as it is', async () => {
    const keys = await open();
    const before = readFileSync(keys.path, 'utf8');
    for (const mode of [0o640, 0o604, 0o660]) {
      chmodSync(keys.path, mode);
      const err = await open().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadgeKeyFileError);
      expect((err as Error).message).toContain(`chmod 600 ${keys.path}`);
    }
    expect(readFileSync(keys.path, 'utf8')).toBe(before);
  });

  it('refuses a corrupted file (never replaced: that would invalidate every issued token)', async () => {
    const path = join(dir, 'badge-keys.json');
    const good = readFileSync((await open()).path, 'utf8');
    const doc = JSON.parse(good);
    const cases: Array<[string, string]> = [
      ['not JSON', '{"version": 1, "keys": ['],
      ['empty', ''],
      ['version', JSON.stringify({ ...doc, version: 2 })],
      ['kid', JSON.stringify({ ...doc, keys: [{ ...doc.keys[0], kid: 'x' }] })],
      ['x not of d', JSON.stringify({ ...doc, keys: [{ ...doc.keys[0], jwk: { ...doc.keys[0].jwk, x: `${'A'.repeat(42)}E` } }] })],
      ['no current key', JSON.stringify({ ...doc, keys: [{ ...doc.keys[0], retired_at: T0.toISOString(), publish_until: at(DAY).toISOString() }] })],
      ['no keys', JSON.stringify({ version: 1, keys: [] })],
    ];
    for (const [name, text] of cases) {
      writeFileSync(path, text, { mode: 0o600 });
      const err = await open().catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(BadgeKeyFileError);
      expect(readFileSync(path, 'utf8'), name).toBe(text);
    }
  });

  it('refuses a symbolic link and a directory', async () => {
    const real = (await open(join(dir, 'real.json'))).path;
    symlinkSync(real, join(dir, 'link.json'));
    await expect(open(join(dir, 'link.json'))).rejects.toThrow(/symbolic link/);
    await expect(open(dir)).rejects.toThrow(/not a regular file/);
  });

  it('the key file path beside the SQLite file', () => {
    expect(badgeKeyPathBeside('/var/lib/registry/registry.sqlite')).toBe('/var/lib/registry/badge-keys.json');
    expect(badgeKeyPathBeside('registry.sqlite')).toBe(join(process.cwd(), 'badge-keys.json'));
  });

  it('two sets opening a missing file at once end up with the same key', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    expect(a.currentKid).toBe(b.currentKid);
  });
});

describe.runIf(process.getuid?.() === 0)('badge key file owned by another user (run as root)', () => {
  it('is refused', async () => {
    const { chownSync } = await import('node:fs');
    const keys = await open();
    chownSync(keys.path, 4242, 4242);
    await expect(open()).rejects.toThrow(/owned by uid 4242/);
  });
});
