/**
 * The private-address policy every outbound connection of the harness and the mocks goes through
 * (agent endpoints, agent card urls, brand.json / JWKS fetches, mock webhooks; digest 5.9):
 *
 * - each host is resolved once (cached for `ttlMs`, shared by every user of one resolver) and
 *   every address it resolves to is checked;
 * - with `denyPrivate`, a reserved address (address-ranges.ts) is refused unless the host name,
 *   the address or a CIDR block containing it is on the allow-list;
 * - connections go to exactly the addresses that were checked (pinned-connector.ts): no second
 *   lookup an attacker's DNS could answer differently.
 *
 * Without `denyPrivate` the policy refuses nothing (local agents are certified every day) and
 * transports skip it entirely.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressBlock, classifyAddress, isLoopbackAddress, parseAddressBlock } from './address-ranges.js';
import { type ConnectTo, connectTarget, defaultPort } from './connect-to.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (inject one in tests; the default is the system resolver). */
export type LookupFunction = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const DEFAULT_RESOLVE_TTL_MS = 5 * 60_000;
export const DEFAULT_RESOLVE_TIMEOUT_MS = 10_000;
export const MAX_RESOLVED_HOSTS = 1024;

/** A connection the policy refused; nothing was sent. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string | undefined,
    readonly range: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The first AddressRefusedError in an error's `cause` chain. */
export function findAddressRefusal(err: unknown): AddressRefusedError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressRefusedError) return e;
  }
  return undefined;
}

export class AllowHostError extends Error {
  override name = 'AllowHostError';
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

const defaultLookup: LookupFunction = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** One resolution per host, cached for a while, with concurrent lookups of a host shared. */
export class HostResolver {
  private readonly cache = new Map<string, { at: number; addresses: Promise<readonly ResolvedAddress[]> }>();
  private readonly lookupFn: LookupFunction;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;

  constructor(o: { lookup?: LookupFunction; ttlMs?: number; timeoutMs?: number } = {}) {
    this.lookupFn = o.lookup ?? defaultLookup;
    this.ttlMs = o.ttlMs ?? DEFAULT_RESOLVE_TTL_MS;
    this.timeoutMs = o.timeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
  }

  /** The addresses of `host` (an IP literal stands for itself). Lookup failures are not cached. */
  resolve(host: string): Promise<readonly ResolvedAddress[]> {
    const h = normalizeHost(host);
    const literal = isIP(h);
    if (literal !== 0) return Promise.resolve([{ address: h, family: literal as 4 | 6 }]);
    const now = Date.now();
    const hit = this.cache.get(h);
    if (hit && now - hit.at < this.ttlMs) return hit.addresses;
    this.cache.delete(h);
    const addresses = this.lookupWithTimeout(h);
    const entry = { at: now, addresses };
    this.cache.set(h, entry);
    addresses.catch(() => {
      if (this.cache.get(h) === entry) this.cache.delete(h);
    });
    while (this.cache.size > MAX_RESOLVED_HOSTS) this.cache.delete(this.cache.keys().next().value as string);
    return addresses;
  }

  private async lookupWithTimeout(host: string): Promise<readonly ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`lookup of ${host} timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      timer.unref();
    });
    try {
      const found = await Promise.race([this.lookupFn(host), timeout]);
      const valid = found.filter((a) => isIP(a.address) !== 0).map((a) => ({ address: a.address, family: (isIP(a.address) === 6 ? 6 : 4) as 4 | 6 }));
      if (valid.length === 0) throw new Error(`no address for ${host}`);
      return valid;
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface AddressPolicyOptions {
  /** Refuse reserved addresses (default false). */
  denyPrivate?: boolean;
  /** Host names, IP addresses and CIDR blocks let through even when reserved (`127.0.0.1`, `10.0.0.0/8`, `localhost`). */
  allowHosts?: readonly string[];
  /** The resolver (default: the system's, via dns.lookup); `resolver` wins when both are given. */
  lookup?: LookupFunction;
  resolver?: HostResolver;
  /** `--connect-to` rules: where connections to a host and port really go (connect-to.ts); the policy judges that address. */
  connectTo?: readonly ConnectTo[];
}

interface ParsedAllowList {
  names: Set<string>;
  blocks: AddressBlock[];
}

/** Parses allow-list entries; throws AllowHostError naming the first entry that is neither a host name, an address nor a CIDR. */
export function parseAllowHosts(entries: readonly string[]): ParsedAllowList {
  const names = new Set<string>();
  const blocks: AddressBlock[] = [];
  for (const raw of entries) {
    const block = parseAddressBlock(raw.trim());
    if (block) {
      blocks.push(block);
      continue;
    }
    const name = normalizeHost(raw);
    if (!HOST_NAME.test(name) || /^[\d.]+$/.test(name)) {
      throw new AllowHostError(`${JSON.stringify(raw)} is neither a host name, an IP address nor a CIDR block`);
    }
    names.add(name);
  }
  return { names, blocks };
}

export class AddressPolicy {
  readonly denyPrivate: boolean;
  readonly allowHosts: readonly string[];
  readonly resolver: HostResolver;
  readonly connectTo: readonly ConnectTo[];
  private readonly allowed: ParsedAllowList;
  private readonly loopbackAllowed: boolean;

  constructor(o: AddressPolicyOptions = {}, internal: { loopback?: boolean } = {}) {
    this.denyPrivate = o.denyPrivate === true;
    this.allowHosts = [...(o.allowHosts ?? [])];
    this.allowed = parseAllowHosts(this.allowHosts);
    this.resolver = o.resolver ?? new HostResolver({ lookup: o.lookup });
    this.connectTo = [...(o.connectTo ?? [])];
    this.loopbackAllowed = internal.loopback === true;
  }

  /**
   * The policy for counterparty documents (brand.json, JWKS, adagents.json; digest 5.9): reserved
   * addresses are refused whatever this policy says, the allow-list still applies, and loopback is
   * admitted when `loopback` is asked for and this policy does not deny private addresses (a local
   * agent under test, or the tests). Shares this policy's resolver.
   */
  forDocuments(o: { loopback?: boolean } = {}): AddressPolicy {
    return new AddressPolicy(
      { denyPrivate: true, allowHosts: this.allowHosts, resolver: this.resolver, connectTo: this.connectTo },
      { loopback: o.loopback === true && !this.denyPrivate },
    );
  }

  /** Why this address would be refused, or undefined when it is allowed. */
  refusal(address: string): { range: string; embedded?: string } | undefined {
    if (!this.denyPrivate) return undefined;
    const c = classifyAddress(address);
    if (!c.reserved) return undefined;
    if (this.loopbackAllowed && isLoopbackAddress(address)) return undefined;
    if (this.allowed.blocks.some((b) => b.matches(address))) return undefined;
    return { range: c.embedded ? `${c.range} of ${c.embedded.address}, ${c.embedded.range}` : c.range };
  }

  /**
   * Resolve `host` (once per resolver TTL) and check every address it resolves to. Returns the
   * checked addresses, the only ones a connection may use; throws AddressRefusedError when one is
   * reserved and not allowed (a name with any reserved answer is refused as a whole).
   */
  async resolve(host: string): Promise<readonly ResolvedAddress[]> {
    const h = normalizeHost(host);
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await this.resolver.resolve(h);
    } catch (err) {
      throw new Error(`cannot resolve ${h}: ${(err as Error).message}`, { cause: err });
    }
    if (!this.denyPrivate || this.allowed.names.has(h)) return addresses;
    for (const a of addresses) {
      const why = this.refusal(a.address);
      if (why) {
        const what = isIP(h) ? `${h} is a reserved address (${why.range})` : `${h} resolves to ${a.address}, a reserved address (${why.range})`;
        throw new AddressRefusedError(h, a.address, why.range, `refused: ${what}`);
      }
    }
    return addresses;
  }

  /** `resolve` for the host a URL connects to (its own, or a `--connect-to` rule's); the URL must parse. */
  async checkUrl(url: string): Promise<readonly ResolvedAddress[]> {
    const u = new URL(url);
    return this.resolve(connectTarget(this.connectTo, u.hostname, Number(u.port) || defaultPort(u.protocol))?.hostname ?? u.hostname);
  }
}
