/**
 * Fault profiles of the reference mock seller. Each fault breaks exactly one rule of the spec,
 * so the project can prove that the check(s) named in `targets` detect the violation (and that
 * no other check fails). A fault is applied by a small `faults.has('<name>')` switch at exactly
 * the place where the mock implements the rule; there is no parallel fake code path.
 *
 * Later issues add their own faults (signature verification, webhook emission) from their own
 * files by calling `registerFault` at import time; `startMockSeller` validates names against
 * this one registry.
 */

export interface FaultDef {
  /** Kebab-case name used with `--fault`. */
  readonly name: string;
  /** One line: the rule the fault breaks, with its spec reference. */
  readonly rule: string;
  /** Check id(s) that detect the violation: each must fail when the fault is active. */
  readonly targets: readonly string[];
  /**
   * Checks that also fail (or become not_testable) because a step they rely on exercises the
   * broken behaviour as a prerequisite. They are not detections of the fault; a mutation run
   * expects the failing set to be exactly `targets` plus `collateral`.
   */
  readonly collateral?: readonly string[];
  /** Transports on which the targets fail (default both), e.g. MCP only for an MCP wire rule. */
  readonly transports?: readonly ('mcp' | 'a2a')[];
  /**
   * The fault makes the transport unusable for the harness beyond its targets (a server that
   * drops every session): any check on those transports may fail; the others must stay clean.
   */
  readonly breaksTransport?: boolean;
  /**
   * Fault matrices judge the faults of one group together, to run fewer full certifications: one
   * run of every suite with all of them active (each one's targets fail, nothing outside their
   * targets and collateral may fail), and one run per fault of the checks the group names plus
   * those the shared run did not judge on their own (blocked through the group's checks, or not
   * applicable): its targets must fail there, nothing else. For faults that act on disjoint probes
   * (not with `production`, `target` or `breaksTransport`); a fault without a group is judged
   * alone against every suite (suites/testing/mock-run.ts runFaultMatrix). Each member reruns
   * every check its group names, so a big group costs more than it saves: the groups hold a dozen
   * or so faults of one theme (seller-state, seller-idempotency, seller-controller, seller-tasks…).
   */
  readonly matrixGroup?: string;
  /**
   * The broken rule binds production deployments only: the fault is judged against the mock with
   * its sandbox test controller switched off (a seller presenting as production), on the targets'
   * checks alone.
   */
  readonly production?: boolean;
  /**
   * The broken rule shows only at an agent URL without a port (digest 1.6 step 4's default port):
   * the fault is judged against the mock named `http://seller.test` and reached through
   * `--connect-to` (suites/testing/mock-run.ts certifyMock `portless`), on the targets' checks alone.
   */
  readonly portless?: boolean;
  /**
   * The certifier's values (`--fixtures`) of the runs judging the fault: with them the target is
   * judged where, without, it would be a coverage gap (a destination the seller takes).
   */
  readonly fixtures?: Readonly<Record<string, unknown>>;
  /**
   * The broken rule belongs to this protocol line only: the fault is judged by a run at this
   * compliance target, against the mock speaking that line (not in a matrix group).
   */
  readonly target?: '3.0' | '3.1' | '3.2';
  /**
   * The broken rule is judged by a storyboard validation, not a built-in check: `targets` are
   * check ids of the storyboard bundle at this repository path, and the fault is proven by that
   * bundle's own test; the built-in fault matrices leave it out.
   */
  readonly storyboard?: string;
}

const FAULT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const registry = new Map<string, FaultDef>();

/** Adds a fault to the registry. Re-registering the identical definition is a no-op. */
export function registerFault(def: FaultDef): void {
  if (!FAULT_NAME.test(def.name)) throw new Error(`invalid fault name ${JSON.stringify(def.name)}: use kebab-case`);
  if (!def.rule.trim()) throw new Error(`fault ${def.name}: rule text is empty`);
  if (def.targets.length === 0) throw new Error(`fault ${def.name}: at least one target check id is required`);
  const frozen: FaultDef = Object.freeze({
    name: def.name,
    rule: def.rule,
    targets: Object.freeze([...def.targets]),
    ...(def.collateral?.length ? { collateral: Object.freeze([...def.collateral]) } : {}),
    ...(def.transports?.length ? { transports: Object.freeze([...def.transports]) } : {}),
    ...(def.breaksTransport ? { breaksTransport: true } : {}),
    ...(def.matrixGroup ? { matrixGroup: def.matrixGroup } : {}),
    ...(def.production ? { production: true } : {}),
    ...(def.portless ? { portless: true } : {}),
    ...(def.fixtures ? { fixtures: def.fixtures } : {}),
    ...(def.target ? { target: def.target } : {}),
    ...(def.storyboard ? { storyboard: def.storyboard } : {}),
  });
  const existing = registry.get(def.name);
  if (existing) {
    if (JSON.stringify(existing) !== JSON.stringify(frozen)) throw new Error(`fault ${def.name} is already registered with a different definition`);
    return;
  }
  registry.set(def.name, frozen);
}

/** Every registered fault, sorted by name. */
export function listFaults(): FaultDef[] {
  return [...registry.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function getFault(name: string): FaultDef | undefined {
  return registry.get(name);
}

export class UnknownFaultError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
        `valid faults: ${listFaults()
          .map((f) => f.name)
          .join(', ')}`,
    );
    this.name = 'UnknownFaultError';
  }
}

/** The active faults of one running seller. */
export class FaultSet {
  private readonly active: ReadonlySet<string>;

  constructor(names: Iterable<string> = []) {
    const list = [...names];
    const unknown = list.filter((n) => !registry.has(n));
    if (unknown.length > 0) throw new UnknownFaultError(unknown);
    this.active = new Set(list);
  }

  /** True when the fault is active. Asking about an unregistered name is a programming error. */
  has(name: string): boolean {
    if (!registry.has(name)) throw new Error(`fault ${JSON.stringify(name)} is not registered (typo?)`);
    return this.active.has(name);
  }

  names(): string[] {
    return [...this.active].sort();
  }

  get size(): number {
    return this.active.size;
  }
}

const BUILTIN: FaultDef[] = [
  // Errors and transport (interface spec 7, 4.2).
  {
    name: 'unknown-tool-wrong-code',
    rule: 'an unknown tool must yield INVALID_REQUEST naming the tool (interface spec 7); answers NOT_FOUND',
    targets: ['errors.unknown-task.invalid-request'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'error-without-is-error',
    rule: 'the unknown-tool error must be flagged isError: true (A2A: task state failed) (interface spec 7); the error object comes back as an ordinary result',
    targets: ['errors.unknown-task.invalid-request'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'error-text-not-json',
    rule: 'MCP error content[0].text must hold a JSON {code, message} (interface spec 7); it is prose',
    targets: ['errors.error-text.json'],
    transports: ['mcp'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'unknown-tool-unnamed',
    rule: 'the unknown-tool error message names the tool (interface spec 7); it says only "unknown tool"',
    targets: ['errors.unknown-task.names-tool'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'push-config-crashes-sync-task',
    rule: 'a sync-only task given a push_notification_config answers or refuses with a well-formed error (interface spec 7); a read crashes on it (a protocol-level internal error)',
    targets: ['errors.push-config.sync-task'],
    // Over A2A the SDK turns the crash into a failed task without a data part: no get_products response to validate.
    collateral: ['schemas.response.get_products'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'a2a-declaration-differs',
    rule: 'the same tasks and schemas run on MCP and A2A (interface spec 1); the capability answer over A2A leaves governance out of supported_protocols',
    targets: ['capabilities.transports.same-declaration'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'controller-not-listed',
    rule: 'a declared test controller is listed as comply_test_controller (interface spec 4.3); it is callable but missing from tools/list and the agent card',
    targets: ['capabilities.tasks.listed'],
    // The check judges MCP's tools/list only: A2A skills[] need not list every task.
    transports: ['mcp'],
    // Alone: an unlisted controller takes the controller checks of the other faults out of a shared run.
  },
  {
    name: 'sandbox-flag-string',
    rule: 'sandbox is a boolean (interface spec 2.5); every reply carries the string "true"',
    // Every task's response schema types sandbox as well (fixtures/schemas/task-common.json).
    targets: [
      'schemas.sandbox.boolean',
      'schemas.response.capabilities',
      'schemas.response.get_products',
      'schemas.response.create_media_buy',
      'schemas.response.update_media_buy',
      'schemas.response.get_media_buys',
      'schemas.response.get_media_buy_delivery',
      'schemas.response.list_creative_formats',
      'schemas.response.list_accounts',
      'schemas.response.get_signals',
      'schemas.response.get_brand_identity',
      // The replies of the mutating tasks the records, signals and creative suites make.
      'schemas.response.mutations',
      // The brand suite holds get_brand_identity to its response schema too.
      'brand.identity.answers',
    ],
    matrixGroup: 'seller-c',
  },
  {
    name: 'conflict-retry-after-zero',
    rule: 'retry_after is an integer of 1-3600 seconds (digest 3.6); IDEMPOTENCY_CONFLICT carries retry_after: 0',
    // Conflicts happen on create_media_buy, update_media_buy and (same key, other task) on sync_audiences; the conflict shape check sees the extra member.
    targets: ['schemas.response.mutations', 'schemas.response.create_media_buy', 'schemas.response.update_media_buy', 'idempotency.conflict.no-payload-leak'],
    // Alone: in a shared run (seller-b) no update conflict carried its retry_after.
  },
  {
    name: 'product-schema-invalid',
    rule: 'products must match the product shape (interface spec 2.5); an extra product lacks pricing_options and has a string forecast.impressions.min',
    targets: ['schemas.response.get_products'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'schema-url-refused',
    rule: 'a request may carry a $schema string naming its schema (interface spec 4.3, 9); a request carrying one is refused as INVALID_REQUEST',
    targets: ['schemas.request.schema-url-accepted'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'context-not-echoed',
    rule: 'the request context object must be echoed verbatim (interface spec 4.3); it is dropped',
    targets: ['schemas.context.echoed'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'session-per-call',
    rule: 'an MCP session serves many calls (interface spec 4.2, streamable HTTP); a session accepts one tools/call, then answers 404 as unknown',
    targets: ['capabilities.mcp.session-reused'],
    transports: ['mcp'],
    breaksTransport: true,
  },
  {
    name: 'auth-not-enforced',
    rule: 'agent calls require the bearer token (interface spec 5); calls without or with a wrong bearer are answered normally',
    targets: ['errors.auth.missing-bearer', 'errors.auth.wrong-bearer'],
    matrixGroup: 'seller-d',
  },
  // Idempotency (interface spec 4.4, digest 3).
  {
    name: 'governance-origin-shared',
    rule: 'the governance key origin differs from the request- and webhook-signing key origins (digest 1.11 step 7, at onboarding); identity.key_origins gives one origin for all three',
    targets: ['capabilities.identity.governance-origin-distinct'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'brand-url-undeclared',
    rule: 'an agent declaring a signing posture gives identity.brand_json_url (digest 1.11 step 2, 3.1 and later); the seller declares webhook_signing.supported without it',
    targets: ['capabilities.identity.brand-url-declared'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'idempotency-not-declared',
    rule: 'capabilities must declare <token>.idempotency (digest 3.5, interface spec 4.3); the block is missing',
    targets: ['idempotency.capability.declared', 'capabilities.idempotency.shape', 'schemas.response.capabilities'],
    // Alone: without the declaration, the idempotency targets of the faults sharing its run were not failed (seller-d).
  },
  {
    name: 'replay-not-flagged',
    rule: 'a replay must carry replayed: true (interface spec 4.4 rule 2, digest 3.2 rule 4); the flag is missing',
    targets: [
      'idempotency.replay.flagged',
      'idempotency.replay.context-excluded',
      'signals.idempotency.replay',
      ...['accounts', 'audiences', 'catalogs', 'events', 'feedback'].map((r) => `records.${r}.replay`),
      'idempotency.update.replay',
      'creative.idempotency.build-replay',
      'creative.idempotency.sync-replay',
      'idempotency.read.replay',
      'idempotency.hash.canonical',
      'idempotency.hash.governance-context-excluded',
      'idempotency.hash.push-credentials-excluded',
    ],
    matrixGroup: 'seller-a',
  },
  {
    name: 'replay-creates-second-buy',
    rule: 'a replay creates nothing new (interface spec 4.4 rule 2); it re-executes and creates a second buy (the reply is still the flagged snapshot)',
    targets: ['idempotency.replay.no-second-resource', 'idempotency.concurrent.single-resource'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'replay-body-differs',
    rule: 'a replay returns the stored create-time response (digest 3.2 rule 2); it returns the current state of the resource',
    targets: ['idempotency.replay.identical-body'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'context-in-hash',
    rule: 'context is excluded from the payload hash (digest 3.3); it is hashed, so a replay with another context conflicts',
    targets: ['idempotency.replay.context-excluded'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'conflict-answered-with-replay',
    rule: 'same key with a different payload must be IDEMPOTENCY_CONFLICT (interface spec 4.4 rule 3); on the same task the cached response is replayed',
    targets: [
      'idempotency.conflict.changed-payload',
      'signals.idempotency.conflict',
      ...['accounts', 'audiences', 'catalogs', 'events', 'feedback'].map((r) => `records.${r}.conflict`),
      'idempotency.update.conflict',
      'creative.idempotency.build-conflict',
      'creative.idempotency.sync-conflict',
      'idempotency.hash.ext-hashed',
      'idempotency.hash.null-differs',
      'idempotency.hash.push-url',
    ],
    collateral: ['idempotency.conflict.no-payload-leak'],
    // Alone: on a loaded machine its concurrent-conflict probe can serialize into a replay (A2A), which in a group would fail every fault of the group.
  },
  {
    name: 'conflict-leaks-payload',
    rule: 'IDEMPOTENCY_CONFLICT carries only code, message, recovery (digest 3.6); it carries the cached payload and a diff',
    targets: ['idempotency.conflict.no-payload-leak'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'key-not-task-scoped',
    rule: 'the same key on another task is a conflict (digest 3.1); it is executed normally',
    targets: ['idempotency.conflict.other-task'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'validation-error-cached',
    rule: 'a rejected request is never cached (digest 3.2 rules 1 and 3); the rejection is stored under its key, so the corrected request conflicts',
    // a refusal in handling (an unknown product) is kept under its key too
    targets: ['idempotency.errors.not-cached', 'idempotency.errors.failed-first-released'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'rate-limited-cached',
    rule: 'a RATE_LIMITED refusal is never cached (digest 3.2 rules 3 and 8); with the insert rate limit on, the refusal is stored under its key, so the same key retried after retry_after gets the cached RATE_LIMITED',
    targets: ['storyboard.idempotency.rate_limit_replay_invariant.expect_rate_limit_not_replayed'],
    storyboard: 'harness/core/storyboards/testing/rate-limit-bundle.ts',
  },
  {
    name: 'missing-key-accepted',
    rule: 'a mutating request without idempotency_key is INVALID_REQUEST (digest 3.2 rule 1); it is executed',
    targets: [
      'idempotency.key.missing-rejected',
      'signals.idempotency.missing-key',
      ...['accounts', 'audiences', 'catalogs', 'events', 'feedback'].map((r) => `records.${r}.missing-key`),
      'idempotency.update.missing-key',
      'creative.idempotency.build-missing-key',
      'creative.idempotency.sync-missing-key',
    ],
    matrixGroup: 'seller-b',
  },
  {
    name: 'malformed-key-accepted',
    rule: 'an idempotency_key not matching ^[A-Za-z0-9_.:-]{16,255}$ is INVALID_REQUEST (digest 3.1); it is accepted',
    targets: ['idempotency.key.malformed-rejected'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'expired-key-reexecuted',
    rule: 'a key older than replay_ttl_seconds is IDEMPOTENCY_EXPIRED (interface spec 4.4 rule 4); it is re-executed',
    targets: ['idempotency.expiry.expired-key'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'cache-ignores-account',
    rule: 'the replay cache is scoped per (principal, account) (digest 3.1); the account is left out of the scope',
    targets: ['idempotency.scope.per-account'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'concurrent-double-create',
    rule: 'concurrent same-key requests create one resource (digest 3.4); there is no in-flight claim, so each creates a buy',
    // two payloads under one key at once: both executed
    targets: ['idempotency.concurrent.single-resource', 'idempotency.concurrent.changed-payload-conflict'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'in-flight-unavailable',
    rule: 'a request arriving while the same key is in flight waits and replays or gets IDEMPOTENCY_IN_FLIGHT (digest 3.4 rule 9, from 3.1); it is refused SERVICE_UNAVAILABLE',
    targets: ['idempotency.concurrent.in-flight-answer'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'read-rejects-idempotency-key',
    rule: 'reads accept an idempotency_key and apply replay semantics (digest 3.1, 3.7); they answer INVALID_REQUEST',
    targets: ['idempotency.read.key-accepted'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'read-key-ignored',
    rule: 'a read carrying an idempotency_key gets replay semantics (digest 3.1); the keyed read runs afresh every time, never replayed',
    targets: ['idempotency.read.replay'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'low-entropy-key-accepted',
    rule: 'sellers SHOULD refuse low-entropy keys with INVALID_REQUEST (digest 3.1); a well-formed key of one repeated character is taken',
    targets: ['idempotency.key.low-entropy-rejected'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'key-refusal-transient',
    rule: 'INVALID_REQUEST is correctable (digest 3.6 recovery classes); the refusal of a malformed idempotency_key says recovery transient',
    targets: ['idempotency.key.refusal-recovery'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'expired-recovery-terminal',
    rule: 'IDEMPOTENCY_EXPIRED is correctable (digest 3.6 recovery classes); it says recovery terminal',
    targets: ['idempotency.expiry.recovery'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'async-replay-current-state',
    rule: "an asynchronous create's replay returns the original submitted answer with its task_id, even after the task ended (digest 3.2 rule 2); it answers the task's completed result",
    targets: ['idempotency.replay.async-submitted'],
    // the replay the webhook check sends must be a replay first
    collateral: ['webhooks.task.replay-silent'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'hash-not-canonical',
    rule: 'payloads compare by SHA-256 of their RFC 8785 canonical JSON (digest 3.3); the hash is over the members in the order sent, so a reordered replay conflicts',
    targets: ['idempotency.hash.canonical'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'governance-context-in-hash',
    rule: 'governance_context is left out of the payload hash (digest 3.3); it is hashed, so a replay with another governance_context conflicts',
    targets: ['idempotency.hash.governance-context-excluded'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'push-credentials-in-hash',
    rule: 'the push credential value is left out of the payload hash (digest 3.3); it is hashed, so a replay with a rotated credential conflicts',
    targets: ['idempotency.hash.push-credentials-excluded'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'ext-not-hashed',
    rule: 'everything but the closed exclusion list is hashed, ext included (digest 3.3); ext is left out, so a changed ext under one key is replayed',
    // signals.idempotency.conflict changes only ext under its key
    targets: ['idempotency.hash.ext-hashed', 'signals.idempotency.conflict'],
    collateral: ['idempotency.hash.null-differs'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'null-members-dropped-in-hash',
    rule: 'a missing member differs from an explicit null (digest 3.3); nulls are dropped before hashing, so a payload adding a null member is replayed',
    targets: ['idempotency.hash.null-differs'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'push-url-not-hashed',
    rule: 'a changed push_notification_config.url under one key is a conflict (digest 3.3); the URL is left out of the hash, so it is replayed',
    targets: ['idempotency.hash.push-url'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'in-flight-conflict-answered-in-flight',
    rule: 'another payload while the first is in flight is IDEMPOTENCY_CONFLICT at once (digest 3.4); it is answered IDEMPOTENCY_IN_FLIGHT (a slow handler keeps the first in flight)',
    targets: ['idempotency.concurrent.changed-payload-conflict'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'failed-first-pins-key',
    rule: 'a first request that fails releases its row, so the key is "never seen" again (digest 3.4); the failed request stays in flight under its key, so the corrected retry conflicts',
    targets: ['idempotency.errors.failed-first-released'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'conflict-wrong-code',
    rule: 'same key with a different payload is IDEMPOTENCY_CONFLICT (interface spec 4.4 rule 3); a code of its own, IDEMPOTENCY_KEY_REUSED, is answered (also judged by the passive audit of `proto-comply proxy`, harness/proxy/proxy.test.ts)',
    targets: [
      'idempotency.conflict.changed-payload',
      'idempotency.conflict.other-task',
      'signals.idempotency.conflict',
      ...['accounts', 'audiences', 'catalogs', 'events', 'feedback'].map((r) => `records.${r}.conflict`),
      'idempotency.update.conflict',
      'creative.idempotency.build-conflict',
      'creative.idempotency.sync-conflict',
    ],
    // the checks that see a refusal and leave its code to idempotency.conflict.changed-payload are blocked by it
    collateral: [
      'idempotency.conflict.no-payload-leak',
      'idempotency.hash.ext-hashed',
      'idempotency.hash.null-differs',
      'idempotency.hash.push-url',
      'idempotency.concurrent.changed-payload-conflict',
    ],
    matrixGroup: 'seller-idempotency',
  },
  // Media-buy state machine (interface spec 2.4a, 3.1; digest 4).
  {
    name: 'initial-revision-zero',
    rule: 'revision starts at 1 on creation (interface spec 2.4a); create answers revision 0',
    targets: ['state-machine.create.initial-state', 'schemas.response.create_media_buy', 'schemas.response.get_media_buys'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'revision-not-incremented-on-pause',
    rule: 'revision increments on every mutating update (digest 4.5); a pause leaves it unchanged',
    targets: ['state-machine.revision.increments'],
    collateral: ['state-machine.revision.stale-conflict'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'revision-incremented-on-replay',
    rule: 'revision does not increment on replays (digest 4.5); a replayed update bumps the stored buy',
    targets: ['state-machine.revision.not-on-replay'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'asap-buy-unreadable',
    rule: 'create_media_buy takes start_time asap (interface spec 4.3) and get_media_buys reads a created buy back; the buggy seller echoes asap on the read, which its own response validation then refuses (VALIDATION_ERROR), as the @adcp/sdk 6.11 example sellers do',
    targets: ['state-machine.create.asap'],
  },
  {
    name: 'media-buys-never-listed',
    rule: 'get_media_buys answers the media buys (interface spec 4.3); the buggy seller answers an empty list whatever was created, as the @adcp/sdk hybrid example seller does',
    targets: ['state-machine.read.listed', 'state-machine.read.account', 'state-machine.create.asap'],
  },
  {
    name: 'account-listing-empty',
    rule: 'get_media_buys answers the media buys of the account (interface spec 4.3); read without media_buy_ids, the buggy seller lists none (a read by id still works)',
    targets: ['state-machine.read.account'],
  },
  {
    name: 'revision-incremented-on-read',
    rule: 'revision does not increment on reads (digest 4.5); each get_media_buys bumps it (seen on the next read)',
    targets: ['state-machine.revision.read-stable'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'creatives-assigned-stays-pending',
    rule: 'pending_creatives becomes pending_start once creatives are assigned (digest 4.2); a buy awaiting creatives stays pending_creatives after sync_creatives assigns one to its package',
    targets: ['state-machine.creatives.assigned-leaves-pending'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'terminal-keeps-creative-assignments',
    rule: 'rejection or cancellation releases creative assignments, which no longer appear on get_media_buys (digest 4.2); a canceled or rejected buy still lists its package creatives (creative_approvals)',
    targets: ['state-machine.creatives.released-on-cancel', 'state-machine.creatives.released-on-reject'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'revision-incremented-on-sync-assignment',
    rule: 'sync_creatives assignment changes leave revision unchanged (digest 4.5, 3.2); each assignment bumps the buy revision',
    targets: ['state-machine.revision.not-on-sync'],
    target: '3.2',
    matrixGroup: 'seller-3.2',
  },
  {
    name: 'revision-incremented-on-validation-only',
    rule: 'validation-only calls leave revision unchanged (digest 4.5; 3.1 specification, revision semantics); a sync_creatives dry_run with an assignment bumps the buy revision',
    targets: ['state-machine.revision.not-on-validation'],
    // Not with revision-incremented-on-read (seller-a): its reads' bumps block this check.
    matrixGroup: 'seller-b',
  },
  {
    name: 'valid-actions-stale-after-pause',
    rule: 'valid_actions match the state (digest 4.3); a paused buy still lists pause and not resume',
    targets: ['state-machine.valid-actions.match-state'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'available-actions-mode-missing',
    rule: 'each available_actions[] entry carries a mode: self_serve, conditional_self_serve or requires_approval (digest 4.3); no entry has one',
    targets: ['schemas.response.create_media_buy', 'schemas.response.update_media_buy', 'schemas.response.get_media_buys'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'pause-ignored',
    rule: 'paused: true moves an active buy to paused (digest 4.2); success is answered but the buy stays active',
    targets: ['state-machine.walk.pause'],
    collateral: [
      'state-machine.walk.resume',
      'state-machine.revision.increments',
      'state-machine.revision.not-on-replay',
      'state-machine.revision.stale-conflict',
      'state-machine.valid-actions.match-state',
      // its replay-after-a-change probe needs the pause to change the buy: blocked by walk.pause
      'idempotency.replay.identical-body',
    ],
    matrixGroup: 'seller-b',
  },
  {
    name: 'resume-ignored',
    rule: 'paused: false moves a paused buy back to active (digest 4.2); success is answered but the buy stays paused',
    targets: ['state-machine.walk.resume'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'cancellation-without-canceled-by',
    rule: 'a cancellation carries {canceled_at, canceled_by} (digest 4.2); a buyer cancel records no canceled_by',
    targets: ['state-machine.walk.cancel'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'completed-read-as-active',
    rule: 'a completed buy reads as completed, a terminal state (digest 4.2); get_media_buys shows it as active',
    targets: ['state-machine.controller.complete'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'resume-canceled-accepted',
    rule: 'resuming a canceled buy is INVALID_STATE (digest 4.4); it answers success',
    targets: ['state-machine.terminal.resume-rejected'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'pause-terminal-accepted',
    rule: 'pausing a terminal buy is INVALID_STATE (digest 4.4); it answers success',
    targets: ['state-machine.terminal.pause-rejected'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'update-terminal-accepted',
    rule: 'any update to a terminal buy is INVALID_STATE (digest 4.4); a budget update is applied',
    targets: ['state-machine.terminal.update-rejected'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'cancel-canceled-accepted',
    rule: 'canceling a canceled buy is NOT_CANCELLABLE (digest 4.4); it answers success',
    targets: ['state-machine.cancel.twice-not-cancellable'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'second-cancel-invalid-state',
    rule: 'canceling a canceled buy is NOT_CANCELLABLE, which takes precedence (digest 4.4); it answers INVALID_STATE',
    targets: ['state-machine.cancel.twice-not-cancellable'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'stale-revision-accepted',
    rule: 'a stale revision in update_media_buy is CONFLICT (digest 4.4, 4.5); it is applied',
    targets: ['state-machine.revision.stale-conflict'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'unknown-buy-accepted',
    rule: 'an update of a media buy the seller never made is refused (digest 4.4 MEDIA_BUY_NOT_FOUND); it answers success as if it had paused one',
    targets: ['state-machine.not-found.media-buy'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'unknown-package-ignored',
    rule: 'an update naming a package the buy does not have is refused (digest 4.4 PACKAGE_NOT_FOUND); the unknown package is dropped and the update succeeds',
    targets: ['state-machine.not-found.package'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'unknown-buy-wrong-code',
    rule: 'an unknown media buy is MEDIA_BUY_NOT_FOUND (digest 4.4, a SHOULD of the not-found precedence); it answers INVALID_REQUEST',
    targets: ['state-machine.not-found.media-buy-code'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'unknown-package-wrong-code',
    rule: 'an unknown package is PACKAGE_NOT_FOUND (digest 4.4, a SHOULD of the not-found precedence); it answers INVALID_REQUEST',
    targets: ['state-machine.not-found.package-code'],
    matrixGroup: 'seller-b',
  },
  {
    name: 'create-paused-ignored',
    rule: 'a create with paused: true and nothing else blocking starts paused (digest 4.2); the buy starts active',
    targets: ['state-machine.create.paused'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'uncancel-accepted',
    rule: 'canceled is const true and nothing un-cancels (digest 4.2); canceled: false brings a canceled buy back to active',
    targets: ['state-machine.cancel.no-uncancel'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'cancel-applies-other-fields',
    rule: 'a root canceled: true overrides the other fields of the update (digest 4.2); the package budget sent with it is applied',
    targets: ['state-machine.cancel.overrides-other-fields'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'cancel-completed-accepted',
    rule: 'canceling a completed buy is INVALID_STATE (digest 4.4); it is canceled',
    targets: ['state-machine.cancel.completed-invalid-state'],
    // Not with completed-read-as-active (seller group): its read-back is this check's precondition.
    matrixGroup: 'kinds-a',
  },
  {
    name: 'cancel-rejected-not-cancellable',
    rule: 'canceling a rejected buy is INVALID_STATE (digest 4.4; NOT_CANCELLABLE is for an already canceled buy); it answers NOT_CANCELLABLE',
    targets: ['state-machine.cancel.rejected-invalid-state'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'package-pause-applies-to-all',
    rule: 'packages pause independently (digest 4.2); pausing one package pauses every package of the buy',
    targets: ['state-machine.packages.pause-independent'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'package-cancel-cancels-buy',
    rule: 'packages cancel independently (digest 4.2); canceling one package cancels the whole buy',
    targets: ['state-machine.packages.cancel-independent'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'action-not-allowed-without-details',
    rule: 'ACTION_NOT_ALLOWED carries error.details {attempted_action, reason, currently_available_actions} (digest 4.4); it carries no details',
    targets: ['state-machine.action-not-allowed.details'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'confirmed-at-moves-on-update',
    rule: 'confirmed_at is set exactly once (digest 4.5); every update moves it a second later',
    targets: ['state-machine.confirmed-at.stable'],
    matrixGroup: 'seller-state',
  },
  // Setup (interface spec 2.5a, 4.3).
  {
    name: 'accounts-all-refused',
    rule: 'the seller accepts an account reference for the buyer: a new natural key, or one it lists or creates (interface spec 2.5a); get_products refuses every account',
    targets: ['setup.account.usable'],
  },
  {
    name: 'pricing-options-unnamed',
    rule: 'get_products offers a product with a pricing option that can be bought (interface spec 2.5, 4.3); pricing options carry no pricing_option_id',
    // The product schema requires the id as well.
    targets: ['setup.products.offered', 'schemas.response.get_products'],
  },
  {
    name: 'create-unavailable',
    rule: 'create_media_buy accepts a buy of an offered product (interface spec 4.3); it always answers SERVICE_UNAVAILABLE',
    targets: ['setup.media-buy.created'],
    // Everything that needs a create is blocked by setup.media-buy.created, except checks whose
    // create is itself the probe of another rule: a signed create (the replay probe), a create
    // registering a legacy HMAC webhook, one whose Bearer registration must be refused, one on an
    // account the controller suspended or put in arrears (the gate's code is the probe).
    collateral: [
      'signatures.replay.replayed-nonce',
      'webhooks.auth.hmac',
      'webhooks.auth.bearer-refused',
      'records.accounts.suspended-gate',
      'records.accounts.payment-gate',
    ],
  },
  // Test controller (digest 4.6).
  {
    name: 'get-products-unavailable',
    rule: 'get_products answers a brief with products (interface spec 4.3); every call answers SERVICE_UNAVAILABLE "Account resolution failed", as a real seller did. The account check fails first and every check that needs an account or a product is blocked by it (the cascade), never failed one by one',
    targets: ['setup.account.usable'],
  },
  {
    name: 'list-scenarios-incomplete',
    rule: 'list_scenarios answers the exact scenario names the controller supports (digest 4.6); it leaves out force_media_buy_status, which the capabilities declare',
    targets: ['setup.controller.scenarios'],
  },
  {
    name: 'controller-rejects-active',
    rule: 'the controller forces rejected only from pending_* (digest 4.6); rejected from active is accepted',
    targets: ['state-machine.controller.reject-only-pending'],
    matrixGroup: 'seller-d',
  },
  {
    name: 'controller-leaves-terminal',
    rule: 'the controller cannot move a buy out of a terminal state (digest 4.6); active from completed is accepted',
    targets: ['state-machine.controller.terminal-exit-refused'],
    matrixGroup: 'seller-c',
  },
  {
    name: 'controller-start-ignored',
    rule: 'pending_start moves to active at start of flight (interface spec 3.1); the forced move reports success but the buy stays pending_start',
    targets: ['state-machine.controller.start-of-flight'],
    matrixGroup: 'seller-a',
  },
  {
    name: 'force-same-state-refused',
    rule: 'force_* calls are idempotent: forcing the current state answers previous_state == current_state (digest 4.6); it answers INVALID_TRANSITION',
    targets: ['state-machine.controller.force-same-state'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'unknown-scenario-schema-error',
    rule: 'an unknown scenario is UNKNOWN_SCENARIO, never a schema rejection (digest 4.6); it is a task error INVALID_REQUEST on the scenario field',
    targets: ['controller.scenario.unknown'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'reseed-identical-refused',
    rule: 'an identical re-seed answers previous_state existing (digest 4.6); it answers INVALID_PARAMS',
    targets: ['controller.seed.identical-existing'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'reseed-different-accepted',
    rule: 'a re-seed with a different fixture is INVALID_PARAMS (digest 4.6); the new fixture replaces the old one',
    targets: ['controller.seed.different-refused'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'account-status-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists force_account_status and answers it INVALID_PARAMS',
    targets: ['controller.params.force-account-status'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'creative-status-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists force_creative_status and answers it INVALID_PARAMS',
    targets: ['controller.params.force-creative-status'],
    // The creative.status_changed subscription check forces a creative's status in its setup.
    collateral: ['webhooks.subscription.event-schema'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'budget-spend-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists simulate_budget_spend and answers it INVALID_PARAMS',
    targets: ['controller.params.simulate-budget-spend'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'creative-purge-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists force_creative_purge and answers it INVALID_PARAMS',
    targets: ['controller.params.force-creative-purge'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'session-status-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists force_session_status and answers it INVALID_PARAMS',
    targets: ['controller.params.force-session-status'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'provenance-audit-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6); the controller lists query_provenance_audit_observations and answers it INVALID_PARAMS',
    targets: ['controller.params.query-provenance-audit'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'products-arm-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6, 3.1+); the controller lists force_get_products_arm and answers it INVALID_PARAMS',
    targets: ['controller.params.force-get-products-arm'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'signals-arm-params-refused',
    rule: 'a listed scenario takes the parameters it is given (digest 4.6, 3.1+); the controller lists force_get_signals_arm and answers it INVALID_PARAMS',
    targets: ['controller.params.force-get-signals-arm'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'upstream-traffic-params-refused',
    rule: 'query_upstream_traffic takes its optional filters (digest 4.6, 3.1+); the controller lists it and answers INVALID_PARAMS',
    targets: ['controller.params.query-upstream-traffic'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'non-sandbox-params-served',
    rule: 'the controller answers FORBIDDEN when params name a non-sandbox account (digest 4.6); it forces the status of an account synced without sandbox',
    targets: ['records.accounts.non-sandbox-forbidden'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'non-sandbox-account-served',
    rule: "the seller checks its own records that the call's account is a sandbox one (digest 4.6); a non-sandbox account_id is served",
    targets: ['records.accounts.non-sandbox-controller-refused'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'account-suspended-books',
    rule: 'ACCOUNT_SUSPENDED gates operations on a suspended account (digest 4.4); a create on one is booked',
    targets: ['records.accounts.suspended-gate'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'account-payment-due-books',
    rule: 'ACCOUNT_PAYMENT_REQUIRED gates operations on an account with payment due (digest 4.4); a create on one is booked',
    targets: ['records.accounts.payment-gate'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'completion-replay-refused',
    rule: 'an identical force_task_completion replay is a no-op (digest 4.6, 3.2); it answers INVALID_TRANSITION',
    targets: ['controller.task-completion.identical-replay'],
    target: '3.2',
    matrixGroup: 'seller-3.2',
  },
  {
    name: 'completion-different-result-accepted',
    rule: 'another result for a completed task is INVALID_TRANSITION (digest 4.6); it replaces the result',
    targets: ['controller.task-completion.different-result'],
    matrixGroup: 'seller-controller',
  },
  {
    name: 'controller-served-in-production',
    rule: 'on production the test controller is absent and calling it is the unknown-tool error (digest 4.6); the production deployment serves it, unlisted',
    targets: ['controller.production.not-served'],
    production: true,
  },
  // Buyer records on a media-buy seller (interface spec 4.3, 2.6, 7).
  {
    name: 'sync-accounts-status-invented',
    rule: 'an account status is one of the documented lifecycle states (digest 4.6, interface spec 4.3); every account is answered status "ok"',
    targets: ['records.accounts.status-documented'],
    // "ok" is no active status: list_accounts has nothing it must show (a gap).
    collateral: ['records.accounts.listed-after-sync'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'sync-accounts-no-status',
    rule: 'sync_accounts answers a status per account (interface spec 4.3); the status is missing',
    targets: ['records.accounts.sync-status', 'records.accounts.status-documented'],
    // No status is no active account: list_accounts has nothing it must show (a gap).
    collateral: ['records.accounts.listed-after-sync'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'list-accounts-forgets-synced',
    rule: 'list_accounts shows the active relationships (interface spec 4.3); it lists none',
    targets: ['records.accounts.listed-after-sync'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'audiences-refused',
    rule: 'sync_audiences accepts a valid audience (interface spec 4.3, 2.6); every audience is refused',
    targets: ['records.audiences.valid-accepted'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'audience-without-id-accepted',
    rule: 'an audience without audience_id is bad input, INVALID_REQUEST (interface spec 2.6, 7); it is stored under a made-up id',
    targets: ['records.audiences.invalid-refused'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'catalogs-refused',
    rule: 'sync_catalogs accepts a valid catalog (interface spec 4.3, 2.6); every catalog is refused',
    targets: ['records.catalogs.valid-accepted'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'catalog-url-unchecked',
    rule: 'a catalog url that is no URL is bad input, INVALID_REQUEST (interface spec 2.6, 7); it is stored',
    targets: ['records.catalogs.invalid-refused'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'events-refused',
    rule: 'log_event accepts a valid marketing event (interface spec 4.3, 2.6); every event source is unknown',
    targets: ['records.events.valid-accepted'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'event-time-unchecked',
    rule: 'an event_time that is no ISO 8601 date-time is bad input, INVALID_REQUEST (interface spec 2.6, 7); it is stored',
    targets: ['records.events.invalid-refused'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'feedback-refused',
    rule: 'provide_performance_feedback accepts feedback on a media buy (interface spec 4.3); every feedback is refused',
    targets: ['records.feedback.valid-accepted'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'feedback-period-unchecked',
    rule: 'a measurement period that is no date-time is bad input, INVALID_REQUEST (interface spec 4.3, 7); it is taken',
    targets: ['records.feedback.invalid-refused'],
    matrixGroup: 'kinds-b',
  },
  // Product refinement (interface spec 4.3).
  {
    name: 'refine-unsupported',
    rule: 'get_products takes buying_mode refine with product-scoped refinements (interface spec 4.3); refine mode is refused',
    targets: ['products.refine.more-like-this'],
    matrixGroup: 'kinds-a',
  },
  // Delivery reporting (interface spec 4.3).
  {
    name: 'granularity-declared-refused',
    rule: 'get_media_buy_delivery answers a time_granularity the seller declares (interface spec 4.3); every granularity is refused',
    targets: ['reporting.delivery.declared-granularity'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'granularity-undeclared-accepted',
    rule: 'time_granularity must be one the seller declares in windowed_pull_granularities (interface spec 4.3); any granularity is answered',
    targets: ['reporting.delivery.undeclared-granularity-refused'],
    matrixGroup: 'kinds-b',
  },
  // Creative agent (interface spec 4.3, 2.6).
  {
    name: 'formats-without-format-id',
    rule: 'creative formats are named by a format_id {agent_url, id} (interface spec 2.5, 2.6); list_creative_formats lists them without it',
    targets: ['creative.formats.listed'],
    // The validation-only and creative-assignment checks find no format to sync, or no creative
    // accepted: a coverage gap.
    collateral: [
      'state-machine.revision.not-on-validation',
      'state-machine.creatives.assigned-leaves-pending',
      'state-machine.creatives.released-on-cancel',
      'state-machine.creatives.released-on-reject',
    ],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'format-type-filter-ignored',
    rule: 'list_creative_formats with a type lists formats of that type (interface spec 4.3); the filter is ignored',
    targets: ['creative.formats.type-filter'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'build-creative-other-format',
    rule: 'build_creative builds for the target formats it is given (interface spec 4.3); it builds for the next format of the catalogue',
    targets: ['creative.build.target-format'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'sync-creatives-refuses-all',
    rule: 'sync_creatives accepts a creative of a listed format (interface spec 4.3, 2.6); every creative is refused',
    targets: ['creative.sync.valid-accepted'],
    // The validation-only and creative-assignment checks find no format to sync, or no creative
    // accepted: a coverage gap.
    collateral: [
      'state-machine.revision.not-on-validation',
      'state-machine.creatives.assigned-leaves-pending',
      'state-machine.creatives.released-on-cancel',
      'state-machine.creatives.released-on-reject',
    ],
    matrixGroup: 'seller-d',
  },
  {
    name: 'sync-creatives-unknown-format-accepted',
    rule: 'a creative of a format the agent does not list is bad input, INVALID_REQUEST (interface spec 7); it is stored',
    targets: ['creative.sync.unknown-format-refused'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'build-creative-not-idempotent',
    rule: 'build_creative is a mutating task under the idempotency rules (interface spec 4.3, 4.4 rules 1-3); it ignores idempotency_key',
    targets: ['creative.idempotency.build-replay', 'creative.idempotency.build-conflict', 'creative.idempotency.build-missing-key'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'sync-creatives-not-idempotent',
    rule: 'sync_creatives is a mutating task under the idempotency rules (interface spec 4.3, 4.4 rules 1-3); it ignores idempotency_key',
    targets: ['creative.idempotency.sync-replay', 'creative.idempotency.sync-conflict', 'creative.idempotency.sync-missing-key'],
    matrixGroup: 'seller-tasks',
  },
  // Signals agent (interface spec 4.3, 4.4).
  {
    name: 'signals-without-segment-id',
    rule: 'get_signals segments carry the signal_agent_segment_id activate_signal takes (interface spec 4.3); segments come without it',
    targets: ['signals.get.segments'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'activate-signal-refuses-platform',
    rule: 'activate_signal activates an offered segment to a platform destination (interface spec 4.3); every destination is refused',
    targets: ['signals.activate.destination'],
    matrixGroup: 'kinds-b',
    // A destination the certifier gave: its refusal is judged (without one it would be a coverage gap).
    fixtures: { signals: { destinations: [{ type: 'platform', platform: 'proto-comply-test-dsp' }] } },
  },
  {
    name: 'activate-unknown-segment-accepted',
    rule: 'an unknown signal_agent_segment_id is bad input, INVALID_REQUEST (interface spec 7); it is activated',
    targets: ['signals.activate.unknown-segment-refused'],
    matrixGroup: 'seller-tasks',
  },
  {
    name: 'activate-signal-not-idempotent',
    rule: 'activate_signal is a mutating task under the idempotency rules (interface spec 4.4 rules 1-3); it ignores idempotency_key',
    targets: ['signals.idempotency.replay', 'signals.idempotency.conflict', 'signals.idempotency.missing-key'],
    matrixGroup: 'seller-tasks',
  },
  // Governance agent (interface spec 4.3, 2.6).
  {
    name: 'governance-check-fails',
    rule: 'check_governance answers a planned action (interface spec 4.3); every check is an error',
    targets: ['governance.check.answers'],
    matrixGroup: 'kinds-a',
  },
  {
    name: 'governance-token-forged',
    rule: "the JWS accompanying an approval verifies against the governance agent's published keys (interface spec 4.3, digest 1.11); it is signed with a key it never published",
    targets: ['governance.approval.token-verifies'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'audit-log-forgets-checks',
    rule: "get_plan_audit_logs returns the plan's audit entries, one per check made (interface spec 4.3, 2.6); entries[] is always empty",
    targets: ['governance.audit.reflects-check'],
    matrixGroup: 'kinds-b',
  },
  {
    name: 'update-not-idempotent',
    rule: 'update_media_buy is a mutating task under the idempotency rules (interface spec 4.4 rules 1-3); it ignores idempotency_key',
    targets: ['idempotency.update.replay', 'idempotency.update.conflict', 'idempotency.update.missing-key'],
    // A replayed pause runs again, so the revision moves on a replay.
    collateral: ['state-machine.revision.not-on-replay'],
    matrixGroup: 'seller-idempotency',
  },
  {
    name: 'buys-not-scoped-by-account',
    rule: "a buy is read and changed only through its own account (interface spec 2.6, digest 4.6: another tenant's entity is not found); reads list every buy of the buyer and updates take any account",
    targets: ['state-machine.scope.other-account'],
    matrixGroup: 'seller-state',
  },
  {
    name: 'agent-capabilities-fails',
    rule: 'a listed get_agent_capabilities answers (interface spec 4.3, 6); every call is a SERVICE_UNAVAILABLE error',
    targets: ['capabilities.agent-capabilities.answers'],
    matrixGroup: 'seller-tasks',
  },
  // Brand identity agent (interface spec 4.3).
  {
    name: 'brand-identity-fails',
    rule: 'get_brand_identity answers a brand reference with its identity (interface spec 4.3); every call is a SERVICE_UNAVAILABLE error',
    targets: ['brand.identity.answers'],
    // With no successful reply, the response shape cannot be judged: a coverage gap.
    collateral: ['schemas.response.get_brand_identity'],
    matrixGroup: 'seller-tasks',
  },
];

for (const def of BUILTIN) registerFault(def);
