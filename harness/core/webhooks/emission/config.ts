/**
 * Settings of the harness's webhook capture receiver (the `webhooks` suite, grading a seller's
 * webhook emission). The receiver listens on loopback; a seller that is not on this machine
 * needs a public URL that forwards to it (digest 2.7 `proxy_url` mode):
 *
 *   <TOKEN>_RUNNER_WEBHOOK_BASE_URL   public base URL the seller is given (https unless loopback)
 *   PROTO_COMPLY_WEBHOOK_LISTEN       host:port the receiver listens on (default 127.0.0.1:0;
 *                                     set the port your tunnel or reverse proxy forwards to)
 *   PROTO_COMPLY_WEBHOOK_WAIT_S       longest wait for an expected delivery, per step (default 10 s
 *                                     for a seller on loopback, 30 s otherwise)
 *   PROTO_COMPLY_WEBHOOK_QUIET_S      how long "nothing more arrives" is watched (default 0.75 s on
 *                                     loopback, 5 s otherwise; raise it for sellers that retry slowly)
 */
import type { ProtocolIds } from '../../token.js';

/** Defaults for a seller on this machine / elsewhere. */
export const DEFAULT_WAIT_MS = { local: 10_000, remote: 30_000 } as const;
export const DEFAULT_QUIET_MS = { local: 750, remote: 5_000 } as const;
/** Receivers should enforce 1 MB (interface spec 8); larger bodies are answered 413 and recorded. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;
export const LISTEN_ENV = 'PROTO_COMPLY_WEBHOOK_LISTEN';
export const WAIT_ENV = 'PROTO_COMPLY_WEBHOOK_WAIT_S';
export const QUIET_ENV = 'PROTO_COMPLY_WEBHOOK_QUIET_S';

export interface EmissionSettings {
  /** Base URL the seller is given; undefined: the receiver's own loopback address. */
  publicBaseUrl?: string;
  listenHost: string;
  listenPort: number;
  /** Explicit overrides (environment); undefined: the local / remote default applies. */
  waitMs?: number;
  quietMs?: number;
}

/** The wait limit and quiet period for a seller at `endpoint`. */
export function timing(settings: EmissionSettings, endpoint: string): { waitMs: number; quietMs: number } {
  const where = isLoopbackHost(new URL(endpoint).hostname) ? 'local' : 'remote';
  return { waitMs: settings.waitMs ?? DEFAULT_WAIT_MS[where], quietMs: settings.quietMs ?? DEFAULT_QUIET_MS[where] };
}

export class EmissionConfigError extends Error {
  override name = 'EmissionConfigError';
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

function seconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new EmissionConfigError(`${name} must be a number of seconds in (0, 3600], got ${JSON.stringify(raw)}`);
  return Math.round(n * 1000);
}

export function emissionSettings(ids: ProtocolIds, env: NodeJS.ProcessEnv = process.env): EmissionSettings {
  let publicBaseUrl: string | undefined;
  const base = env[ids.runnerWebhookEnv];
  if (base !== undefined && base !== '') {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new EmissionConfigError(`${ids.runnerWebhookEnv} is not a URL: ${JSON.stringify(base)}`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new EmissionConfigError(`${ids.runnerWebhookEnv} must be an https URL (plain http only on loopback)`);
    }
    if (url.search || url.hash || url.username || url.password)
      throw new EmissionConfigError(`${ids.runnerWebhookEnv} must be a plain base URL (no query, fragment or credentials)`);
    publicBaseUrl = url.href.replace(/\/+$/, '');
  }
  let listenHost = '127.0.0.1';
  let listenPort = 0;
  const listen = env[LISTEN_ENV];
  if (listen !== undefined && listen !== '') {
    const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(listen);
    if (!m || Number(m[2]) > 65535) throw new EmissionConfigError(`${LISTEN_ENV} must be host:port or port, got ${JSON.stringify(listen)}`);
    if (m[1]) listenHost = m[1].replace(/^\[|\]$/g, '');
    listenPort = Number(m[2]);
  }
  return { publicBaseUrl, listenHost, listenPort, waitMs: seconds(env, WAIT_ENV), quietMs: seconds(env, QUIET_ENV) };
}
