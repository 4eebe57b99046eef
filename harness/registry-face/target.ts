/**
 * What a run certifies on the registry face (`run --registry URL [--api-key K]`,
 * `--adagents URL`, `--brand URL`): a registry's REST API and the discovery files third parties
 * host. Checked here once, before anything is fetched.
 */
import { TransportConfigError, validateHttpUrl } from '../transport/index.js';

export interface RegistryTarget {
  /** The registry's base URL (`{base_url}` of interface spec 4.1). */
  url?: string;
  /** An organization API key for the protected operations (spec 5), sent to the registry's origin only. */
  apiKey?: string;
  /** A publisher's adagents.json (spec 2.2). */
  adagentsUrl?: string;
  /** A brand's brand.json (spec 2.3). */
  brandUrl?: string;
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
  if (t.adagentsUrl !== undefined) out.adagentsUrl = validateHttpUrl(t.adagentsUrl, 'adagents.json URL').href;
  if (t.brandUrl !== undefined) out.brandUrl = validateHttpUrl(t.brandUrl, 'brand.json URL').href;
  return out;
}
