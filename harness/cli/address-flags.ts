/** `--deny-private` for the commands that talk to an agent (`run`, `fuzz`): the hosts the user named are checked before anything is sent. */
import { type AddressPolicy, AllowHostError, findAddressRefusal, parseAllowHosts } from '../core/net/address-policy.js';
import { type ConnectTo, ConnectToError, parseConnectToList } from '../core/net/connect-to.js';
import { UsageError } from './usage.js';

/** The `--allow-host` values, checked: a malformed one is a usage error of `command`. */
export function allowHostFlags(command: string, hosts: string[] | undefined): string[] {
  const list = hosts ?? [];
  try {
    parseAllowHosts(list);
  } catch (e) {
    if (e instanceof AllowHostError) throw new UsageError(`${command}: --allow-host: ${e.message}`);
    throw e;
  }
  return list;
}

/** The `--connect-to` values, parsed: a malformed one is a usage error of `command`. */
export function connectToFlags(command: string, specs: string[] | undefined): ConnectTo[] {
  try {
    return parseConnectToList(specs ?? []);
  } catch (e) {
    if (e instanceof ConnectToError) throw new UsageError(`${command}: --connect-to: ${e.message}`);
    throw e;
  }
}

/**
 * Under --deny-private, check every host the user named before anything is sent: a refused one
 * ends the run with exit 3 and one line. The policy keeps what it resolved for the run itself.
 */
export async function refusedHost(policy: AddressPolicy, urls: readonly string[]): Promise<string | undefined> {
  if (!policy.denyPrivate) return undefined;
  for (const url of urls) {
    try {
      await policy.checkUrl(url);
    } catch (e) {
      const refused = findAddressRefusal(e);
      // Anything else (a name that does not resolve) is the run's to report as unreachable.
      if (refused) return `${refused.message}; nothing was sent (pass --allow-host ${refused.address ?? refused.host} to allow it)`;
    }
  }
  return undefined;
}
