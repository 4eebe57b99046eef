/**
 * What a run certifies on the registry face (`run --registry URL [--api-key K]`,
 * `--publisher DOMAIN|URL`, `--brand DOMAIN|URL`): a registry's REST API and the discovery files third parties
 * host. Checked here once, before anything is fetched.
 */
import { TransportConfigError, validateHttpUrl } from '../transport/index.js';

export interface RegistryTarget {
  /** The registry's base URL (`{base_url}` of interface spec 4.1). */
  url?: string;
  /** An organization API key for the protected operations (spec 5), sent to the registry's origin only. */
  apiKey?: string;
  /** A publisher's adagents.json (spec 2.2): a URL, or a domain / base URL (discoveryFileUrl). */
  adagentsUrl?: string;
  /** A brand's brand.json (spec 2.3): a URL, or a domain / base URL (discoveryFileUrl). */
  brandUrl?: string;
}

export type DiscoveryFile = 'adagents' | 'brand';

const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?$/i;

/**
 * Where a discovery file lives, from what the user gave (`--publisher` / `--brand`):
 * - a domain (`example.com`, an IDN too) → `https://<domain>/.well-known/<file>.json`;
 * - a URL whose path ends in `.json` → that file itself;
 * - any other URL → a base: `<url without trailing slash>/.well-known/<file>.json` (a test domain
 *   served under a path, as the mock registry does).
 */
export function discoveryFileUrl(value: string, file: DiscoveryFile): string {
  const what = file === 'adagents' ? 'publisher (adagents.json)' : 'brand (brand.json)';
  const wellKnown = `/.well-known/${file}.json`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[^/]*:\d+$/.test(value)) {
    const u = validateHttpUrl(value, `${what} URL`);
    if (u.search || u.hash) throw new TransportConfigError(`${what} URL ${JSON.stringify(value)} must carry no query or fragment`);
    if (/\.json$/i.test(u.pathname)) return u.href;
    u.pathname = `${u.pathname.replace(/\/+$/, '')}${wellKnown}`;
    return u.href;
  }
  let u: URL | undefined;
  try {
    u = new URL(`https://${value}`);
  } catch {
    u = undefined;
  }
  if (!u || !HOSTNAME.test(u.hostname) || /[/?#@\s\\]/.test(value))
    throw new TransportConfigError(`${what} ${JSON.stringify(value)} is neither a domain (example.com) nor an http(s) URL`);
  return `https://${u.hostname.replace(/\.$/, '')}${u.port ? `:${u.port}` : ''}${wellKnown}`;
}

/** The validated target, or undefined when the run has no registry face. */
export function registryTargetOf(t: RegistryTarget | undefined): RegistryTarget | undefined {
  if (!t || (t.url === undefined && t.adagentsUrl === undefined && t.brandUrl === undefined)) {
    if (t?.apiKey !== undefined) throw new TransportConfigError('an API key (--api-key) needs a registry URL (--registry)');
    return undefined;
  }
  if (t.apiKey !== undefined && t.url === undefined) throw new TransportConfigError('an API key (--api-key) needs a registry URL (--registry)');
  if (t.apiKey !== undefined && !/^[\x21-\x7e]{1,4096}$/.test(t.apiKey)) throw new TransportConfigError('the API key must be visible ASCII without spaces');
  const out: RegistryTarget = {};
  if (t.url !== undefined) out.url = validateHttpUrl(t.url, 'registry URL').href.replace(/\/+$/, '');
  if (t.apiKey !== undefined) out.apiKey = t.apiKey;
  if (t.adagentsUrl !== undefined) out.adagentsUrl = discoveryFileUrl(t.adagentsUrl, 'adagents');
  if (t.brandUrl !== undefined) out.brandUrl = discoveryFileUrl(t.brandUrl, 'brand');
  return out;
}
