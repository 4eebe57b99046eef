/**
 * Fault profiles of the calling mock buyer (calls/buyer.ts): each breaks one rule of the `caller`
 * suite in the requests it sends, and names the check the proxy's passive audit must flag (literal
 * ids, so `grep -rn <check id>` finds the fault that targets it). A registry of its own: these are
 * faults of the buyer's calls, not of its webhook receiver (../faults.ts).
 */
export interface CallingFaultDef {
  readonly name: string;
  /** One line: the rule broken, with its spec reference. */
  readonly rule: string;
  readonly targets: readonly string[];
  readonly collateral?: readonly string[];
}

export const CALLING_FAULTS: readonly CallingFaultDef[] = [
  {
    name: 'invalid-arguments',
    rule: 'each task is called with its documented arguments (interface spec 4.3); create_media_buy sends a package budget as a string',
    targets: ['caller.request.schema'],
  },
  {
    name: 'no-idempotency-key',
    rule: 'every mutating request carries idempotency_key (interface spec 4.4 rule 1); update_media_buy is sent without one',
    targets: ['caller.idempotency.key-present'],
  },
  {
    name: 'key-not-uuid',
    rule: 'the idempotency_key is a client-generated UUID v4 (interface spec 4.4 rule 1); keys are a counter with a prefix (still of the allowed format)',
    targets: ['caller.idempotency.key-uuid-v4'],
  },
  {
    name: 'key-reused',
    rule: 'a fresh key for each request (digest 3.1); update_media_buy reuses the key of the create',
    targets: ['caller.idempotency.key-fresh'],
  },
  {
    name: 'new-key-on-retry',
    rule: 'a retry reuses the same tool, payload and key (digest 3.1); each retry after an unknown outcome gets a fresh key',
    targets: ['caller.idempotency.retry-same-key'],
  },
  {
    name: 'retry-unsigned',
    rule: 'clients never retry without signing (digest 1.7); retries after an unknown outcome go out unsigned, on the bearer alone',
    targets: ['caller.retry.stays-signed'],
  },
  {
    name: 'stale-signature',
    rule: 'a signed request passes the verifier checklist (digest 1.9); requests are signed with a window that ended ten minutes ago',
    targets: ['caller.signature.verifies'],
  },
  {
    name: 'no-operation-id',
    rule: 'buyers give an operation_id with every push registration (interface spec 6.1 rule 1); the push_notification_config has only a url',
    targets: ['caller.registration.operation-id'],
  },
];

export function listCallingFaults(): CallingFaultDef[] {
  return [...CALLING_FAULTS];
}

export class UnknownCallingFaultError extends Error {
  override name = 'UnknownCallingFaultError';
}

/** The named faults, checked against the registry. */
export function callingFaultSet(names: readonly string[]): ReadonlySet<string> {
  const known = new Set(CALLING_FAULTS.map((f) => f.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new UnknownCallingFaultError(`unknown calling-buyer fault(s) ${unknown.join(', ')}; valid: ${[...known].join(', ')}`);
  return new Set(names);
}
