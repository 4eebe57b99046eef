/**
 * The registry's badge signing keys (Ed25519, JWS alg "EdDSA"), kept in one owner-only JSON file
 * (key-file.ts) in the registry's state directory, e.g. `<db dir>/badge-keys.json`, created on
 * first use. Each key is named by its RFC 7638 JWK thumbprint (`kid`).
 *
 * - Exactly one key is current: it signs new tokens.
 * - `rotate()` makes a new current key and retires the old one: it stays in the public JWKS until
 *   `publish_until = retired_at + maxTokenLifetimeSeconds`, i.e. until every token it signed has
 *   expired. Tokens may not live longer than that (`issueBadgeToken` refuses).
 * - A key past its `publish_until` is left out of `jwks()` at once and dropped from the file by
 *   the next `rotate()` or `prune()` (and when the set is opened).
 * - `jwks()` copies the public members only (kty, crv, x, kid, alg, use): the private `d` never
 *   reaches it, whatever else the file holds.
 *
 * One process owns a key file (the registry's `serve`): another process holding the same file
 * open would keep signing with a key this one retired. Calls on one set are serialised.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK } from 'jose';
import { BadgeKeyFileError, createKeyFile, KEY_FILE_VERSION, readKeyFile, replaceKeyFile } from './key-file.js';

/** A public badge key as published at `/api/.well-known/jwks.json`. */
export interface PublicBadgeJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface BadgeJwks {
  keys: PublicBadgeJwk[];
}

/** A key's metadata (no key material). */
export interface BadgeKeyInfo {
  kid: string;
  created_at: string;
  retired_at?: string;
  publish_until?: string;
}

interface StoredKey extends BadgeKeyInfo {
  /** The private JWK: kty OKP, crv Ed25519, x, d. */
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
}

interface KeyFileDocument {
  version: typeof KEY_FILE_VERSION;
  keys: StoredKey[];
}

export interface BadgeKeySetOptions {
  /** The longest lifetime, in seconds, of a token signed with these keys; a retired key stays published this long. */
  maxTokenLifetimeSeconds: number;
  /** The clock (tests); default the system clock. */
  now?: () => Date;
}

/** The key a token is signed with. */
export interface BadgeSigningKey {
  kid: string;
  key: CryptoKey;
}

/** The key file's name in the registry's state directory. */
export const BADGE_KEY_FILE_NAME = 'badge-keys.json';

/** The key file beside the registry's SQLite file (`registry.sqlite` → `./badge-keys.json`), as an absolute path. */
export function badgeKeyPathBeside(dbFile: string): string {
  return join(dirname(resolve(dbFile)), BADGE_KEY_FILE_NAME);
}

const B64URL_32 = /^[A-Za-z0-9_-]{43}$/;

function iso(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

async function thumbprintOf(x: string): Promise<string> {
  return calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x }, 'sha256');
}

/** Every check a key entry read from disk must pass; the message says which one failed. */
async function checkedKey(path: string, raw: unknown, index: number): Promise<StoredKey> {
  const bad = (why: string) =>
    new BadgeKeyFileError(path, `is corrupted: keys[${index}] ${why}; it was left as it is (replacing it would invalidate every issued badge token)`);
  if (typeof raw !== 'object' || raw === null) throw bad('is not an object');
  const k = raw as Record<string, unknown>;
  const jwk = k.jwk as Record<string, unknown> | undefined;
  if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw bad('is not an Ed25519 key');
  if (typeof jwk.x !== 'string' || !B64URL_32.test(jwk.x) || typeof jwk.d !== 'string' || !B64URL_32.test(jwk.d)) throw bad('has a malformed x or d');
  let derivedX: string | undefined;
  try {
    derivedX = createPublicKey(createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' })).export({ format: 'jwk' }).x;
  } catch {
    derivedX = undefined;
  }
  if (derivedX !== jwk.x) throw bad('has a public key x that does not belong to its private key d');
  if (k.kid !== (await thumbprintOf(jwk.x))) throw bad('has a kid that is not the JWK thumbprint of its key');
  if (!iso(k.created_at)) throw bad('has no valid created_at');
  if (k.retired_at !== undefined || k.publish_until !== undefined) {
    if (!iso(k.retired_at) || !iso(k.publish_until)) throw bad('has an invalid retired_at or publish_until');
  }
  const key: StoredKey = { kid: k.kid as string, created_at: k.created_at, jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d } };
  if (k.retired_at !== undefined) {
    key.retired_at = k.retired_at as string;
    key.publish_until = k.publish_until as string;
  }
  return key;
}

async function parseDocument(path: string, text: string): Promise<KeyFileDocument> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new BadgeKeyFileError(path, 'is corrupted: not JSON; it was left as it is (replacing it would invalidate every issued badge token)');
  }
  const d = doc as { version?: unknown; keys?: unknown };
  if (typeof doc !== 'object' || doc === null || d.version !== KEY_FILE_VERSION || !Array.isArray(d.keys)) {
    throw new BadgeKeyFileError(path, `is not a badge key file of version ${KEY_FILE_VERSION}; it was left as it is`);
  }
  const keys: StoredKey[] = [];
  for (const [i, raw] of d.keys.entries()) keys.push(await checkedKey(path, raw, i));
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new BadgeKeyFileError(path, 'is corrupted: a kid appears twice');
  if (keys.filter((k) => k.retired_at === undefined).length !== 1) {
    throw new BadgeKeyFileError(path, 'is corrupted: it must hold exactly one current (not retired) key; it was left as it is');
  }
  return { version: KEY_FILE_VERSION, keys };
}

async function newKey(now: Date): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwk = await exportJWK(privateKey);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.x || !jwk.d) throw new Error('jose did not export an Ed25519 private JWK');
  return { kid: await thumbprintOf(jwk.x), created_at: now.toISOString(), jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d } };
}

const serialise = (doc: KeyFileDocument): string => `${JSON.stringify(doc, null, 2)}\n`;

const expired = (k: StoredKey, now: Date): boolean => k.publish_until !== undefined && Date.parse(k.publish_until) <= now.getTime();

export class BadgeKeySet {
  private doc: KeyFileDocument;
  private signing: BadgeSigningKey | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly clock: () => Date;
  readonly maxTokenLifetimeSeconds: number;

  private constructor(
    readonly path: string,
    doc: KeyFileDocument,
    opts: BadgeKeySetOptions,
  ) {
    this.doc = doc;
    this.clock = opts.now ?? (() => new Date());
    this.maxTokenLifetimeSeconds = opts.maxTokenLifetimeSeconds;
  }

  /**
   * Opens the key file at `path`, creating it (one new current key, mode 0600) when it does not
   * exist, and drops keys past their publish_until. Throws `BadgeKeyFileError` for a file it must
   * not use (corrupted, group/other-accessible, another user's, a symbolic link).
   */
  static async open(path: string, opts: BadgeKeySetOptions): Promise<BadgeKeySet> {
    if (!Number.isSafeInteger(opts.maxTokenLifetimeSeconds) || opts.maxTokenLifetimeSeconds <= 0) {
      throw new RangeError('maxTokenLifetimeSeconds must be a positive whole number of seconds');
    }
    const now = (opts.now ?? (() => new Date()))();
    let text = await readKeyFile(path);
    if (text === undefined) {
      // Another process may create it at the same moment: whoever links first wins, the other reads it.
      await createKeyFile(path, serialise({ version: KEY_FILE_VERSION, keys: [await newKey(now)] }));
      text = await readKeyFile(path);
      if (text === undefined) throw new BadgeKeyFileError(path, 'vanished right after it was created');
    }
    const set = new BadgeKeySet(path, await parseDocument(path, text), opts);
    await set.prune();
    return set;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private current(): StoredKey {
    return this.doc.keys.find((k) => k.retired_at === undefined)!;
  }

  /** The kid new tokens are signed with. */
  get currentKid(): string {
    return this.current().kid;
  }

  /** Every key of the file, current first, without key material. */
  keys(): BadgeKeyInfo[] {
    return [...this.doc.keys]
      .sort((a, b) => Number(a.retired_at !== undefined) - Number(b.retired_at !== undefined) || b.created_at.localeCompare(a.created_at))
      .map(({ kid, created_at, retired_at, publish_until }) => ({ kid, created_at, ...(retired_at ? { retired_at, publish_until } : {}) }));
  }

  /** The key new tokens are signed with (not extractable). */
  async signingKey(): Promise<BadgeSigningKey> {
    const cur = this.current();
    if (this.signing?.kid !== cur.kid) this.signing = { kid: cur.kid, key: (await importJWK({ ...cur.jwk }, 'EdDSA')) as CryptoKey };
    return this.signing;
  }

  /** The public JWKS: the current key and every retired key still within its publish_until, public members only. */
  jwks(now: Date = this.clock()): BadgeJwks {
    return {
      keys: this.keys()
        .filter((info) => info.publish_until === undefined || Date.parse(info.publish_until) > now.getTime())
        .map((info) => {
          const k = this.doc.keys.find((s) => s.kid === info.kid)!;
          return { kty: 'OKP', crv: 'Ed25519', x: k.jwk.x, kid: k.kid, alg: 'EdDSA', use: 'sig' } satisfies PublicBadgeJwk;
        }),
    };
  }

  /** Drops keys past their publish_until from the file; returns their kids. */
  prune(now: Date = this.clock()): Promise<string[]> {
    return this.exclusive(async () => {
      const dropped = this.doc.keys.filter((k) => expired(k, now));
      if (dropped.length === 0) return [];
      const next: KeyFileDocument = { version: KEY_FILE_VERSION, keys: this.doc.keys.filter((k) => !expired(k, now)) };
      await replaceKeyFile(this.path, serialise(next));
      this.doc = next;
      return dropped.map((k) => k.kid);
    });
  }

  /**
   * A new current key; the old one is retired now and published until every token it signed has
   * expired (now + maxTokenLifetimeSeconds). Keys past their publish_until are dropped.
   */
  rotate(now: Date = this.clock()): Promise<{ kid: string; retired: BadgeKeyInfo }> {
    return this.exclusive(async () => {
      const old = this.current();
      const fresh = await newKey(now);
      const retired: StoredKey = {
        ...old,
        retired_at: now.toISOString(),
        publish_until: new Date(now.getTime() + this.maxTokenLifetimeSeconds * 1000).toISOString(),
      };
      const keys = [fresh, retired, ...this.doc.keys.filter((k) => k !== old && !expired(k, now))];
      const next: KeyFileDocument = { version: KEY_FILE_VERSION, keys };
      await replaceKeyFile(this.path, serialise(next));
      this.doc = next;
      const { jwk: _material, ...info } = retired;
      return { kid: fresh.kid, retired: info };
    });
  }
}
