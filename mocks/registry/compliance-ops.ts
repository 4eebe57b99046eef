/**
 * The mock registry's Agent Compliance operations (digest 6.3), from its store: a registered
 * agent's compliance detail, history and verification; role badges (SVG and embed) with 400
 * invalid_role; a public badge-token JWKS; the storyboard status for members, one agent or up to
 * 100 at once; the owner's diagnostics, monitoring settings, pause, interval (6 to 168 hours),
 * requeue and refresh (409 while paused; the mock probes nothing); the owner's lifecycle stage and
 * opt-out (an opted-out agent's detail is minimal, status `opted_out`, and it holds no badge); the
 * applicable storyboards, always 500 reason `unknown` (the mock reads no agent's capabilities).
 * Each rule breakable by its fault (faults.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-error.js';
import type { AgentSettings, MockRegistryStore, RegistryAgent } from './store.js';

/** Digest 6.3: the six badge roles. */
export const BADGE_ROLES = ['media-buy', 'creative', 'signals', 'governance', 'brand', 'sponsored-intelligence'] as const;
/** Digest 6.3: the lifecycle stages. */
export const LIFECYCLE_STAGES = ['development', 'testing', 'production', 'deprecated'] as const;
/** Digest 6.3: `interval_hours 6–168`. */
export const MIN_INTERVAL_HOURS = 6;
export const MAX_INTERVAL_HOURS = 168;
/** Digest 6.3: the bulk storyboard status takes `agent_urls[≤100]`. */
export const MAX_BULK_URLS = 100;

/** The role a task's agent is verified in (the mock's own mapping: the first task of a role decides). */
const ROLE_OF_TASK: Readonly<Record<string, (typeof BADGE_ROLES)[number]>> = {
  get_products: 'media-buy',
  create_media_buy: 'media-buy',
  build_creative: 'creative',
  list_creative_formats: 'creative',
  get_signals: 'signals',
  activate_signal: 'signals',
  get_brand_identity: 'brand',
};

/** The badge-token signing key's public half, as the registry's JWKS publishes it (the mock signs nothing with it). */
function badgeJwks(withPrivate: boolean): { keys: Array<Record<string, unknown>> } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const key = {
    ...pub,
    ...(withPrivate ? { d: (privateKey.export({ format: 'jwk' }) as Record<string, unknown>).d } : {}),
    kid: 'mock-badge-1',
    alg: 'EdDSA',
    use: 'sig',
  };
  return { keys: [key] };
}

export interface ComplianceOpsOptions {
  store: MockRegistryStore;
  faults: ReadonlySet<string>;
  now: () => number;
  send: (res: ServerResponse, status: number, body: unknown, type?: string) => void;
  /** The caller's API key: undefined without credentials; throws 401 when `required` and absent, or for a key the registry does not know. */
  apiKey: (req: IncomingMessage, required: boolean, skip: boolean) => string | undefined;
  readJson: (req: IncomingMessage, oversized500: boolean) => Promise<Record<string, unknown>>;
}

/** The body holds `name`, of the type `ok` accepts (400 otherwise). */
function member<T>(body: Record<string, unknown>, name: string, ok: (v: unknown) => v is T, what: string): T {
  if (!ok(body[name])) throw new HttpError(400, 'invalid_body', `${name} must be ${what}`);
  return body[name] as T;
}
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';

/**
 * The Agent Compliance operations: serves the request and answers true when its path is one of
 * them (under `/api/registry/agents/{encodedUrl}/…`, the bulk storyboard status, the badge JWKS).
 */
export function createComplianceOperations(o: ComplianceOpsOptions): (req: IncomingMessage, res: ServerResponse, url: URL, method: string) => Promise<boolean> {
  const { store, faults, send } = o;
  const jwks = badgeJwks(faults.has('badge-jwks-private-member'));
  const iso = (t: number) => new Date(t).toISOString();

  const requireMember = (req: IncomingMessage, skip: boolean): void => {
    if (!skip && o.apiKey(req, false, false) === undefined)
      throw new HttpError(403, 'members_only', 'the storyboard status is for members (an organization API key)', { members_only: true });
  };

  /** The storyboard statuses of an agent (the mock keeps none), or its opt-out. */
  const statusesOf = (agent: RegistryAgent): unknown[] | { status: 'opted_out' } => (store.settings(agent.agent_url).opt_out ? { status: 'opted_out' } : []);

  const metadata = (agentUrl: string, s: AgentSettings) => ({
    agent_url: agentUrl,
    lifecycle_stage: s.lifecycle_stage,
    compliance_opt_out: s.opt_out,
    monitoring_paused: s.monitoring_paused,
    check_interval_hours: s.check_interval_hours,
  });

  /** `GET …/monitoring/settings` (digest 6.3), also the answer of the pause and interval writes. */
  const monitoringView = (s: AgentSettings) => ({
    monitoring_paused: s.monitoring_paused,
    check_interval_hours: s.check_interval_hours,
    monitoring_paused_at: s.monitoring_paused_at === null ? null : iso(s.monitoring_paused_at),
  });

  const bulkStatus = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requireMember(req, false);
    const body = await o.readJson(req, false);
    const urls = body.agent_urls;
    if (!Array.isArray(urls) || urls.length === 0 || urls.some((u) => typeof u !== 'string'))
      throw new HttpError(400, 'invalid_body', 'agent_urls must be a non-empty list of agent URLs');
    if (urls.length > MAX_BULK_URLS && !faults.has('bulk-status-uncapped'))
      throw new HttpError(400, 'too_many_urls', `agent_urls holds ${urls.length} URLs; at most ${MAX_BULK_URLS}`);
    const agents: Record<string, unknown> = {};
    const invalid: string[] = [];
    for (const u of urls as string[]) {
      const agent = u.length <= 2_048 ? store.agent(u) : undefined;
      if (agent) agents[u] = statusesOf(agent);
      else invalid.push(u.slice(0, 2_048));
    }
    const listed = faults.has('bulk-status-agents-array') ? Object.entries(agents).map(([agent_url, storyboards]) => ({ agent_url, storyboards })) : agents;
    send(res, 200, { agents: listed, ...(invalid.length ? { invalid_urls: invalid } : {}) });
  };

  /** Digest 6.3's operations of one registered agent (`encoded`: its URL-encoded agent_url). */
  const agentOperation = async (req: IncomingMessage, res: ServerResponse, url: URL, method: string, encoded: string, op: string): Promise<void> => {
    let agentUrl: string;
    try {
      agentUrl = decodeURIComponent(encoded);
    } catch {
      throw new HttpError(400, 'invalid_agent_url', 'the agent URL in the path is not URL-encoded correctly');
    }
    const agent = store.agent(agentUrl);
    if (!agent) {
      if (op === 'compliance' && method === 'GET' && faults.has('unknown-agent-200'))
        return send(res, 200, { agent_url: agentUrl, status: 'unknown', lifecycle_stage: 'production' });
      throw new HttpError(404, 'not_found', `no agent ${agentUrl.slice(0, 200)} is registered`);
    }
    const settings = store.settings(agent.agent_url);
    const latest = store.runs(agent.agent_url, 1)[0];
    const status = latest ? (latest.overall_status === 'partial' ? 'degraded' : latest.overall_status) : 'unknown';
    /** The owner's key: 401 without one (or an unknown one), 403 for a key of another organization. */
    const owner = (skip: boolean): void => {
      if (skip) return;
      const key = o.apiKey(req, true, false);
      const org = key === undefined ? undefined : store.keyOrg(key)?.orgId;
      if (agent.orgId === null || org !== agent.orgId) throw new HttpError(403, 'forbidden', "only the agent's owner may do this");
    };
    const update = (patch: Partial<AgentSettings>) => store.updateSettings(agent.agent_url, patch);
    // Opting out revokes the badges at once (digest 6.3).
    const badges = () =>
      status !== 'passing' || settings.opt_out
        ? []
        : [...new Set(agent.capabilities.map((c) => ROLE_OF_TASK[c]).filter((r) => r !== undefined))].map((role) => ({
            role,
            proto_version: '3.0',
            verified_at: iso(latest!.tested_at),
            verified_specialisms: [],
            verification_modes: faults.has('badge-without-modes') ? [] : ['spec'],
            verified_protocol_version: '3.0',
          }));
    const badge = /^badge\/([^/]+?)(?:\.svg|\/embed)$/.exec(op);
    if (badge && method === 'GET') {
      const role = decodeURIComponent(badge[1]!);
      if (!(BADGE_ROLES as readonly string[]).includes(role)) {
        if (faults.has('invalid-role-404')) throw new HttpError(404, 'not_found', `no badge ${role.slice(0, 64)}`);
        const message = `role must be one of ${BADGE_ROLES.join(', ')}`;
        throw new HttpError(400, 'invalid_role', message, { code: 'invalid_role', message, valid_roles: BADGE_ROLES });
      }
      const verified = badges().some((b) => b.role === role);
      const label = `${role}: ${verified ? 'verified 3.0' : 'not verified'}`;
      if (op.endsWith('.svg'))
        return send(
          res,
          200,
          `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="20"><text x="4" y="14">${label}</text></svg>`,
          faults.has('badge-svg-as-text') ? 'text/plain' : 'image/svg+xml',
        );
      const base = `http://${req.headers.host ?? 'registry.invalid'}`;
      const svgUrl = `${base}/api/registry/agents/${encodeURIComponent(agent.agent_url)}/badge/${role}.svg`;
      return send(res, 200, {
        agent_url: agent.agent_url,
        role,
        verified,
        ...(verified ? { proto_version: '3.0' } : {}),
        badge_svg_url: svgUrl,
        registry_url: base,
        html: `<img src="${svgUrl}" alt="${label}">`,
        ...(faults.has('badge-embed-without-markdown') ? {} : { markdown: `![${label}](${svgUrl})` }),
      });
    }
    if (method === 'GET' && op === 'compliance') {
      // An opted-out agent gets the minimal response (digest 6.3).
      if (settings.opt_out && !faults.has('opted-out-status-kept'))
        return send(res, 200, { agent_url: agent.agent_url, status: 'opted_out', lifecycle_stage: settings.lifecycle_stage, compliance_opt_out: true });
      return send(res, 200, {
        agent_url: agent.agent_url,
        status: faults.has('compliance-bad-status') ? 'ok' : status,
        lifecycle_stage: settings.lifecycle_stage,
        compliance_opt_out: settings.opt_out,
        check_interval_hours: settings.check_interval_hours,
        ...(latest ? { last_checked_at: iso(latest.tested_at) } : {}),
      });
    }
    if (method === 'GET' && op === 'compliance/history') {
      const asked = Number(url.searchParams.get('limit') ?? 30);
      const limit = !Number.isInteger(asked) || asked < 1 ? 30 : faults.has('history-limit-unclamped') ? asked : Math.min(asked, 100);
      const runs = store.runs(agent.agent_url, limit).map((r) => ({
        id: String(r.id),
        overall_status: r.overall_status,
        headline: r.overall_status,
        tracks_passed: r.overall_status === 'passing' ? 1 : 0,
        tracks_failed: r.overall_status === 'failing' ? 1 : 0,
        tracks_skipped: 0,
        tracks_partial: 0,
        tracks_json: {},
        total_duration_ms: 0,
        triggered_by: 'schedule',
        tested_at: iso(r.tested_at),
      }));
      return send(res, 200, { agent_url: agent.agent_url, runs, ...(faults.has('history-without-count') ? {} : { count: runs.length }) });
    }
    if (method === 'GET' && op === 'verification') {
      const held = badges();
      return send(res, 200, { agent_url: agent.agent_url, verified: held.length > 0, badges: held });
    }
    if (method === 'GET' && op === 'storyboard-status') {
      requireMember(req, faults.has('storyboard-status-public'));
      const statuses = statusesOf(agent);
      const list = Array.isArray(statuses) ? statuses : [];
      return send(res, 200, { agent_url: agent.agent_url, storyboards: list, passing_count: 0, total_count: list.length });
    }
    if (method === 'GET' && op === 'compliance/diagnostics') {
      owner(false);
      return send(res, 200, { agent_url: agent.agent_url, run_id: latest ? String(latest.id) : null, count: 0, diagnostics: [] });
    }
    if (method === 'GET' && op === 'monitoring/settings') {
      owner(faults.has('monitoring-settings-public'));
      return send(res, 200, monitoringView(settings));
    }
    if (method === 'PUT' && op === 'monitoring/pause') {
      owner(false);
      const paused = member(await o.readJson(req, false), 'paused', isBool, 'true or false');
      const s = update({ monitoring_paused: paused, monitoring_paused_at: paused ? (settings.monitoring_paused_at ?? o.now()) : null });
      return send(res, 200, monitoringView(s));
    }
    if (method === 'PUT' && op === 'monitoring/interval') {
      owner(false);
      const lo = faults.has('monitoring-interval-unbounded') ? 1 : MIN_INTERVAL_HOURS;
      const hi = faults.has('monitoring-interval-unbounded') ? 10_000 : MAX_INTERVAL_HOURS;
      const ok = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;
      const hours = member(await o.readJson(req, false), 'interval_hours', ok, `a whole number of hours from ${MIN_INTERVAL_HOURS} to ${MAX_INTERVAL_HOURS}`);
      const s = update({ check_interval_hours: hours });
      return send(res, 200, monitoringView(s));
    }
    if (method === 'POST' && op === 'monitoring/requeue') {
      owner(false);
      update({ requeued_at: o.now() });
      return send(res, 200, { requeued: true });
    }
    if (method === 'PUT' && op === 'lifecycle') {
      owner(false);
      const isStage = (v: unknown): v is string => (LIFECYCLE_STAGES as readonly unknown[]).includes(v);
      const stage = member(await o.readJson(req, false), 'lifecycle_stage', isStage, `one of ${LIFECYCLE_STAGES.join(', ')}`);
      const s = faults.has('lifecycle-not-persisted') ? { ...settings, lifecycle_stage: stage } : update({ lifecycle_stage: stage });
      return send(res, 200, metadata(agent.agent_url, s));
    }
    if (method === 'PUT' && op === 'compliance/opt-out') {
      owner(false);
      const optOut = member(await o.readJson(req, false), 'opt_out', isBool, 'true or false');
      return send(res, 200, metadata(agent.agent_url, update({ opt_out: optOut })));
    }
    if (method === 'GET' && op === 'applicable-storyboards') {
      // Digest 6.3: capabilities that cannot be read → 500 with the reason. The mock reads none.
      throw new HttpError(500, 'capabilities_unreadable', 'the mock registry reads no agent capabilities', {
        agent_url: agent.agent_url,
        ...(faults.has('applicable-storyboards-no-reason') ? {} : { reason: 'unknown' }),
      });
    }
    if (method === 'POST' && op === 'refresh') {
      owner(false);
      // Digest 6.3: paused monitoring → 409.
      if (settings.monitoring_paused && !faults.has('refresh-while-paused'))
        throw new HttpError(409, 'monitoring_paused', `monitoring of ${agent.agent_url} is paused; resume it before refreshing`);
      // The mock probes nothing: a refresh records nothing and says so.
      return send(res, 200, {
        online: false,
        tools_count: 0,
        response_time_ms: 0,
        checked_at: iso(o.now()),
        error: 'the mock registry probes no agent',
        compliance: { ran: false },
      });
    }
    throw new HttpError(404, 'not_found', `${method} ${url.pathname} is not served`);
  };

  return async (req, res, url, method) => {
    const path = url.pathname;
    if (path === '/api/.well-known/jwks.json' && method === 'GET') {
      send(res, 200, jwks);
      return true;
    }
    if (path === '/api/registry/agents/storyboard-status' && method === 'POST') {
      await bulkStatus(req, res);
      return true;
    }
    const op = /^\/api\/registry\/agents\/([^/]+)\/(.+)$/.exec(path);
    if (!op) return false;
    await agentOperation(req, res, url, method, op[1]!, op[2]!);
    return true;
  };
}
