/**
 * Input validation helpers (zod). Every task schema extends the envelope every tool must accept
 * (digest 3.7); unknown extra fields are kept, never rejected. A validation failure becomes
 * INVALID_REQUEST naming the first offending field.
 */
import { z } from 'zod';
import { invalidRequest, type TaskFailure } from './errors.js';

/** Fields every task accepts, reads included (digest 3.7, interface spec 4.3). */
export const envelopeShape = {
  $schema: z.string().optional(),
  idempotency_key: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  context_id: z.string().optional(),
  governance_context: z.unknown().optional(),
  push_notification_config: z.unknown().optional(),
  ext: z.record(z.string(), z.unknown()).optional(),
};

export function taskSchema<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.looseObject({ ...envelopeShape, ...shape });
}

export const domainName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'expected a domain name');

export const httpUrl = z.url().refine((v) => /^https?:\/\//i.test(v), 'expected an http(s) URL');

export const isoDateTime = z.iso.datetime({ offset: true });

export const brandRef = z.looseObject({ domain: domainName });

/** Account reference (interface spec 2.5a). */
export const accountRef = z.union(
  [z.looseObject({ account_id: z.string().min(1).max(255) }), z.looseObject({ brand: brandRef, operator: z.string().min(1).max(255) })],
  { error: 'expected {account_id} or {brand: {domain}, operator}' },
);
export type AccountRef = z.infer<typeof accountRef>;

export const formatId = z.looseObject({ agent_url: httpUrl, id: z.string().min(1) });

/** Push notification config (interface spec 2.7). */
export const pushNotificationConfig = z.looseObject({
  url: httpUrl,
  operation_id: z.string().min(1).max(255).optional(),
  token: z.string().optional(),
  authentication: z
    .looseObject({
      schemes: z.array(z.string().min(1)).min(1),
      // Its length (32 characters at least, spec 2.7) is judged with the registration (webhooks/registration.ts).
      credentials: z.string().optional(),
    })
    .optional(),
});

/** Scope key of an account reference; empty when the task carries no account. */
export function accountKeyOf(ref: unknown): string {
  if (typeof ref !== 'object' || ref === null) return '';
  const r = ref as Record<string, unknown>;
  if (typeof r.account_id === 'string') return `id:${r.account_id}`;
  const brand = r.brand as Record<string, unknown> | undefined;
  if (brand && typeof brand.domain === 'string' && typeof r.operator === 'string') {
    return `brand:${brand.domain.toLowerCase()}|${r.operator}`;
  }
  return '';
}

/** `['packages', 0, 'budget']` → `packages[0].budget` (JSONPath-lite, digest 3.6). */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(arguments)';
}

export function toValidationFailure(error: z.ZodError): TaskFailure {
  const issue = error.issues[0];
  const field = fieldPath(issue.path);
  return invalidRequest(field, issue.message);
}
