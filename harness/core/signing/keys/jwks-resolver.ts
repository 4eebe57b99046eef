/**
 * Step 7 through the sender's published keys (digest 1.11): brand.json `agents[].jwks_uri`
 * (default `/.well-known/jwks.json` at the agent's origin), an optional publisher pin from
 * adagents.json `signing_keys[]` (sell-side webhook delivery), caching no longer than the
 * configured TTL, failures cached 60 s, and one refetch per jwks_uri on an unknown kid with a
 * 30 s cooldown between refetches. Fetches go through a DocumentFetcher (SSRF-safe by default).
 */
import { depthBeyond, tooDeepMessage } from '../../transport/bounded-json.js';
import type { FailureReason } from '../codes.js';
import { scanDuplicateKeys } from '../parse/duplicate-keys.js';
import type { KeyLookup, KeyResolver } from './key-resolver.js';
import type { Jwk } from './keys.js';
import type { AddressPolicy } from '../../net/address-policy.js';
import { createSafeFetcher, SafeFetchError, type DocumentFetcher } from '../../net/safe-fetch.js';

export const JWKS_MAX_BYTES = 64 * 1024;
export const BRAND_JSON_MAX_BYTES = 256 * 1024;
export const REFETCH_COOLDOWN_SECONDS = 30;
export const FAILURE_CACHE_SECONDS = 60;
export const DEFAULT_CACHE_TTL_SECONDS = 300;
export const PIN_CACHE_SECONDS = 3600;

export interface BrandJwksResolverOptions {
  /** The sender operator's brand.json. */
  brandJsonUrl: string;
  /** Restrict to the `agents[]` entry whose `url` byte-equals this value. */
  agentUrl?: string;
  /** Publisher adagents.json whose `signing_keys[]` pins the acceptable keys. */
  publisherDeclarationUrl?: string;
  fetchDocument?: DocumentFetcher;
  /** Unix seconds. */
  now?: () => number;
  /** Success cache TTL; keep it at most the revocation polling interval. */
  cacheTtlSeconds?: number;
  refetchCooldownSeconds?: number;
  /** Tests only: passed to the default fetcher. */
  allowInsecureLoopback?: boolean;
  /** The run's private-address policy, passed to the default fetcher (its allow-list; with denyPrivate, no loopback either). */
  addressPolicy?: AddressPolicy;
  /** JWKS byte cap (default 64 KiB, digest 1.11 step 8). */
  jwksMaxBytes?: number;
  /**
   * Judges the chosen agents[] entry's jwks_uri before its JWKS is fetched (discovery from an
   * agent URL, digest 1.11 step 7: the declared key origins): a failure refuses the key.
   */
  checkJwksUri?: (jwksUri: string) => { reason: FailureReason; detail: string } | undefined;
}

interface AgentEntry {
  url: string;
  jwksUri: string;
}

type Loaded<T> = { ok: true; value: T; at: number } | { ok: false; reason: FailureReason; detail: string; at: number };

class ResolveFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON object whose members the caller checks one by one
function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse JSON strictly: duplicate keys and invalid JSON are errors. */
function strictJson(body: Buffer, what: string): unknown {
  if (depthBeyond(body.toString('utf8')) > 0) throw new Error(tooDeepMessage(what));
  const scan = scanDuplicateKeys(body);
  if (scan.kind === 'duplicate') throw new Error(`${what} repeats key(s) ${scan.keys.slice(0, 4).join(', ')}`);
  if (scan.kind === 'invalid') throw new Error(`${what} is not JSON: ${scan.message}`);
  return JSON.parse(body.toString('utf8'));
}

export class BrandJwksResolver implements KeyResolver {
  private readonly fetchDocument: DocumentFetcher;
  private readonly now: () => number;
  private readonly ttl: number;
  private readonly cooldown: number;
  private brand?: Loaded<AgentEntry[]>;
  private pin?: Loaded<Map<string, Jwk | null> | null>;
  private pinRefreshedAt = Number.NEGATIVE_INFINITY;
  private readonly jwks = new Map<string, Loaded<Map<string, Jwk>>>();
  private readonly lastRefetch = new Map<string, number>();

  constructor(private readonly opts: BrandJwksResolverOptions) {
    this.fetchDocument = opts.fetchDocument ?? createSafeFetcher({ allowInsecureLoopback: opts.allowInsecureLoopback, policy: opts.addressPolicy });
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.ttl = opts.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
    this.cooldown = opts.refetchCooldownSeconds ?? REFETCH_COOLDOWN_SECONDS;
  }

  async resolve(keyid: string): Promise<KeyLookup> {
    try {
      return await this.resolveOrThrow(keyid);
    } catch (err) {
      if (err instanceof ResolveFailure) return { ok: false, reason: err.reason, detail: err.message };
      throw err;
    }
  }

  private async resolveOrThrow(keyid: string): Promise<KeyLookup> {
    let entries = this.unwrap(await this.loadBrand());
    if (this.opts.agentUrl !== undefined) {
      entries = entries.filter((e) => e.url === this.opts.agentUrl);
      if (entries.length === 0) throw new ResolveFailure('agent_not_in_brand_json', `${this.opts.agentUrl} is not in brand.json agents[]`);
      if (entries.length > 1) throw new ResolveFailure('brand_json_ambiguous', `${this.opts.agentUrl} appears more than once in brand.json`);
    }
    if (this.opts.checkJwksUri) {
      for (const e of entries) {
        const refused = this.opts.checkJwksUri(e.jwksUri);
        if (refused) throw new ResolveFailure(refused.reason, refused.detail);
      }
    }
    let pinned: Jwk | null | undefined;
    if (this.opts.publisherDeclarationUrl !== undefined) {
      let pin = this.unwrap(await this.loadPin(false));
      if (pin && !pin.has(keyid)) pin = this.unwrap(await this.loadPin(true));
      if (pin && !pin.has(keyid)) throw new ResolveFailure('key_unknown', `kid ${JSON.stringify(keyid)} is outside the publisher's signing_keys pin`);
      pinned = pin?.get(keyid);
    }
    let found = await this.findInEntries(entries, keyid, false);
    if (found.matches.length === 0) found = await this.findInEntries(entries, keyid, true);
    const distinct = new Map(found.matches.map((m) => [m.entry.url, m]));
    if (distinct.size === 0) {
      if (found.failures.length === entries.length && found.failures.length > 0) {
        throw new ResolveFailure(found.failures[0]!.reason, found.failures.map((f) => f.detail).join('; '));
      }
      throw new ResolveFailure('key_unknown', `no key with kid ${JSON.stringify(keyid)} in the sender's JWKS`);
    }
    if (distinct.size > 1) throw new ResolveFailure('brand_json_ambiguous', `kid ${keyid} is published for several agents`);
    const [{ entry, jwk }] = distinct.values();
    if (pinned && (pinned.x !== undefined || pinned.y !== undefined) && (pinned.x !== jwk.x || pinned.y !== jwk.y)) {
      throw new ResolveFailure('key_unknown', `kid ${keyid}: JWKS key material differs from the publisher's pin`);
    }
    return { ok: true, key: { jwk, agentUrl: entry.url } };
  }

  private unwrap<T>(l: Loaded<T>): T {
    if (!l.ok) throw new ResolveFailure(l.reason, l.detail);
    return l.value;
  }

  private async findInEntries(entries: AgentEntry[], keyid: string, refetch: boolean) {
    const matches: Array<{ entry: AgentEntry; jwk: Jwk }> = [];
    const failures: Array<{ reason: FailureReason; detail: string }> = [];
    for (const entry of entries) {
      let set: Loaded<Map<string, Jwk>>;
      if (refetch) {
        const last = this.lastRefetch.get(entry.jwksUri) ?? Number.NEGATIVE_INFINITY;
        if (this.now() - last < this.cooldown) continue;
        this.lastRefetch.set(entry.jwksUri, this.now());
        set = await this.loadJwks(entry.jwksUri, true);
      } else set = await this.loadJwks(entry.jwksUri, false);
      if (!set.ok) failures.push({ reason: set.reason, detail: set.detail });
      else {
        const jwk = set.value.get(keyid);
        if (jwk) matches.push({ entry, jwk });
      }
    }
    return { matches, failures };
  }

  private fresh<T>(l: Loaded<T> | undefined, ttl: number): l is Loaded<T> {
    return l !== undefined && this.now() - l.at < (l.ok ? ttl : Math.min(ttl, FAILURE_CACHE_SECONDS));
  }

  private async fetchJson(url: string, maxBytes: number, what: string, fetchReason: FailureReason, parseReason: FailureReason) {
    let body: Buffer;
    try {
      body = (await this.fetchDocument(url, { maxBytes })).body;
    } catch (err) {
      const reason = err instanceof SafeFetchError && (err.kind === 'scheme' || err.kind === 'address') ? 'jwks_untrusted' : fetchReason;
      throw new ResolveFailure(what === 'JWKS' ? reason : fetchReason, `${what} ${url}: ${(err as Error).message}`);
    }
    try {
      return strictJson(body, what);
    } catch (err) {
      throw new ResolveFailure(parseReason, `${what} ${url}: ${(err as Error).message}`);
    }
  }

  private async load<T>(run: () => Promise<T>): Promise<Loaded<T>> {
    const at = this.now();
    try {
      return { ok: true, value: await run(), at };
    } catch (err) {
      if (err instanceof ResolveFailure) return { ok: false, reason: err.reason, detail: err.message, at };
      throw err;
    }
  }

  private async loadBrand(): Promise<Loaded<AgentEntry[]>> {
    if (this.fresh(this.brand, this.ttl)) return this.brand;
    this.brand = await this.load(async () => {
      const url = this.opts.brandJsonUrl;
      const doc = await this.fetchJson(url, BRAND_JSON_MAX_BYTES, 'brand.json', 'brand_json_unreachable', 'brand_json_malformed');
      if (!isObj(doc) || !Array.isArray(doc.agents)) throw new ResolveFailure('brand_json_malformed', `brand.json ${url}: no agents[]`);
      return doc.agents.map((a: unknown, i: number): AgentEntry => {
        if (!isObj(a) || typeof a.url !== 'string') throw new ResolveFailure('brand_json_malformed', `brand.json agents[${i}] has no url`);
        if (a.jwks_uri !== undefined && typeof a.jwks_uri !== 'string') {
          throw new ResolveFailure('brand_json_malformed', `brand.json agents[${i}].jwks_uri is not a string`);
        }
        let jwksUri: string;
        try {
          jwksUri = a.jwks_uri ?? new URL('/.well-known/jwks.json', a.url).href;
        } catch {
          throw new ResolveFailure('brand_json_malformed', `brand.json agents[${i}].url is not a URL`);
        }
        return { url: a.url, jwksUri };
      });
    });
    return this.brand;
  }

  private async loadJwks(uri: string, force: boolean): Promise<Loaded<Map<string, Jwk>>> {
    const cached = this.jwks.get(uri);
    if (!force && this.fresh(cached, this.ttl)) return cached;
    const loaded = await this.load(async () => {
      const doc = await this.fetchJson(uri, this.opts.jwksMaxBytes ?? JWKS_MAX_BYTES, 'JWKS', 'jwks_unavailable', 'jwks_unavailable');
      if (!isObj(doc) || !Array.isArray(doc.keys)) throw new ResolveFailure('jwks_unavailable', `JWKS ${uri}: no keys[]`);
      const byKid = new Map<string, Jwk>();
      for (const k of doc.keys) {
        if (!isObj(k) || typeof k.kid !== 'string') continue;
        if (byKid.has(k.kid)) throw new ResolveFailure('jwks_unavailable', `JWKS ${uri}: kid ${k.kid} is not unique`);
        byKid.set(k.kid, k as Jwk);
      }
      return byKid;
    });
    this.jwks.set(uri, loaded);
    return loaded;
  }

  /** The pin, or null when the declaration pins nothing (then the JWKS alone decides). */
  private async loadPin(force: boolean): Promise<Loaded<Map<string, Jwk | null> | null>> {
    if (!force && this.fresh(this.pin, PIN_CACHE_SECONDS)) return this.pin;
    if (force && this.pin && this.now() - this.pinRefreshedAt < this.cooldown) return this.pin;
    if (force) this.pinRefreshedAt = this.now();
    this.pin = await this.load(async () => {
      const url = this.opts.publisherDeclarationUrl!;
      const doc = await this.fetchJson(url, BRAND_JSON_MAX_BYTES, 'adagents.json', 'jwks_unavailable', 'jwks_unavailable');
      if (!isObj(doc)) throw new ResolveFailure('jwks_unavailable', `adagents.json ${url}: not an object`);
      const lists: unknown[] = [doc.signing_keys];
      for (const group of [doc.authorized_agents, doc.agents]) {
        if (!Array.isArray(group)) continue;
        for (const a of group) {
          if (isObj(a) && (this.opts.agentUrl === undefined || a.url === this.opts.agentUrl)) lists.push(a.signing_keys);
        }
      }
      const pin = new Map<string, Jwk | null>();
      if (!lists.some(Array.isArray)) return null;
      for (const list of lists) {
        if (!Array.isArray(list)) continue;
        for (const k of list) {
          if (typeof k === 'string') pin.set(k, null);
          else if (isObj(k) && typeof k.kid === 'string') pin.set(k.kid, k as Jwk);
        }
      }
      return pin;
    });
    return this.pin;
  }
}
