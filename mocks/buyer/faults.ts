/**
 * Fault profiles of the mock buyer. Each breaks exactly one receiver rule, applied by a small
 * `faults.has('<name>')` switch at the place where the mock implements the rule, so the
 * webhook-receiver suite can prove that the check(s) in `targets` catch the violation and
 * nothing else fails (collateral: checks that exercise the broken rule as a prerequisite).
 *
 * A registry of its own: buyer faults never appear in the mock seller's profile list.
 */

export interface BuyerFaultDef {
  /** Kebab-case name used with `--fault`. */
  readonly name: string;
  /** One line: the rule the fault breaks, with its spec reference. */
  readonly rule: string;
  /** Check id(s) of the webhook-receiver suite that must fail when the fault is active. */
  readonly targets: readonly string[];
  readonly collateral?: readonly string[];
  /**
   * Faults of one group run together once against the whole suite, then each alone against the
   * checks the group names and those the shared run did not judge (mocks/buyer/faults.test.ts,
   * suites/testing/mock-run.ts runFaultMatrix), keeping the matrix short. The groups are listed
   * above BUILTIN, with the faults kept apart because one would hide another's detection.
   */
  readonly matrixGroup?: string;
}

const FAULT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const registry = new Map<string, BuyerFaultDef>();

export function registerBuyerFault(def: BuyerFaultDef): void {
  if (!FAULT_NAME.test(def.name)) throw new Error(`invalid fault name ${JSON.stringify(def.name)}: use kebab-case`);
  if (!def.rule.trim()) throw new Error(`fault ${def.name}: rule text is empty`);
  if (def.targets.length === 0) throw new Error(`fault ${def.name}: at least one target check id is required`);
  if (registry.has(def.name)) throw new Error(`buyer fault ${def.name} is already registered`);
  registry.set(
    def.name,
    Object.freeze({ ...def, targets: Object.freeze([...def.targets]), ...(def.collateral ? { collateral: Object.freeze([...def.collateral]) } : {}) }),
  );
}

export function listBuyerFaults(): BuyerFaultDef[] {
  return [...registry.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export class UnknownBuyerFaultError extends Error {
  override name = 'UnknownBuyerFaultError';
  constructor(readonly unknown: string[]) {
    super(
      `unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; valid faults: ${listBuyerFaults()
        .map((f) => f.name)
        .join(', ')}`,
    );
  }
}

/** The active faults of one running buyer. */
export class BuyerFaultSet {
  private readonly active: ReadonlySet<string>;

  constructor(names: Iterable<string> = []) {
    const list = [...names];
    const unknown = list.filter((n) => !registry.has(n));
    if (unknown.length > 0) throw new UnknownBuyerFaultError(unknown);
    this.active = new Set(list);
  }

  has(name: string): boolean {
    if (!registry.has(name)) throw new Error(`buyer fault ${JSON.stringify(name)} is not registered (typo?)`);
    return this.active.has(name);
  }

  names(): string[] {
    return [...this.active].sort();
  }
}

/*
 * Matrix groups (`matrixGroup`): faults whose rules sit at different places of the receiver, so
 * that with all of a group active each target still fails for its own reason.
 * - signature: one RFC 9421 checklist rule each (the other checklist steps still refuse), plus
 *   the faults refusing one kind of valid delivery (padded digest, no idempotency_key,
 *   webhook-signing keys) and the content type;
 * - signature-clock: accepts-expired-window answers every window refusal by judging again at
 *   the signature's own time, so accepts-long-window's skip would never be reached;
 *   replay-ttl-no-grace is kept from accepts-replayed-nonce (no cache at all hides a cache that
 *   forgets early);
 * - legacy-lax / legacy-refusing: the HMAC and Bearer faults that take too much (and the HMAC
 *   over a re-serialized body, which only the spaced body tells), and those that refuse every
 *   valid delivery of their scheme (which would refuse the lax faults' probes too);
 * - delivery / processing: dedup, ordering and correlation; no-dedup (every copy processed again)
 *   is kept from duplicate-409 and dedup-ignores-sender, and dedup-per-endpoint (its scope wins)
 *   from dedup-ignores-sender, since either would hide the other's target;
 * - bootstrap: one discovery step each; bootstrap-hostname-origin runs alone (it refuses the good
 *   chain, which every other bootstrap check needs first).
 */
const BUILTIN: BuyerFaultDef[] = [
  {
    name: 'dedup-per-endpoint',
    rule: 'dedup state is shared across every endpoint a sender can reach (interface spec 6.5 rule 3); each endpoint keeps its own',
    targets: ['webhook-receiver.dedup.shared-across-endpoints'],
    matrixGroup: 'processing',
  },
  {
    name: 'duplicate-409',
    rule: 'a duplicate is answered 2xx, never 409 (interface spec 6.5 rule 4); duplicates get 409',
    targets: ['webhook-receiver.delivery.duplicate-2xx'],
    // A concurrent copy is a duplicate too.
    collateral: ['webhook-receiver.delivery.in-flight-duplicate-2xx-or-503'],
    matrixGroup: 'delivery',
  },
  {
    name: 'no-dedup',
    rule: 'applying the same delivery twice leaves identical state: dedup on (sender, idempotency_key) (interface spec 6.5 rules 1-2); duplicates are acknowledged and processed again',
    targets: ['webhook-receiver.delivery.duplicate-processed-once'],
    // Any copy under a known key is processed again, whatever its payload.
    collateral: ['webhook-receiver.dedup.shared-across-endpoints', 'webhook-receiver.dedup.first-copy-wins'],
    matrixGroup: 'processing',
  },
  {
    name: 'dedup-ignores-sender',
    rule: 'dedup scope is (verified sender, idempotency_key); senders have independent keyspaces (interface spec 6.5 rule 2); all senders share one keyspace',
    targets: ['webhook-receiver.dedup.per-sender-keyspace'],
    matrixGroup: 'delivery',
  },
  {
    name: 'last-copy-wins',
    rule: 'on key reuse payloads are not compared and the first cached copy wins (interface spec 6.5 rule 6); a known key carrying another status is processed again',
    targets: ['webhook-receiver.dedup.first-copy-wins'],
    matrixGroup: 'delivery',
  },
  {
    name: 'notification-id-dedup',
    rule: 'the same notification_id under a new idempotency_key is a re-emission, not a transport retry (interface spec 6.5 rule 7); it is dropped as a duplicate',
    targets: ['webhook-receiver.dedup.re-emission-processed'],
    matrixGroup: 'delivery',
  },
  {
    name: 'older-status-applied',
    rule: 'a receiver must not apply an older status over a newer one, ordering on task_id and timestamp (interface spec 3.2 rule 4); the last delivery processed wins',
    targets: ['webhook-receiver.ordering.older-status-not-applied'],
    matrixGroup: 'delivery',
  },
  {
    name: 'no-413',
    rule: 'receivers enforce 1 MB and answer 413 before verifying (interface spec 8); bodies up to 64 MB are read and verified',
    targets: ['webhook-receiver.size.oversize-413'],
    matrixGroup: 'processing',
  },
  {
    name: 'no-429-bound',
    rule: 'receivers bound the dedup cache per sender and answer 429 rather than grow (interface spec 6.5 rule 5); no bound',
    targets: ['webhook-receiver.dedup.bound-429'],
    matrixGroup: 'processing',
  },
  {
    name: 'accepts-wrong-content-type',
    rule: 'Content-Type must be application/json, rejected before signature verification (interface spec 5.1 rule 6); any type is verified and accepted',
    targets: ['webhook-receiver.content-type.rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'skips-digest',
    rule: 'signature and digest cover the exact raw body (interface spec 5.1 rules 1-2); a Content-Digest mismatch is ignored',
    targets: ['webhook-receiver.signature.tampered-body-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-replayed-nonce',
    rule: '(keyid, nonce) pairs are deduplicated (interface spec 5.1 rule 4); no replay cache',
    targets: ['webhook-receiver.signature.replayed-nonce-rejected'],
    // Without a cache, the replay sent after expires is taken too.
    collateral: ['webhook-receiver.signature.replay-cached-past-expiry'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-expired-window',
    rule: 'signatures are valid for at most 5 minutes (interface spec 5.1 rule 4, 8); the window is read from the signature itself, so an expired signature passes',
    // Judging the window at the signature's own time takes a future-dated signature too.
    targets: ['webhook-receiver.signature.expired-rejected', 'webhook-receiver.signature.created-in-future-rejected'],
    matrixGroup: 'signature-clock',
  },
  {
    name: 'accepts-wrong-tag',
    rule: 'tag must equal {token}/webhook-signing/v1 (interface spec 5.1 rule 3); any tag is accepted',
    targets: ['webhook-receiver.signature.wrong-tag-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'ignores-pin',
    rule: "for sell-side webhooks the publisher's signing_keys[] pin is authoritative, a keyid outside it refused (digest 1.11 step 6); the pin is never read, any key of the sender's JWKS is accepted",
    targets: ['webhook-receiver.signature.unpinned-key-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-unsigned',
    rule: 'an RFC 9421 endpoint takes no unsigned delivery (digest 1.16, step 0); unsigned deliveries are processed',
    targets: ['webhook-receiver.signature.unsigned-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-malformed-header',
    rule: 'Signature-Input must be an RFC 8941 dictionary (checklist step 1); a malformed one is ignored',
    targets: ['webhook-receiver.signature.header-malformed-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-incomplete-params',
    rule: 'created, expires, nonce, keyid, alg and tag are all required (checklist step 2); missing ones are ignored',
    targets: ['webhook-receiver.signature.params-incomplete-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-any-alg',
    rule: 'only ed25519 and ecdsa-p256-sha256 are allowed (checklist step 4); any alg is taken',
    targets: ['webhook-receiver.signature.alg-not-allowed-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-long-window',
    rule: 'a signature is valid for at most 300 s (checklist step 5, interface spec 8); longer windows are taken',
    targets: ['webhook-receiver.signature.window-too-long-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-future-created',
    rule: 'created must not lie in the future beyond the skew (checklist step 5); future signatures are taken',
    targets: ['webhook-receiver.signature.created-in-future-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-digest-uncovered',
    rule: 'webhook signatures always cover content-digest (digest 1.16); one that does not is taken',
    targets: ['webhook-receiver.signature.digest-uncovered-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-unknown-key',
    rule: "the keyid must resolve to a key the sender publishes, within the publisher's pin (checklist step 7, digest 1.11); unknown keyids are taken",
    targets: ['webhook-receiver.signature.unknown-key-rejected', 'webhook-receiver.signature.unpinned-key-rejected'],
    // The kid refused inside the refetch cooldown is an unknown key too.
    collateral: ['webhook-receiver.jwks.refetch-cooldown'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-bad-signature',
    rule: 'the signature must verify (checklist step 10); it is never checked',
    targets: ['webhook-receiver.signature.bad-signature-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-wrong-purpose',
    rule: 'a webhook key has purpose request-signing or the deprecated webhook-signing (digest 1.16 step 8); keys of any other purpose, or none, are taken',
    targets: ['webhook-receiver.signature.key-purpose-invalid-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'accepts-duplicate-keys',
    rule: 'a body repeating a JSON key is webhook_body_malformed (checklist step 14); the last copy of the key is processed',
    targets: ['webhook-receiver.body.duplicate-keys-rejected'],
    matrixGroup: 'signature',
  },
  {
    name: 'refuses-webhook-signing-usage',
    rule: 'keys of the deprecated webhook-signing usage are still accepted in 3.x (interface spec 5.1); they are refused as key_purpose_invalid',
    targets: ['webhook-receiver.signature.webhook-signing-usage-accepted'],
    matrixGroup: 'signature',
  },
  {
    name: 'mode-fallback',
    rule: 'a delivery in the other authentication mode is answered 401 webhook_mode_mismatch (digest 1.16); an RFC 9421 endpoint ignores HMAC headers and judges the delivery as unsigned',
    targets: ['webhook-receiver.mode.hmac-on-signature-endpoint-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'hmac-endpoint-accepts-9421',
    rule: 'mode selection is a switch, never a fallback (digest 1.16); an endpoint registered for HMAC verifies and takes RFC 9421 signatures',
    targets: ['webhook-receiver.mode.signature-on-hmac-endpoint-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'hmac-body-only',
    rule: 'the legacy HMAC is over "<timestamp>.<raw body>" (interface spec 5.2); the receiver HMACs the body alone, refusing valid deliveries',
    targets: ['webhook-receiver.hmac.valid-accepted'],
    // The raw-body check sends a valid HMAC too.
    collateral: ['webhook-receiver.hmac.raw-body-verified'],
    matrixGroup: 'legacy-refusing',
  },
  {
    name: 'hmac-lax-timestamp',
    rule: 'a non-numeric HMAC timestamp is rejected (interface spec 5.2, digest 5.3 step 2); the leading digits are read as the timestamp',
    targets: ['webhook-receiver.hmac.timestamp-non-numeric-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'hmac-ignores-skew',
    rule: 'an HMAC timestamp more than 300 s off is rejected (interface spec 5.2, 8); the skew is never judged',
    targets: ['webhook-receiver.hmac.timestamp-skew-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'hmac-lax-prefix',
    rule: 'the HMAC header is exactly sha256=<hex>; a doubled or wrong prefix is rejected (digest 5.3 step 4); any run of sha256= prefixes is stripped',
    targets: ['webhook-receiver.hmac.signature-format-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'bearer-header-ignored',
    rule: 'the legacy Bearer credential comes in Authorization: Bearer (interface spec 5.3); the receiver looks for it elsewhere and refuses valid deliveries',
    targets: ['webhook-receiver.bearer.valid-accepted'],
    matrixGroup: 'legacy-refusing',
  },
  {
    name: 'bearer-prefix-compare',
    rule: 'the receiver compares the whole Bearer credential (interface spec 5.3); only its first 16 characters are compared',
    targets: ['webhook-receiver.bearer.wrong-credential-rejected'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'hmac-reserializes-body',
    rule: 'the legacy HMAC is verified over the raw body bytes, never a re-serialization (digest 5.3); the body is parsed and re-serialized compactly first',
    targets: ['webhook-receiver.hmac.raw-body-verified'],
    matrixGroup: 'legacy-lax',
  },
  {
    name: 'terminal-status-unmapped',
    rule: 'a delivery is processed and the task takes the sent status (interface spec 6.2); a terminal status is stored as working (the status map lacks the terminal states)',
    targets: ['webhook-receiver.envelope.processed'],
    matrixGroup: 'processing',
  },
  {
    name: 'replay-ttl-no-grace',
    rule: 'a replay-cache entry lives (expires - now) + 60 s (digest 1.12); entries are dropped at expires, while the window check still allows 60 s of skew',
    targets: ['webhook-receiver.signature.replay-cached-past-expiry'],
    matrixGroup: 'signature-clock',
  },
  {
    name: 'in-flight-duplicate-409',
    rule: 'an identical delivery still being processed gets a retryable 503, a completed one 2xx, never 409 (digest 5.4); a duplicate within a second of the first copy is answered 409',
    targets: ['webhook-receiver.delivery.in-flight-duplicate-2xx-or-503'],
    // The sequential resend follows the first copy within the second too.
    collateral: ['webhook-receiver.delivery.duplicate-2xx'],
    matrixGroup: 'delivery',
  },
  {
    name: 'correlates-on-url',
    rule: 'receivers never use URL-derived values as the correlation key (interface spec 6.1 rule 2); a task_id in the webhook URL query replaces the payload one',
    targets: ['webhook-receiver.correlation.url-values-ignored'],
    matrixGroup: 'delivery',
  },
  {
    name: 'rejects-standard-base64-digest',
    rule: 'a webhook verifier accepts a pure standard-base64 Content-Digest (digest 2.3, 1.5); a Content-Digest with + / or = padding is refused as header_malformed',
    targets: ['webhook-receiver.signature.standard-base64-digest-accepted'],
    matrixGroup: 'signature',
  },
  {
    name: 'key-required-as-signature',
    rule: 'a signed webhook without idempotency_key still verifies, the schema rejects it later (digest 2.3, vector 007); the verifier refuses it as webhook_signature_params_incomplete',
    targets: ['webhook-receiver.body.missing-key-not-signature-error'],
    matrixGroup: 'signature',
  },
  // Discovery from the seller's agent URL (digest 1.11 bootstrap; mocks/buyer/bootstrap.ts).
  {
    name: 'bootstrap-hostname-origin',
    rule: 'the agent and its brand.json must share an eTLD+1 (digest 1.11 bootstrap step 3); whole host names are compared, so a brand.json on a sibling host is refused',
    targets: ['webhook-receiver.bootstrap.chain-accepted'],
    // Every other bootstrap check first needs the good chain (setup): blocked.
    collateral: [
      'webhook-receiver.bootstrap.capabilities-unreachable-refused',
      'webhook-receiver.bootstrap.brand-url-required',
      'webhook-receiver.bootstrap.origin-mismatch-refused',
      'webhook-receiver.bootstrap.brand-fetch-strict',
      'webhook-receiver.bootstrap.agent-entry-exact',
      'webhook-receiver.bootstrap.key-origins-checked',
      'webhook-receiver.bootstrap.jwks-capped',
      'webhook-receiver.jwks.refetch-cooldown',
    ],
  },
  {
    name: 'bootstrap-capabilities-ignored',
    rule: 'discovery starts with get_<token>_capabilities, a failure is capabilities_unreachable (digest 1.11 bootstrap step 1); a failed call is taken as an empty declaration',
    targets: ['webhook-receiver.bootstrap.capabilities-unreachable-refused'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-brand-url-fallback',
    rule: 'identity.brand_json_url must be present and https, else brand_json_url_missing (digest 1.11 bootstrap step 2); without it /.well-known/brand.json at the agent origin is read',
    targets: ['webhook-receiver.bootstrap.brand-url-required'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-origin-unchecked',
    rule: 'the agent and its brand.json must share an eTLD+1, else brand_origin_mismatch (digest 1.11 bootstrap step 3); the origins are not compared',
    targets: ['webhook-receiver.bootstrap.origin-mismatch-refused'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-brand-lax-parse',
    rule: 'brand.json is parsed strictly, duplicate keys refused as brand_json_malformed (digest 1.11 bootstrap step 4); duplicate members collapse, the last wins',
    targets: ['webhook-receiver.bootstrap.brand-fetch-strict'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-agent-url-canonicalized',
    rule: 'agents[].url must byte-equal the agent URL, no canonicalization (digest 1.11 bootstrap step 5); trailing slashes are stripped before comparing',
    targets: ['webhook-receiver.bootstrap.agent-entry-exact'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-key-origins-unchecked',
    rule: 'the declared key origin must equal the jwks_uri host, a posture without one is key_origin_missing (digest 1.11 bootstrap step 7); key origins are not read',
    targets: ['webhook-receiver.bootstrap.key-origins-checked'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'bootstrap-jwks-uncapped',
    rule: 'the JWKS is fetched under a 64 KiB cap (digest 1.11 bootstrap step 8); the cap is 1 MiB',
    targets: ['webhook-receiver.bootstrap.jwks-capped'],
    matrixGroup: 'bootstrap',
  },
  {
    name: 'jwks-refetch-no-cooldown',
    rule: 'a kid miss refetches the JWKS at once, but not twice within 30 s for one jwks_uri (digest 1.11 direct resolution step 4); every miss refetches',
    targets: ['webhook-receiver.jwks.refetch-cooldown'],
    matrixGroup: 'bootstrap',
  },
];

for (const def of BUILTIN) registerBuyerFault(def);
