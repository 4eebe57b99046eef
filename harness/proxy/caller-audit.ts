/**
 * The passive audit of the buyer (the `caller` suite's ids): what every request the buyer sends
 * must be, whatever the agent answers. Arguments against the task's request schema, the
 * idempotency key (present, a UUID v4, never reused for another request), and retries: after a
 * mutating request whose outcome the buyer could not know (no answer, HTTP 5xx, an injected
 * fault, IDEMPOTENCY_IN_FLIGHT), the next request of the same task, account and payload is its
 * retry and must carry the same key, and a signature (with the digest) when the first was signed.
 * The request-signature rule is judged with the agent's verifier audit (signature-audit.ts).
 */
import canonicalize from 'canonicalize';
import { createSchemaValidator, type SchemaValidator } from '../core/schemas/validator.js';
import { parseSignatureHeaders } from '../core/signing/parse/signature-headers.js';
import { protocolIds, type ProtocolIds } from '../core/token.js';
import { isObject } from '../core/transport/jsonrpc.js';
import type { TaskReply, WireExchange } from '../core/transport/types.js';
import { MUTATING, remember, requestHash, UUID_V4, type Verdict } from './audit-shared.js';
import type { ProxiedExchange } from './http-parts.js';
import type { ObservedRequest } from './observe.js';

/** The caller suite's checks this audit judges (caller.signature.verifies: signature-audit.ts). */
export const CALLER_AUDITED_CHECKS = [
  'caller.request.schema',
  'caller.idempotency.key-present',
  'caller.idempotency.key-uuid-v4',
  'caller.idempotency.key-fresh',
  'caller.idempotency.retry-same-key',
  'caller.retry.stays-signed',
  'caller.registration.operation-id',
] as const;

/** Stands in for the key when a mutating request's arguments are checked against the schema: the key has its own checks. */
const KEY_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';
/** Task error codes that leave the outcome unknown to the buyer (digest 3.3: retry with the same key). */
const OUTCOME_UNKNOWN_CODES = new Set(['IDEMPOTENCY_IN_FLIGHT']);

interface SentKey {
  task: string;
  hash: string;
  exchange: WireExchange;
}

interface Unanswered {
  key: unknown;
  signed: boolean;
  digest: boolean;
  tEnd: number;
  why: string;
  exchange: WireExchange;
}

/** How the request was signed (covered components read leniently; a malformed header is the signature rule's). */
function signing(x: ProxiedExchange): { signed: boolean; digest: boolean } {
  const input = x.request.headers['signature-input'];
  const signature = x.request.headers.signature;
  if (input === undefined || signature === undefined) return { signed: false, digest: false };
  try {
    return { signed: true, digest: parseSignatureHeaders(input, signature, 'legacy').components.includes('content-digest') };
  } catch {
    return { signed: true, digest: /"content-digest"/i.test(input) };
  }
}

/** Why the buyer could not know whether the agent acted on the request, or undefined when it got a task answer. */
export function outcomeUnknown(x: ProxiedExchange, reply: TaskReply | undefined): string | undefined {
  if (x.injected_answer) return `an injected HTTP ${x.response?.status ?? 'answer'}`;
  if (x.injected_reset) return 'an injected connection reset';
  if (x.error || !x.response) return `no answer (${x.error ?? 'connection closed'})`;
  if (x.response.status >= 500) return `HTTP ${x.response.status}`;
  const code = reply?.error?.code;
  if (code && OUTCOME_UNKNOWN_CODES.has(code)) return `task error ${code}`;
  return undefined;
}

export class CallerAudit {
  private readonly ids: ProtocolIds;
  private readonly schemas: SchemaValidator;
  /** (account, key) → the request that first carried it. */
  private readonly keys = new Map<string, SentKey>();
  /** (task, account, payload) → the latest request of it whose outcome the buyer could not know. */
  private readonly unanswered = new Map<string, Unanswered>();

  constructor(token: string) {
    this.ids = protocolIds(token);
    this.schemas = createSchemaValidator({ token });
  }

  /** Every verdict one request gives; `reply` is the agent's decoded answer, when it got one. */
  judge(r: ObservedRequest, x: ProxiedExchange, exchange: WireExchange, reply: TaskReply | undefined): Verdict[] {
    if (r.poll) return [];
    const out: Verdict[] = [];
    const v = (checkId: string, ok: boolean, message: string, more: Partial<Verdict> = {}): void => {
      out.push({ checkId, ok, message, exchanges: [exchange], ...more });
    };
    const mutating = MUTATING.has(r.task);
    this.judgeSchema(r, mutating, v);
    for (const config of [r.args.push_notification_config, r.a2aPush]) {
      if (!isObject(config)) continue;
      const ok = typeof config.operation_id === 'string' && config.operation_id.length > 0;
      v(
        'caller.registration.operation-id',
        ok,
        ok ? `${r.task}: push registration with operation_id` : `${r.task}: push registration without an operation_id`,
        {
          ...(ok ? {} : { actual: config.operation_id ?? null }),
        },
      );
    }
    if (!mutating) return out;
    const key = r.args.idempotency_key;
    v('caller.idempotency.key-present', key !== undefined, key !== undefined ? `${r.task} carries idempotency_key` : `${r.task} sent without idempotency_key`);
    if (key !== undefined) {
      const uuid = typeof key === 'string' && UUID_V4.test(key);
      v(
        'caller.idempotency.key-uuid-v4',
        uuid,
        uuid ? `${r.task}: key is a UUID v4` : `${r.task}: idempotency_key is not a UUID v4`,
        uuid ? {} : { actual: key },
      );
    }
    const account = canonicalize(r.args.account ?? null) ?? '';
    const hash = requestHash(r.args);
    if (typeof key === 'string') {
      const scope = `${account}\u0000${key}`;
      const first = this.keys.get(scope);
      if (!first) {
        remember(this.keys, scope, { task: r.task, hash, exchange });
        v('caller.idempotency.key-fresh', true, `${r.task}: a key not seen before`);
      } else if (first.task !== r.task || first.hash !== hash) {
        v('caller.idempotency.key-fresh', false, `${r.task} reuses the idempotency_key of an earlier ${first.task} with another payload`, {
          exchanges: [first.exchange, exchange],
          actual: key,
        });
      } else v('caller.idempotency.key-fresh', true, `${r.task}: the key again with the same request (a retry)`);
    }
    this.judgeRetry(r, x, exchange, reply, `${r.task}\u0000${account}\u0000${hash}`, v);
    return out;
  }

  private judgeSchema(r: ObservedRequest, mutating: boolean, v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void): void {
    const name = r.task === this.ids.capabilitiesTask ? 'capabilities-request' : `${r.task}-request`;
    if (!this.schemas.hasSchema(name)) return;
    const args = mutating ? { ...r.args, idempotency_key: KEY_PLACEHOLDER } : r.args;
    const verdict = this.schemas.validate(name, args);
    const errs = verdict.errors.slice(0, 3).map((e) => `${e.pointer || '/'} ${e.message}`);
    v('caller.request.schema', verdict.valid, verdict.valid ? `${r.task}: arguments valid` : `${r.task} arguments: ${errs.join('; ')}`, {
      ...(verdict.valid ? {} : { actual: verdict.errors.slice(0, 5) }),
    });
  }

  private judgeRetry(
    r: ObservedRequest,
    x: ProxiedExchange,
    exchange: WireExchange,
    reply: TaskReply | undefined,
    scope: string,
    v: (id: string, ok: boolean, m: string, more?: Partial<Verdict>) => void,
  ): void {
    const sent = signing(x);
    const before = this.unanswered.get(scope);
    if (before && before.tEnd <= x.t_start) {
      this.unanswered.delete(scope);
      const both = [before.exchange, exchange];
      const same = r.args.idempotency_key === before.key;
      v(
        'caller.idempotency.retry-same-key',
        same,
        same ? `${r.task}: retried after ${before.why} with the same key` : `${r.task}: retried after ${before.why} with another idempotency_key`,
        { exchanges: both, ...(same ? {} : { expected: before.key, actual: r.args.idempotency_key ?? null }) },
      );
      if (before.signed) {
        const ok = sent.signed && (sent.digest || !before.digest);
        const what = !sent.signed ? 'unsigned' : 'signed without covering content-digest';
        v('caller.retry.stays-signed', ok, ok ? `${r.task}: the retry of a signed request is signed` : `${r.task}: retried after ${before.why} ${what}`, {
          exchanges: both,
        });
      }
    }
    const why = outcomeUnknown(x, reply);
    if (why) remember(this.unanswered, scope, { key: r.args.idempotency_key, ...sent, tEnd: x.t_end, why, exchange });
  }
}
