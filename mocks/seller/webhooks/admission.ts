/**
 * Which webhook URLs the seller accepts at registration time (digest 5.9), before it ever posts:
 * https only, and a host that resolves to public addresses only (the address policy of
 * harness/net; deliveries are then pinned to the checked addresses). `allowPrivate` is for local
 * testing (the built-in run and the tests post to loopback over http). Either way each principal
 * may register a bounded number of distinct URLs per rolling window, so an exposed seller cannot
 * be turned into a request cannon.
 *
 * Refusals never say what a host resolved to (the seller is no DNS oracle for its network).
 */
import type { AddressPolicy } from '../../../harness/net/address-policy.js';
import { invalidRequest } from '../domain/errors.js';
import { isPlainObject } from '../domain/task-def.js';

export const DEFAULT_MAX_WEBHOOK_URLS = 1_000;
export const WEBHOOK_URL_WINDOW_MS = 60 * 60_000;
const MAX_PRINCIPALS = 10_000;

export interface AdmissionOptions {
  /** Accept http:// and reserved addresses (local testing only). */
  allowPrivate: boolean;
  /** The policy registrations are checked with (denies private addresses). */
  policy: AddressPolicy;
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
    if (!this.o.allowPrivate) {
      if (url.protocol !== 'https:') throw invalidRequest(`${field}.url`, 'must be an https URL (digest 5.9: webhook URLs are HTTPS only)');
      try {
        await this.o.policy.resolve(url.hostname);
      } catch {
        throw invalidRequest(
          `${field}.url`,
          'the host must resolve to public addresses only (digest 5.9: no loopback, private, link-local, multicast or other reserved address)',
        );
      }
    }
    this.count(principal, url.href, field);
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
