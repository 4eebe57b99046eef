/**
 * Run-scoped resources shared by the checks of one run (a webhook receiver on loopback, a JWKS
 * server...): opened on first use, shared by every later user, closed when the run ends.
 */
import type { AddressPolicy } from '../net/address-policy.js';
import type { Redactor } from '../transport/redact.js';

export interface OpenedResource<T> {
  value: T;
  close(): Promise<void>;
}

export class RunResources {
  private readonly opened = new Map<string, Promise<OpenedResource<unknown>>>();

  private readonly ready = new Set<string>();

  /**
   * The resource named `key`, opening it once with `open`. Concurrent callers share one opening.
   * `idle` (the caller's CheckContext.idle): how a caller waits for an opening another check is
   * running. An opening that itself waits idle (a shared webhook flow) needs its waiters to lend
   * their concurrency slots too, or they could hold every slot while it waits for one back.
   */
  async get<T>(key: string, open: () => Promise<OpenedResource<T>>, idle?: <U>(wait: () => Promise<U>) => Promise<U>): Promise<T> {
    let p = this.opened.get(key) as Promise<OpenedResource<T>> | undefined;
    if (!p) {
      p = open();
      this.opened.set(key, p as Promise<OpenedResource<unknown>>);
      // A failed opening is not cached: the next user tries again.
      p.then(
        () => this.ready.add(key),
        () => this.opened.delete(key),
      );
      return (await p).value;
    }
    const pending = p;
    return (idle && !this.ready.has(key) ? await idle(() => pending) : await pending).value;
  }

  async closeAll(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    this.ready.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }
}

/** A buyer's webhook receiver under test (`run --receiver URL`; the webhook-receiver suite). */
export interface ReceiverTarget {
  url: string;
  /** Read-back hook (`--receiver-state URL`): `GET <stateUrl>?task_id=<id>` (suites/webhook-receiver/README.md). */
  stateUrl?: string;
  /** A second endpoint of the same receiver (`--receiver-alt URL`), to check dedup is shared across endpoints. */
  altUrl?: string;
  /** Per-sender dedup bound the receiver applies to the harness's flood sender (`--receiver-dedup-bound N`). */
  dedupBound?: number;
  /** Port of the harness's sender identity server, brand.json + JWKS (`--sender-port N`; default ephemeral). */
  senderPort?: number;
  /** The sender identity is already served at this brand.json URL (started with `startSenderIdentity`). */
  senderBrandUrl?: string;
  /**
   * An endpoint of the same receiver registered for legacy HMAC-SHA256 (`--receiver-hmac URL`), with
   * the shared secret it was given (`$PROTO_COMPLY_RECEIVER_HMAC_SECRET`; redacted from every output).
   */
  hmac?: { url: string; secret: string };
  /**
   * Endpoints of the receiver each registered for one of the harness's bootstrap sender agents
   * (`--receiver-bootstrap URL`, `{slot}` in it naming the agent; suites/webhook-receiver/README.md):
   * the agents are served on `port` with a certificate of the test CA kept in `caDir`.
   */
  bootstrap?: { url: string; port: number; caDir?: string };
  /** An endpoint registered for the legacy Bearer scheme (`--receiver-bearer URL`), with its credential (`$PROTO_COMPLY_RECEIVER_BEARER_TOKEN`; redacted). */
  bearer?: { url: string; secret: string };
}

/**
 * Facts checks publish for later checks of the same run and transport (engine/plugin.ts `facts`):
 * the account a seller accepts, the product to buy…
 */
export class FactStore {
  private readonly byTransport = new Map<string, Map<string, unknown>>();

  get(transport: string, name: string): unknown {
    return this.byTransport.get(transport)?.get(name);
  }

  publish(transport: string, name: string, value: unknown): void {
    let facts = this.byTransport.get(transport);
    if (!facts) this.byTransport.set(transport, (facts = new Map()));
    facts.set(name, structuredClone(value));
  }
}

/** Facts about the run that checks may read (beyond the agent profile). */
export interface RunFacts {
  /** The user's fixtures (`--fixtures FILE`): agent-specific setup values, interpreted by the suites that read them. */
  fixtures?: unknown;
  /** Extra arguments the user adds to every call of a task (`tasks:` in the fixtures); a check's own arguments win. */
  taskArgs?: Readonly<Record<string, Record<string, unknown>>>;
  /** A buyer's webhook receiver to certify (`run --receiver URL`). */
  receiverUrl?: string;
  /** The receiver with its options (set whenever `receiverUrl` is). */
  receiver?: ReceiverTarget;
  /** The seed of the run. */
  seed: string;
  /** The run's private-address policy (harness/core/net): connections a check opens itself go through it. */
  addressPolicy?: AddressPolicy;
  /**
   * The run's redactor: recorders a check opens itself (webhook receivers, probe clients) share it,
   * so the final pass over the result knows every secret they learnt, and no other run's.
   */
  redactor?: Redactor;
  /** The run's bearer token for the agent and the origins it may go to (a check calling agents a file names sends it nowhere else). */
  agentCredentials?: { token: string; origins: string[] };
}
