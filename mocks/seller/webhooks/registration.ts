/**
 * Webhook registrations (`push_notification_config`, `reporting_webhook`; interface spec 2.7):
 * which URL, which `operation_id` to echo, and which authentication mode. The mode is a switch
 * (digest 1.16): no `authentication` block → RFC 9421; `HMAC-SHA256` → legacy HMAC with the
 * shared secret. Legacy Bearer gives no body integrity and is refused for these mutating
 * callbacks (interface spec 5.3); a registration without `operation_id` is refused too
 * (interface spec 6.1 rule 1 allows it, and the envelope cannot be correlated without it), except
 * on a 3.0 seller (`operationIdFromUrl`): 3.0 has no such member and its contract takes the id
 * from the URL's last path segment, so that is what it echoes.
 */
import { LegacyConfigError, assertLegacySecret } from '../../../harness/core/signing/legacy/legacy-hmac.js';
import { WebhookModeError, webhookMode, type WebhookAuthentication } from '../../../harness/core/signing/verify/webhook-mode.js';
import { invalidRequest } from '../domain/errors.js';
import { isPlainObject } from '../domain/task-def.js';

export interface WebhookRegistration {
  url: string;
  operation_id: string;
  mode: 'rfc9421' | 'hmac-sha256';
  /** HMAC shared secret (never logged). */
  secret?: string;
  /** `push_notification_config.token`, echoed as `token` (digest 5.2). */
  token?: string;
}

/** Parses a registration or throws INVALID_REQUEST naming the offending field. */
export function parseRegistration(
  value: unknown,
  field: string,
  log: (line: string) => void = () => {},
  opts: { acceptBearer?: boolean; acceptShortSecret?: boolean; operationIdFromUrl?: boolean } = {},
): WebhookRegistration {
  if (!isPlainObject(value)) throw invalidRequest(field, 'must be an object {url, operation_id, authentication?}');
  const url = value.url;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || !URL.canParse(url)) throw invalidRequest(`${field}.url`, 'expected an http(s) URL');
  const operationId = value.operation_id ?? (opts.operationIdFromUrl ? lastSegment(url) : undefined);
  if (typeof operationId !== 'string' || operationId === '') {
    throw invalidRequest(`${field}.operation_id`, 'required: the buyer-generated correlation id echoed on every delivery (interface spec 6.1 rule 1)');
  }
  const token = typeof value.token === 'string' ? value.token : undefined;
  const auth = value.authentication;
  if (auth !== undefined && !isPlainObject(auth)) throw invalidRequest(`${field}.authentication`, 'must be an object {schemes, credentials}');
  let mode;
  try {
    mode = webhookMode(auth as WebhookAuthentication | undefined);
  } catch (err) {
    if (err instanceof WebhookModeError) throw invalidRequest(`${field}.authentication.schemes`, err.message);
    throw err;
  }
  if (auth !== undefined) log(`webhook registration ${field} carries an authentication block (${mode})`);
  // The bearer-accepted fault takes the registration and signs its webhooks with RFC 9421 instead.
  if (mode === 'bearer' && opts.acceptBearer) return { url, operation_id: operationId, mode: 'rfc9421', ...(token !== undefined ? { token } : {}) };
  if (mode === 'bearer') {
    throw invalidRequest(
      `${field}.authentication.schemes`,
      'Bearer gives no body integrity and is refused for mutating callbacks (interface spec 5.3); omit authentication for RFC 9421 signatures',
    );
  }
  if (mode === 'rfc9421') return { url, operation_id: operationId, mode, ...(token !== undefined ? { token } : {}) };
  const secret = (auth as WebhookAuthentication).credentials;
  try {
    if (!opts.acceptShortSecret || typeof secret !== 'string' || secret === '') assertLegacySecret(secret as string);
  } catch (err) {
    if (err instanceof LegacyConfigError) throw invalidRequest(`${field}.authentication.credentials`, err.message);
    throw err;
  }
  return { url, operation_id: operationId, mode, secret, ...(token !== undefined ? { token } : {}) };
}

/** The registration, or undefined when none is stored or it no longer parses. */
export function registrationOf(value: unknown): WebhookRegistration | undefined {
  if (value === undefined) return undefined;
  try {
    return parseRegistration(value, 'registration');
  } catch {
    return undefined;
  }
}

/** The URL's last non-empty path segment (the 3.0 contract's operation id), undefined without one. */
function lastSegment(url: string): string | undefined {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (last === undefined) return undefined;
  try {
    return decodeURIComponent(last).slice(0, 255);
  } catch {
    return last.slice(0, 255);
  }
}
