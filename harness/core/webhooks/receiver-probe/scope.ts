/**
 * Per-check state of the webhook-receiver step kinds: the check's base time (event timestamps
 * are offsets from it), the aliases of task ids and idempotency keys, and what each send step
 * put on the wire (so a later step can resend the same event or replay the exact bytes).
 */
import type { CheckContext } from '../../engine/kinds/types.js';
import type { AuthOverride } from '../../transport/types.js';

export interface SentWebhook {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The unsigned event bytes (a resend re-signs these). */
  eventBytes: Buffer;
  taskId: string;
  idempotencyKey: string;
  /** How the client authenticates the POST (legacy Bearer), when not by the headers alone. */
  auth?: AuthOverride;
  /** The signature's `expires` (unix seconds), for an RFC 9421 signed delivery. */
  expires?: number;
}

interface Scope {
  baseMs: number;
  sent: Map<string, SentWebhook>;
}

const scopes = new WeakMap<CheckContext, Scope>();

export function scopeOf(ctx: CheckContext): Scope {
  let s = scopes.get(ctx);
  if (!s) {
    s = { baseMs: Date.now(), sent: new Map() };
    scopes.set(ctx, s);
  }
  return s;
}

/** The value behind an alias: the same alias is the same value within one check run. */
export function aliasValue(ctx: CheckContext, kind: 'task' | 'key' | 'op' | 'ctx' | 'notification', name: string): string {
  return ctx.random.alias('uuid', `receiver-${kind}:${name}`, (r) => r.uuid());
}

const OFFSET = /^([+-])(\d{1,6})(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export function parseOffset(text: string): number {
  const m = OFFSET.exec(text);
  if (!m) throw new Error(`bad time offset ${JSON.stringify(text)}: expected e.g. +0s, -60s, -5m`);
  return (m[1] === '-' ? -1 : 1) * Number(m[2]) * UNIT_MS[m[3] as keyof typeof UNIT_MS];
}

export const OFFSET_PATTERN = OFFSET.source;
