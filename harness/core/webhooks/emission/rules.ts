/**
 * Named grading rules over a capture snapshot (harness/core/webhooks/emission/snapshot.ts), used by the `webhook_rule`
 * expectation. Signature rules: interface spec 5.1-5.2, digest 1.16, 2.7. Delivery rules:
 * spec 6.1, 6.3, 6.5; digest 5.4-5.6.
 */
import { cutText } from '../../engine/bound.js';
import { isDeepStrictEqual } from 'node:util';
import { resolvePointer } from '../../engine/pointer.js';
import type { CheckContext, Judgement } from '../../engine/kinds/types.js';
import { lookupCapability } from '../../engine/conditions.js';
import type { CaptureSnapshot, DeliveryView } from './snapshot.js';

export interface RuleParams {
  /** JSON pointer into the body that identifies the logical event (default /idempotency_key). */
  event_by?: string;
  /** buy_announced: the buy and the status the announcement must name. */
  media_buy_id?: string;
  status?: string;
  /** switched: the old URL's capture now, and before the change. */
  old?: CaptureSnapshot;
  before?: CaptureSnapshot;
  /** switched: fires after the change that may still reach the old URL. */
  max_old?: number;
}

/** How many fires after a config change may still reach the old URL (spec 6.5 rule 11 "a few"; suites/webhooks/README.md). */
export const MAX_FIRES_TO_OLD_URL = 2;

/** What a rule reads of the check's context: the protocol ids, and the agent's profile (buy_announced). */
export type RuleContext = Pick<CheckContext, 'ids'> & Partial<Pick<CheckContext, 'profile'>>;

type Rule = (snap: CaptureSnapshot, p: RuleParams, ctx: RuleContext) => Judgement;

const OK: Judgement = { ok: true };
/** The covered components of the webhook profile (interface spec 5.1 rule 1). */
export const WEBHOOK_COMPONENTS = ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'];
export const MAX_WINDOW_S = 300;

function fail(d: DeliveryView | undefined, message: string, extra: Partial<Judgement> = {}): Judgement {
  return { ok: false, message: d ? `delivery ${d.n}: ${message}` : message, ...extra };
}

function nonEmpty(snap: CaptureSnapshot): Judgement | undefined {
  return snap.count === 0 ? fail(undefined, 'no delivery arrived') : undefined;
}

/** First failing delivery of a per-delivery test. */
function every(snap: CaptureSnapshot, test: (d: DeliveryView) => Judgement): Judgement {
  const empty = nonEmpty(snap);
  if (empty) return empty;
  for (const d of snap.deliveries) {
    const j = test(d);
    if (!j.ok) return j;
  }
  return OK;
}

function signatureOf(d: DeliveryView): Judgement | undefined {
  if (d.signature) return undefined;
  return fail(
    d,
    d.signature_error ? `Signature-Input / Signature do not parse: ${d.signature_error}` : 'carries no RFC 9421 signature (Signature-Input / Signature)',
    { actual: d.headers },
  );
}

/** True when the JSON text has no whitespace outside strings (compact separators, spec 5.2). */
export function isCompactJson(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ' ' || c === '\n' || c === '\r' || c === '\t') return false;
  }
  return true;
}

function eventId(d: DeliveryView, pointer: string): string | undefined {
  const r = resolvePointer(d.body, pointer);
  return r.found ? JSON.stringify(r.value) : undefined;
}

const withoutKey = (body: unknown): unknown => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { idempotency_key: _k, ...rest } = body as Record<string, unknown>;
  return rest;
};

function answered401(snap: CaptureSnapshot, p: RuleParams): { d401: DeliveryView; id: string | undefined; later: DeliveryView[]; by: string } | Judgement {
  const by = p.event_by ?? '/idempotency_key';
  const i = snap.deliveries.findIndex((d) => d.answered === 401);
  if (i < 0) return fail(undefined, 'no delivery reached the receiver while it answered 401');
  const d401 = snap.deliveries[i]!;
  return { d401, id: eventId(d401, by), later: snap.deliveries.slice(i + 1), by };
}

/** Objects in a body (depth-first, bounded) that name the buy with media_buy_id. */
function buyObjects(body: unknown, id: string, depth = 0, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (depth > 8 || body === null || typeof body !== 'object') return out;
  if (Array.isArray(body)) {
    for (const v of body.slice(0, 50)) buyObjects(v, id, depth + 1, out);
    return out;
  }
  const o = body as Record<string, unknown>;
  if (o.media_buy_id === id) out.push(o);
  for (const v of Object.values(o)) buyObjects(v, id, depth + 1, out);
  return out;
}

const seqOf = (d: DeliveryView): number | undefined => {
  const v = resolvePointer(d.body, '/result/sequence_number').value;
  return Number.isInteger(v) ? (v as number) : undefined;
};

/** Terminal task statuses (interface spec 3.2): nothing changes after one. */
export const TERMINAL_TASK_STATUSES = new Set(['completed', 'failed', 'canceled', 'rejected']);

/** The task and status a task-status webhook names: MCP envelope `task_id`/`status`; A2A Task `id`/`status.state` or status-update `taskId`. */
export function taskStatusOf(body: unknown): { task: string; status: string } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.task_id === 'string' && typeof b.status === 'string') return { task: b.task_id, status: b.status };
  const state = b.status !== null && typeof b.status === 'object' ? (b.status as Record<string, unknown>).state : undefined;
  const task = typeof b.taskId === 'string' ? b.taskId : typeof b.id === 'string' ? b.id : undefined;
  return task !== undefined && typeof state === 'string' ? { task, status: state } : undefined;
}

export const RULES: Record<string, Rule> = {
  /** Once a task's terminal status was posted, no delivery for it names another status (a retry or re-emission of the same status is not a change). */
  silent_after_terminal: (snap) => {
    const empty = nonEmpty(snap);
    if (empty) return empty;
    const ended = new Map<string, { status: string; n: number }>();
    for (const d of snap.deliveries) {
      const t = taskStatusOf(d.body);
      if (!t) continue;
      const end = ended.get(t.task);
      if (end && t.status !== end.status)
        return fail(d, `task ${t.task} posted ${JSON.stringify(t.status)} after its terminal status ${JSON.stringify(end.status)} (delivery ${end.n})`, {
          expected: `nothing after ${end.status}`,
          actual: t.status,
        });
      if (!end && TERMINAL_TASK_STATUSES.has(t.status)) ended.set(t.task, { status: t.status, n: d.n });
    }
    return OK;
  },
  signed: (snap, _p, ctx) =>
    every(snap, (d) => {
      for (const h of ['signature-input', 'signature', 'content-digest'])
        if (d.headers[h] === undefined) return fail(d, `has no ${h} header`, { actual: d.headers });
      if (!/^application\/json\s*(;.*)?$/i.test(d.headers['content-type'] ?? ''))
        return fail(d, `Content-Type is ${JSON.stringify(d.headers['content-type'] ?? null)}, not application/json`);
      const hmac = [ctx.ids.hmacSignatureHeader, ctx.ids.hmacTimestampHeader].map((h) => h.toLowerCase()).filter((h) => d.headers[h] !== undefined);
      if (hmac.length) return fail(d, `also carries legacy ${hmac.join(', ')}: a webhook is signed one way only (digest 1.16)`);
      return OK;
    }),
  /**
   * A seller that signs its webhooks declares it: an RFC 9421-signed delivery (Signature-Input or
   * Signature present) while webhook_signing.supported is false or absent contradicts the
   * declaration (digest 1.15: supported false means unsigned emission; the 3.0 schema: false or
   * absent means receivers must not expect a Signature header). Unsigned deliveries are
   * webhooks.signature.signed's to judge, not this rule's.
   */
  signing_declared: (snap, _p, ctx) =>
    every(snap, (d) => {
      if (d.headers['signature-input'] === undefined && d.headers.signature === undefined) return OK;
      const declared = lookupCapability(ctx.profile?.capabilities, '/webhook_signing/supported', ctx.ids);
      if (declared.found && declared.value === true) return OK;
      return fail(
        d,
        `is signed with RFC 9421, but the capabilities declare webhook_signing.supported ${declared.found ? JSON.stringify(declared.value) : 'nowhere (no webhook_signing block)'}: a seller that signs its webhooks declares supported: true (digest 1.15), and receivers trust the declaration at onboarding`,
        {
          expected: { webhook_signing: { supported: true } },
          actual: { webhook_signing_supported: declared.found ? declared.value : null, signature_input: d.headers['signature-input'] },
        },
      );
    }),
  verifies: (snap) =>
    every(snap, (d) =>
      d.verified
        ? OK
        : fail(d, `signature does not verify: ${d.verify_code ?? 'no code'}: ${d.verify_detail ?? ''}`.trim(), { actual: d.signature ?? d.headers }),
    ),
  components: (snap) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      const c = d.signature!.components;
      const ok = c.length === WEBHOOK_COMPONENTS.length && WEBHOOK_COMPONENTS.every((x) => c.includes(x));
      return ok
        ? OK
        : fail(d, `covers ${JSON.stringify(c)}, expected exactly ${JSON.stringify(WEBHOOK_COMPONENTS)}`, { expected: WEBHOOK_COMPONENTS, actual: c });
    }),
  tag: (snap, _p, ctx) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      const tag = d.signature!.tag;
      return tag === ctx.ids.webhookSigningTag
        ? OK
        : fail(d, `tag is ${JSON.stringify(tag ?? null)}, expected ${JSON.stringify(ctx.ids.webhookSigningTag)}`, {
            expected: ctx.ids.webhookSigningTag,
            actual: tag,
          });
    }),
  window: (snap) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      const { created, expires } = d.signature!;
      if (!Number.isInteger(created) || !Number.isInteger(expires)) return fail(d, 'created / expires are missing', { actual: d.signature });
      const w = expires! - created!;
      if (w <= 0) return fail(d, `expires (${expires}) is not after created (${created})`);
      return w <= MAX_WINDOW_S
        ? OK
        : fail(d, `validity window is ${w} s, more than ${MAX_WINDOW_S} s`, {
            expected: { max_window_s: MAX_WINDOW_S },
            actual: { created, expires, window_s: w },
          });
    }),
  key_published: (snap) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      if (d.key_published === true) return OK;
      return fail(
        d,
        `keyid ${JSON.stringify(d.signature!.keyid ?? null)} is not published in the seller's brand declaration: ${d.key_detail ?? 'not looked up'}`,
        { actual: d.signature!.keyid },
      );
    }),
  key_current_purpose: (snap, _p, ctx) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      if (d.key_published !== true) return fail(d, `keyid ${JSON.stringify(d.signature!.keyid ?? null)} is not published, so its purpose is unknown`);
      if (d.key_use === 'request-signing') return OK;
      return fail(
        d,
        `keyid ${JSON.stringify(d.signature!.keyid ?? null)} has ${ctx.ids.keyUseMember} ${JSON.stringify(d.key_use ?? null)}: a webhook key is a request-signing key (webhook-signing is deprecated)`,
        { expected: { [ctx.ids.keyUseMember]: 'request-signing' }, actual: d.key_use ?? null },
      );
    }),
  base64url_signature: (snap) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      const token = /(?:^|,)\s*sig1=:([^:]*):/.exec(d.headers.signature ?? '')?.[1];
      if (token !== undefined && /^[A-Za-z0-9_-]+$/.test(token)) return OK;
      return fail(d, 'the sig1 Signature token is not unpadded base64url (webhook v1 signers emit base64url, digest 1.5)', {
        expected: 'sig1=:<unpadded base64url>:',
        actual: cutText(d.headers.signature ?? '', 200),
      });
    }),
  params_order: (snap) =>
    every(snap, (d) => {
      const missing = signatureOf(d);
      if (missing) return missing;
      const member = /(?:^|,)\s*sig1=\([^)]*\)([^,]*)/.exec(d.headers['signature-input'] ?? '')?.[1] ?? '';
      const order = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'];
      const names = [...member.matchAll(/;\s*([a-z0-9_.*-]+)=/g)].map((m) => m[1]!).filter((n) => order.includes(n));
      const sorted = [...names].sort((a, b) => order.indexOf(a) - order.indexOf(b));
      if (names.length > 0 && names.join() === sorted.join()) return OK;
      return fail(d, `parameters listed ${names.join(', ') || '(none)'}; the profile lists ${order.join(', ')} (digest 1.8)`, {
        expected: order,
        actual: names,
      });
    }),
  fresh_nonce: (snap) => {
    const signed = snap.deliveries.filter((d) => d.signature?.nonce !== undefined);
    if (signed.length < 2)
      return fail(undefined, `needs at least two signed attempts to compare nonces; got ${signed.length} of ${snap.count} deliveries with a signature`);
    const seen = new Map<string, number>();
    for (const d of signed) {
      const first = seen.get(d.signature!.nonce!);
      if (first !== undefined) return fail(d, `reuses the nonce of delivery ${first} (every attempt needs a fresh nonce)`, { actual: d.signature!.nonce });
      seen.set(d.signature!.nonce!, d.n);
      if (d.verify_code?.endsWith('_replayed')) return fail(d, `rejected as a replay: ${d.verify_detail ?? ''}`);
    }
    return OK;
  },
  hmac: (snap, _p, ctx) =>
    every(snap, (d) => {
      for (const h of [ctx.ids.hmacSignatureHeader, ctx.ids.hmacTimestampHeader])
        if (d.headers[h.toLowerCase()] === undefined) return fail(d, `has no ${h} header`, { actual: d.headers });
      if (d.headers['signature-input'] !== undefined || d.headers.signature !== undefined)
        return fail(d, 'also carries an RFC 9421 signature: a webhook is signed one way only (digest 1.16)');
      if (!d.verified) return fail(d, `HMAC-SHA256 does not verify with the registered secret: ${d.verify_detail ?? ''}`);
      return isCompactJson(d.raw) ? OK : fail(d, 'the body is not serialized with compact separators (interface spec 5.2)', { actual: cutText(d.raw, 200) });
    }),
  one_key: (snap) => {
    if (snap.count < 2) return fail(undefined, `needs at least two attempts; got ${snap.count}`);
    const keys = snap.deliveries.map((d) => d.idempotency_key ?? null);
    const first = keys[0];
    const other = keys.findIndex((k) => k !== first || k === null);
    return other < 0
      ? OK
      : fail(snap.deliveries[other], `carries idempotency_key ${JSON.stringify(keys[other])}, the first attempt carried ${JSON.stringify(first)}`, {
          expected: first,
          actual: keys,
        });
  },
  same_payload: (snap) => {
    if (snap.count < 2) return fail(undefined, `needs at least two attempts; got ${snap.count}`);
    const first = withoutKey(snap.deliveries[0]!.body);
    const d = snap.deliveries.find((x) => !isDeepStrictEqual(withoutKey(x.body), first));
    return d
      ? fail(d, 'the payload differs from the first attempt (every member, timestamp included, stays the same across retries)', {
          expected: snap.deliveries[0]!.body,
          actual: d.body,
        })
      : OK;
  },
  keys_unique_per_event: (snap) => {
    const empty = nonEmpty(snap);
    if (empty) return empty;
    const byKey = new Map<string, DeliveryView>();
    for (const d of snap.deliveries) {
      if (d.idempotency_key === undefined) return fail(d, 'has no idempotency_key');
      const prev = byKey.get(d.idempotency_key);
      if (prev && !isDeepStrictEqual(prev.body, d.body)) {
        return fail(d, `reuses idempotency_key ${d.idempotency_key} of delivery ${prev.n} for a different event`, { expected: prev.body, actual: d.body });
      }
      byKey.set(d.idempotency_key, prev ?? d);
    }
    return OK;
  },
  sequence_increasing: (snap) => {
    const events = snap.keys.map((k) => snap.deliveries.find((d) => d.idempotency_key === k)!);
    if (events.length < 2) return fail(undefined, `needs at least two reports; got ${events.length}`);
    const rows = events.map((d) => ({
      d,
      seq: resolvePointer(d.body, '/result/sequence_number').value,
      imp: resolvePointer(d.body, '/result/media_buy_deliveries/0/totals/impressions').value,
    }));
    const bad = rows.find((r) => !Number.isInteger(r.seq));
    if (bad) return fail(bad.d, `result.sequence_number is ${JSON.stringify(bad.seq ?? null)}, not an integer`);
    rows.sort((a, b) => (a.seq as number) - (b.seq as number));
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      if (a.seq === b.seq) return fail(b.d, `repeats sequence_number ${String(b.seq)} of delivery ${a.d.n} for another report`);
      if (typeof a.imp === 'number' && typeof b.imp === 'number' && b.imp < a.imp) {
        return fail(
          b.d,
          `sequence_number ${String(b.seq)} reports fewer cumulative impressions (${b.imp}) than sequence_number ${String(a.seq)} (${a.imp}): the numbers do not follow the order of the reports`,
        );
      }
    }
    return OK;
  },
  /**
   * A delivery announces the buy in the given status: some object of its body names the buy
   * (media_buy_id) with that `status` / `media_buy_status` (the spec shows no payload for the
   * announcement, so where it sits is not judged). When the agent declares webhook signing, that
   * delivery must verify with the seller's published key (spec 3.1: a signed webhook).
   */
  buy_announced: (snap, p, ctx) => {
    const empty = nonEmpty(snap);
    if (empty) return empty;
    const id = p.media_buy_id ?? '';
    const want = p.status ?? 'active';
    const naming = snap.deliveries.filter((d) => buyObjects(d.body, id).some((o) => o.status === want || o.media_buy_status === want));
    if (naming.length === 0) {
      return fail(undefined, `no delivery names media buy ${JSON.stringify(id)} with status ${JSON.stringify(want)}`, {
        expected: { media_buy_id: id, status: want },
        actual: snap.deliveries.map((d) => d.body),
      });
    }
    const signs = lookupCapability(ctx.profile?.capabilities, '/webhook_signing/supported', ctx.ids);
    if (!(signs.found && signs.value === true) || snap.mode !== 'signature') return OK;
    if (naming.some((d) => d.verified)) return OK;
    const d = naming[0]!;
    return fail(d, `announces the buy, but its signature does not verify: ${d.verify_code ?? 'no code'}: ${d.verify_detail ?? ''}`.trim(), {
      actual: d.signature ?? d.headers,
    });
  },
  /**
   * A config change applies from the next fire (spec 6.5 rule 11): of the fires made after the
   * change (events at the old URL that were not there before it, plus those at the new URL), at
   * most `max_old` reach the old URL, and every one of them precedes, by sequence_number, every
   * fire at the new URL (no ordering is guaranteed on arrival, so reports are placed by number).
   */
  switched: (snap, p) => {
    if (!p.old || !p.before) return fail(undefined, 'the switched rule needs old and before snapshots');
    const max = p.max_old ?? MAX_FIRES_TO_OLD_URL;
    const earlier = new Set(p.before.keys);
    const lateKeys = p.old.keys.filter((k) => !earlier.has(k));
    const late = lateKeys.map((k) => p.old!.deliveries.find((d) => d.idempotency_key === k)!);
    const fresh = snap.keys.length > 0 ? snap.keys.map((k) => snap.deliveries.find((d) => d.idempotency_key === k)!) : snap.deliveries;
    const row = (d: DeliveryView) => ({ n: d.n, sequence_number: seqOf(d) ?? null, idempotency_key: d.idempotency_key ?? null });
    const actual = { old_url_after_change: late.map(row), new_url: fresh.map(row) };
    if (fresh.length === 0) return fail(undefined, 'no fire reached the new URL', { actual });
    if (late.length > max) {
      return fail(undefined, `${late.length} fires after the change still reached the old URL; at most ${max} may (the change applies from the next fire)`, {
        expected: { max_fires_to_old_url: max },
        actual,
      });
    }
    const lastOld = Math.max(...late.map((d) => seqOf(d) ?? Number.NEGATIVE_INFINITY));
    const firstNew = Math.min(...fresh.map((d) => seqOf(d) ?? Number.POSITIVE_INFINITY));
    if (lastOld > firstNew) {
      return fail(
        undefined,
        `sequence_number ${lastOld} went to the old URL after sequence_number ${firstNew} had gone to the new one: the seller switched back`,
        {
          actual,
        },
      );
    }
    return OK;
  },
  transient_401: (snap, p) => {
    const r = answered401(snap, p);
    if ('ok' in r) return r;
    const retried = r.later.some((d) => eventId(d, r.by) === r.id);
    if (!retried)
      return fail(r.d401, 'was answered 401 and never retried: a 401 is a transient receiver error (interface spec 6.5 rule 12)', {
        actual: snap.deliveries.map((d) => ({ n: d.n, answered: d.answered })),
      });
    if (!r.later.some((d) => eventId(d, r.by) !== r.id))
      return fail(undefined, 'no later event reached the receiver after its 401: the webhook looks disabled', {
        actual: snap.deliveries.map((d) => ({ n: d.n, answered: d.answered })),
      });
    return OK;
  },
  terminal_401: (snap, p) => {
    const r = answered401(snap, p);
    if ('ok' in r) return r;
    const again = r.later.find((d) => eventId(d, r.by) === r.id);
    if (again)
      return fail(
        again,
        `retries the event that the receiver refused with 401 Signature error="webhook_*" in delivery ${r.d401.n} (terminal for that delivery, digest 5.6)`,
      );
    if (!r.later.some((d) => eventId(d, r.by) !== r.id))
      return fail(undefined, 'no later event reached the receiver: the seller stopped sending other events after a signature refusal');
    return OK;
  },
};

export const RULE_NAMES = Object.keys(RULES);
