/**
 * The registration table: for every receiving endpoint, the authentication its seller was told
 * to use in `push_notification_config.authentication` (interface spec 2.7). No block → RFC 9421
 * (optionally restricted to one sender's brand declaration); `HMAC-SHA256` or `Bearer` → the
 * legacy scheme with its shared credential. The mode is a switch, never a fallback (digest 1.16).
 */
import { assertLegacySecret } from '../../../harness/core/signing/legacy/legacy-hmac.js';
import { webhookMode, type WebhookAuthentication, type WebhookMode } from '../../../harness/core/signing/verify/webhook-mode.js';
import type { Db } from './db.js';

export interface EndpointSpec {
  /** `[A-Za-z0-9_-]{1,64}`; default: a random id. */
  id?: string;
  /** Default `/webhooks/<id>`. */
  path?: string;
  /** The `authentication` block given to the seller (absent: RFC 9421). */
  authentication?: WebhookAuthentication | null;
  /** RFC 9421 only: accept signatures from this trusted brand declaration only. */
  senderBrand?: string;
  /** RFC 9421 only: the endpoint belongs to this seller agent, whose keys are found from its URL (digest 1.11 bootstrap). */
  senderAgent?: string;
}

export interface EndpointInfo {
  id: string;
  path: string;
  mode: WebhookMode;
  senderBrand?: string;
  senderAgent?: string;
  createdAt: number;
}

/** What the verifier needs (credentials never leave the process through the admin API). */
export interface Registration extends EndpointInfo {
  authentication?: WebhookAuthentication;
}

export class EndpointConfigError extends Error {
  override name = 'EndpointConfigError';
}

/** Registering one more endpoint would pass the buyer's bound. */
export class EndpointLimitError extends EndpointConfigError {
  override name = 'EndpointLimitError';
}

const AGENT_PREFIX = 'agent:';
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const PATH = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,200}$/;

interface Row {
  id: string;
  path: string;
  mode: string;
  credentials: string | null;
  sender_brand: string | null;
  created_at: number;
}

function toRegistration(r: Row): Registration {
  const mode = r.mode as WebhookMode;
  const reg: Registration = { id: r.id, path: r.path, mode, createdAt: r.created_at };
  // One column holds either: a seller agent is stored as `agent:<url>`.
  if (r.sender_brand?.startsWith(AGENT_PREFIX)) reg.senderAgent = r.sender_brand.slice(AGENT_PREFIX.length);
  else if (r.sender_brand) reg.senderBrand = r.sender_brand;
  if (mode !== 'rfc9421') reg.authentication = { schemes: [mode === 'hmac-sha256' ? 'HMAC-SHA256' : 'Bearer'], credentials: r.credentials ?? '' };
  return reg;
}

export function publicInfo(r: Registration): EndpointInfo {
  const { authentication: _a, ...info } = r;
  return info;
}

export class EndpointStore {
  private readonly byPathCache = new Map<string, Registration>();
  private readonly upsert;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly randomId: () => string,
    private readonly maxEndpoints = Number.POSITIVE_INFINITY,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO endpoints (id, path, mode, credentials, sender_brand, created_at) VALUES (@id, @path, @mode, @credentials, @sender_brand, @created_at)
       ON CONFLICT(id) DO UPDATE SET path = excluded.path, mode = excluded.mode, credentials = excluded.credentials, sender_brand = excluded.sender_brand`,
    );
    this.reload();
  }

  private reload(): void {
    this.byPathCache.clear();
    for (const row of this.db.prepare('SELECT * FROM endpoints ORDER BY created_at, id').all() as Row[]) {
      this.byPathCache.set(row.path, toRegistration(row));
    }
  }

  /** Register (or replace) an endpoint. Throws EndpointConfigError on bad input. */
  register(spec: EndpointSpec): EndpointInfo {
    const id = spec.id ?? this.randomId();
    if (!ID.test(id)) throw new EndpointConfigError(`endpoint id must match ${ID}, got ${JSON.stringify(id)}`);
    const path = spec.path ?? `/webhooks/${id}`;
    if (!PATH.test(path) || path.startsWith('/_admin')) throw new EndpointConfigError(`endpoint path ${JSON.stringify(path)} is not usable`);
    let mode: WebhookMode;
    try {
      mode = webhookMode(spec.authentication);
    } catch (err) {
      throw new EndpointConfigError((err as Error).message);
    }
    const credentials = mode === 'rfc9421' ? null : (spec.authentication?.credentials ?? '');
    if (credentials !== null) {
      try {
        assertLegacySecret(credentials);
      } catch (err) {
        throw new EndpointConfigError((err as Error).message);
      }
    }
    if ((spec.senderBrand !== undefined || spec.senderAgent !== undefined) && mode !== 'rfc9421') {
      throw new EndpointConfigError('senderBrand and senderAgent apply to RFC 9421 endpoints only');
    }
    if (spec.senderBrand !== undefined && spec.senderAgent !== undefined) throw new EndpointConfigError('give senderBrand or senderAgent, not both');
    if (spec.senderAgent !== undefined && !URL.canParse(spec.senderAgent))
      throw new EndpointConfigError(`senderAgent ${JSON.stringify(spec.senderAgent)} is not a URL`);
    const taken = this.byPathCache.get(path);
    if (taken && taken.id !== id) throw new EndpointConfigError(`path ${path} is already registered as endpoint ${taken.id}`);
    const existing = [...this.byPathCache.values()].find((r) => r.id === id);
    if (!existing && this.byPathCache.size >= this.maxEndpoints) {
      throw new EndpointLimitError(`the buyer holds ${this.maxEndpoints} endpoints already (its limit); replace one by id instead`);
    }
    this.upsert.run({
      id,
      path,
      mode,
      credentials,
      sender_brand: spec.senderAgent !== undefined ? `${AGENT_PREFIX}${spec.senderAgent}` : (spec.senderBrand ?? null),
      created_at: existing?.createdAt ?? this.now(),
    });
    this.reload();
    return publicInfo(this.byPathCache.get(path)!);
  }

  byPath(path: string): Registration | undefined {
    return this.byPathCache.get(path);
  }

  list(): EndpointInfo[] {
    return [...this.byPathCache.values()].map(publicInfo);
  }
}
