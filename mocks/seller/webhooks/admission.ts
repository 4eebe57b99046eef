/**
 * Which webhook URLs the seller accepts at registration time (digest 5.9), before it ever posts:
 * https only, and a host that resolves to public addresses only (the address policy of
 * harness/core/net; deliveries are then pinned to the checked addresses). `allowPrivate` is for local
 * testing (the built-in run and the tests post to loopback over http): the address ranges a
 * receiver under local test lives on pass (`LocalTestingPolicy`), plain http only to a host shown
 * to be on them (a local receiver; http to anywhere else is still refused), a name that does not
 * resolve here is left to the delivery when it is https, and link-local and cloud metadata
 * addresses are refused all the same. Either way each principal may register a bounded number of distinct URLs
 * per rolling window, so an exposed seller cannot be turned into a request cannon.
 *
 * Refusals never say what a host resolved to (the seller is no DNS oracle for its network).
 */
import { AddressPolicy, type LookupFunction, findAddressRefusal } from '../../../harness/core/net/address-policy.js';
import { classifyAddress } from '../../../harness/core/net/address-ranges.js';
import { invalidRequest } from '../domain/errors.js';
import { isPlainObject } from '../domain/task-def.js';

/** Ranges (ipaddr.js names) a receiver under local test may live on: this machine and private networks. */
const LOCAL_TEST_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);
/** Cloud metadata services outside link-local (AWS IPv6, Alibaba): never a receiver (digest 5.9). */
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200']);

/**
 * The address policy of a seller started for local testing: loopback, private networks (RFC 1918,
 * unique-local) and carrier-grade NAT pass; link-local (169.254.0.0/16 with the metadata address
 * 169.254.169.254, fe80::/10), the metadata addresses and every other reserved range are refused,
 * at registration and, pinned, at delivery. No legitimate receiver sits there, even on a
 * developer's machine.
 */
export class LocalTestingPolicy extends AddressPolicy {
  constructor(lookup?: LookupFunction) {
    super({ denyPrivate: true, ...(lookup ? { lookup } : {}) });
  }

  override refusal(address: string): { range: string } | undefined {
    const c = classifyAddress(address);
    if (METADATA_ADDRESSES.has(c.address)) return { range: 'cloud metadata' };
    const range = c.range === 'ipv4Mapped' && c.embedded ? c.embedded.range : c.range;
    if (!c.reserved || LOCAL_TEST_RANGES.has(range)) return undefined;
    return { range };
  }
}

export const DEFAULT_MAX_WEBHOOK_URLS = 1_000;
export const WEBHOOK_URL_WINDOW_MS = 60 * 60_000;
const MAX_PRINCIPALS = 10_000;

export interface AdmissionOptions {
  /** Accept http:// and local addresses, and leave names that do not resolve to the delivery (local testing only). */
  allowPrivate: boolean;
  /** The policy registrations are checked with (strict: public addresses only; local testing: LocalTestingPolicy). */
  policy: AddressPolicy;
  /** Fault webhook-url-not-checked: the host is never checked against the policy. */
  skipAddressCheck?: boolean;
  /** Fault webhook-http-accepted: plain http is admitted to any host. */
  httpAnywhere?: boolean;
  /** Distinct URLs one principal may register per window. */
  maxUrls: number;
  windowMs?: number;
  now?: () => number;
}

export class WebhookAdmission {
  /** principal → url → last registered (ms). */
  private readonly seen = new Map<string, Map<string, number>>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly o: AdmissionOptions) {
    if (!Number.isInteger(o.maxUrls) || o.maxUrls < 1) throw new RangeError(`maxUrls must be a positive integer, got ${o.maxUrls}`);
    this.windowMs = o.windowMs ?? WEBHOOK_URL_WINDOW_MS;
    this.now = o.now ?? Date.now;
  }

  /**
   * Throws INVALID_REQUEST naming `<field>.url` when the registration's URL is refused. A value
   * without a usable URL is left to the registration parser (it names the problem).
   */
  async admit(value: unknown, field: string, principal: string): Promise<void> {
    if (!isPlainObject(value) || typeof value.url !== 'string' || !URL.canParse(value.url)) return;
    const url = new URL(value.url);
    if (url.protocol !== 'https:' && !this.o.httpAnywhere && !(this.o.allowPrivate && (await this.isLocal(url.hostname))))
      throw invalidRequest(
        `${field}.url`,
        this.o.allowPrivate
          ? 'must be an https URL (digest 5.9: webhook URLs are HTTPS only; this seller runs for local testing and admits plain http only to loopback and private networks)'
          : 'must be an https URL (digest 5.9: webhook URLs are HTTPS only)',
      );
    if (!this.o.skipAddressCheck) {
      try {
        await this.o.policy.resolve(url.hostname);
      } catch (err) {
        // Local testing: a name this machine cannot resolve is left to the delivery (which is pinned through the same policy).
        if (!this.o.allowPrivate || findAddressRefusal(err)) {
          throw invalidRequest(
            `${field}.url`,
            this.o.allowPrivate
              ? 'the host must not be a link-local, cloud metadata or other reserved address (digest 5.9; this seller runs for local testing and admits loopback and private networks only)'
              : 'the host must resolve to public addresses only (digest 5.9: no loopback, private, link-local, multicast or other reserved address)',
          );
        }
      }
    }
    this.count(principal, url.href, field);
  }

  /** Does the host resolve, through the policy, to loopback or private addresses only (a receiver under local test)? */
  private async isLocal(host: string): Promise<boolean> {
    try {
      const addresses = await this.o.policy.resolve(host);
      return addresses.length > 0 && addresses.every((a) => classifyAddress(a.address).reserved);
    } catch {
      return false;
    }
  }

  private count(principal: string, url: string, field: string): void {
    const now = this.now();
    let urls = this.seen.get(principal);
    if (!urls) {
      urls = new Map();
      this.seen.set(principal, urls);
      while (this.seen.size > MAX_PRINCIPALS) this.seen.delete(this.seen.keys().next().value as string);
    }
    for (const [u, at] of urls) if (now - at >= this.windowMs) urls.delete(u);
    if (!urls.has(url) && urls.size >= this.o.maxUrls) {
      throw invalidRequest(
        `${field}.url`,
        `this seller accepts at most ${this.o.maxUrls} distinct webhook URLs per account within ${Math.round(this.windowMs / 60_000)} minutes; reuse a registered URL`,
      );
    }
    urls.delete(url);
    urls.set(url, now);
  }
}
