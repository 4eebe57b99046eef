/**
 * The storyboards of the registry (digest 6.1–6.3) as this service has them: the built-in suites
 * (each suite a storyboard, each check × transport a step, its `track`), or, when the service was
 * given a bundle (`registry serve --storyboards DIR`), the bundle's storyboards compiled into
 * suites (compile.ts), which then replace the built-in ones (probe.ts ProbeSettings.storyboards).
 *
 * And which of them apply to an agent before anything runs (`applicable-storyboards`): its
 * profile (engine/profile.ts through certify's `profileAgent`: the same connections a run opens),
 * then, for a bundle, select.ts `selectStoryboards` as the compiled steps decide at run time, and
 * for the suites the engine's own `preflight` (check-runner.ts), which is where a run decides a
 * check is not applicable before running it.
 */
import { profileAgent } from '../certify/index.js';
import { preflight } from '../core/engine/check-runner.js';
import type { SuiteCatalog } from '../core/engine/loader.js';
import { type SuiteDef, suiteRunsOn } from '../core/engine/model.js';
import type { AgentProfile } from '../core/engine/profile.js';
import { targetInfo } from '../core/engine/run-result.js';
import { DEFAULT_TARGET, lineOfVersion, type ProtocolLine } from '../core/protocol/lines.js';
import { strings } from '../core/storyboards/load.js';
import type { Storyboard, StoryboardBundle } from '../core/storyboards/model.js';
import { selectStoryboards } from '../core/storyboards/select.js';
import { protocolIds } from '../core/token.js';
import type { Transport, TransportFailure } from '../core/transport/types.js';
import { builtinSuites } from '../certify/index.js';
import { catalogOf, certifyOptionsOf, type ProbeSettings } from './probe.js';
import type { AgentRow } from './types.js';

/** One storyboard of the service: `…/storyboard/{sid}` names it by `id`. */
export interface CatalogStoryboard {
  /** A built-in suite's id, or the bundle storyboard's own id. */
  id: string;
  /** The suite a run of it runs (the built-in suite, or the storyboard compiled). */
  suite: SuiteDef;
  title: string;
  summary?: string;
  category: string;
  narrative?: string;
  track: string | null;
  /** The test kit its prerequisites name (a bundle storyboard), else null. */
  testKit: string | null;
  /** The bundle storyboard it was compiled from. */
  storyboard?: Storyboard;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The service's storyboards: the bundle's when it has one, else the built-in suites (those `--suite` names, or all). */
export class StoryboardCatalog {
  readonly bundle: StoryboardBundle | undefined;
  readonly suites: SuiteCatalog;
  private readonly byId = new Map<string, CatalogStoryboard>();

  constructor(readonly settings: ProbeSettings) {
    this.bundle = settings.storyboards?.bundle;
    this.suites = catalogOf(settings) ?? builtinSuites();
    const named = settings.suites ? new Set(settings.suites) : undefined;
    for (const suite of this.suites.suites) {
      // The registry face's suites certify a registry, never an agent.
      if (suite.face === 'registry' || (named && !named.has(suite.id))) continue;
      const sb = suite.storyboard_id ? this.bundle?.storyboards.get(suite.storyboard_id) : undefined;
      const entry: CatalogStoryboard = sb
        ? {
            id: sb.id,
            suite,
            title: sb.title,
            ...(text(sb.raw.summary) ? { summary: text(sb.raw.summary) } : {}),
            category: sb.category ?? sb.kind,
            ...(text(sb.raw.narrative) ? { narrative: text(sb.raw.narrative) } : {}),
            track: sb.track ?? null,
            testKit: text((sb.raw.prerequisites as { test_kit?: unknown } | undefined)?.test_kit) ?? null,
            storyboard: sb,
          }
        : {
            id: suite.id,
            suite,
            title: suite.title,
            ...(suite.description ? { summary: suite.description.trim(), narrative: suite.description.trim() } : {}),
            category: 'suite',
            track: suite.track ?? suite.id,
            testKit: null,
          };
      this.byId.set(entry.id, entry);
    }
  }

  /** By its id; a compiled storyboard also by its suite id (`storyboard.<id>`). */
  get(id: string): CatalogStoryboard | undefined {
    return this.byId.get(id) ?? [...this.byId.values()].find((e) => e.suite.id === id);
  }

  all(): CatalogStoryboard[] {
    return [...this.byId.values()];
  }

  get target(): ProtocolLine {
    return this.settings.target ?? DEFAULT_TARGET;
  }

  /** The concrete version graded (digest 6.3 `proto_version`): the released schema set's, else the bundle's, else the target line. */
  get protoVersion(): string {
    return this.settings.schemaSet?.set?.version ?? this.bundle?.version ?? this.target;
  }
}

/** Steps of a storyboard: a compiled storyboard's authored steps, a suite's checks. */
export function stepCountOf(e: CatalogStoryboard): number {
  return e.storyboard ? e.storyboard.phases.reduce((n, p) => n + p.steps.length, 0) : e.suite.checks.length;
}

/** Why `applicable-storyboards` cannot answer: a 422 (the agent's declaration) or a 500 (its capabilities could not be read). */
export class ApplicabilityError extends Error {
  constructor(
    readonly status: 422 | 500,
    message: string,
    readonly extra: Record<string, unknown>,
  ) {
    super(message);
  }
}

export type ProbeFailureReason = 'network' | 'tls' | 'timeout' | 'protocol' | 'unknown';

/** A transport failure (transport/types.ts TransportFailureKind) as the 500's `reason`. */
export function failureReason(f: TransportFailure | undefined): ProbeFailureReason {
  if (!f) return 'unknown';
  if (/\b(tls|ssl)\b|certificate|CERT_|self[- ]signed|EPROTO/i.test(f.message)) return 'tls';
  switch (f.kind) {
    case 'network':
    case 'refused':
      return 'network';
    case 'timeout':
    case 'aborted':
      return 'timeout';
    case 'protocol':
    case 'http_status':
    case 'redirect':
    case 'body_too_large':
      return 'protocol';
    default:
      return 'unknown';
  }
}

/**
 * The specialisms of digest 6.2 and their protocols: what the built-in suites know when there
 * is no bundle (a bundle's index.json says it for its own). `signed-requests` is the deprecated
 * enum value that became a universal storyboard: known, under no protocol.
 */
export const SPECIALISM_PROTOCOLS: Readonly<Record<string, string | null>> = {
  'audience-sync': 'media-buy',
  'governance-aware-seller': 'media-buy',
  'sales-broadcast-tv': 'media-buy',
  'sales-catalog-driven': 'media-buy',
  'sales-guaranteed': 'media-buy',
  'sales-non-guaranteed': 'media-buy',
  'sales-proposal-mode': 'media-buy',
  'sales-social': 'media-buy',
  'brand-rights': 'brand',
  'collection-lists': 'governance',
  'content-standards': 'governance',
  'governance-delivery-monitor': 'governance',
  'governance-spend-authority': 'governance',
  'property-lists': 'governance',
  'creative-ad-server': 'creative',
  'creative-generative': 'creative',
  'creative-template': 'creative',
  'creative-transformers': 'creative',
  'signal-marketplace': 'signals',
  'signal-owned': 'signals',
  'sponsored-intelligence': 'sponsored-intelligence',
  'signed-requests': null,
};

/** `supported_protocols` values are snake_case, protocol ids kebab-case. */
const protocolId = (p: string) => p.replaceAll('_', '-');

/** How long a profile read for `applicable-storyboards` may take, all transports together. */
export const PROFILE_TIMEOUT_MS = 30_000;

/** Reads the agent's profile over its registered transports, under the service's address rules. */
export async function agentProfiles(agent: Pick<AgentRow, 'url' | 'transports' | 'token' | 'authToken'>, settings: ProbeSettings): Promise<AgentProfile[]> {
  return profileAgent({ ...certifyOptionsOf(agent, settings, ''), signal: AbortSignal.timeout(PROFILE_TIMEOUT_MS) });
}

/** The transports of a profile that a run could use. */
export const usableProfiles = (profiles: readonly AgentProfile[]) => profiles.filter((p) => p.offered && p.reachable && !p.authRequired);

/**
 * What will be graded on the agent (digest 6.3 `applicable-storyboards`), from profiles already
 * read. Throws ApplicabilityError for the digest's 422s and for a capabilities probe that failed.
 */
export function applicableStoryboards(
  agent: Pick<AgentRow, 'url' | 'token'>,
  catalog: StoryboardCatalog,
  profiles: readonly AgentProfile[],
): Record<string, unknown> {
  const needsAuth = profiles.some((p) => p.authRequired);
  const usable = usableProfiles(profiles);
  const head = { agent_url: agent.url, requested_compliance_target: catalog.target, proto_version: catalog.protoVersion };
  if (usable.length === 0 && !needsAuth) {
    const down = profiles.find((p) => p.offered) ?? profiles[0];
    const failure = down?.open?.failure ?? down?.capabilitiesReply?.failure;
    throw new ApplicabilityError(500, `the agent's capabilities could not be read: ${down?.problem ?? 'no transport'}`, { reason: failureReason(failure) });
  }
  const withCaps = usable.find((p) => p.capabilities !== undefined);
  const first = withCaps ?? usable[0];
  const caps = withCaps?.capabilities ?? {};
  const probeError = usable.length === 0 ? profiles.find((p) => p.authRequired)?.problem : withCaps ? undefined : capabilitiesProblem(usable[0]!, agent.token);
  const supported = strings(caps.supported_protocols);
  const specialisms = strings(caps.specialisms);
  const ids = protocolIds(agent.token);
  if (withCaps) refuseDeclaration(catalog, caps, supported, specialisms, ids.token, needsAuth);
  const bundles = catalog.bundle ? bundleStoryboards(catalog, caps, usable, ids.token) : suiteStoryboards(catalog, usable, ids);
  return {
    ...head,
    agent_name: agentName(first, caps),
    supported_protocols: supported,
    specialisms,
    ...(probeError ? { capabilities_probe_error: probeError } : {}),
    ...(needsAuth ? { needs_auth: true } : {}),
    bundles,
    total_storyboards: bundles.reduce((n, b) => n + (b.storyboards as unknown[]).length, 0),
  };
}

function capabilitiesProblem(p: AgentProfile, token: string): string {
  const f = p.capabilitiesReply?.failure;
  if (f) return `${p.transport}: get_${token}_capabilities: ${f.message}`;
  if (p.capabilitiesReply?.isError) return `${p.transport}: get_${token}_capabilities answered an error`;
  return `${p.transport}: get_${token}_capabilities answered no capabilities object`;
}

function agentName(p: AgentProfile | undefined, caps: Record<string, unknown>): string | null {
  const card = p?.open?.agentCard as { name?: unknown } | undefined;
  return text(card?.name) ?? text(p?.open?.serverName) ?? text(caps.agent_name) ?? null;
}

/** The digest's 422s: a specialism the catalog does not know, one whose protocol is not claimed, declared versions no line graded here covers. */
function refuseDeclaration(
  catalog: StoryboardCatalog,
  caps: Record<string, unknown>,
  supported: string[],
  specialisms: string[],
  token: string,
  needsAuth: boolean,
): void {
  const auth = needsAuth ? { needs_auth: true } : {};
  const known = new Map<string, string | null>(
    catalog.bundle
      ? catalog.bundle.entries.filter((e) => e.kind === 'specialism').map((e) => [e.id, e.protocol ?? SPECIALISM_PROTOCOLS[e.id] ?? null] as const)
      : Object.entries(SPECIALISM_PROTOCOLS),
  );
  const claimed = new Set(supported.map(protocolId));
  for (const s of specialisms) {
    if (!known.has(s))
      throw new ApplicabilityError(
        422,
        `the agent claims the specialism ${s}, which ${catalog.bundle ? `the storyboard bundle ${catalog.bundle.version ?? ''}`.trim() : "this registry's catalog"} does not know`,
        { error_kind: 'unknown_specialism', specialism: s, ...auth },
      );
    const parent = known.get(s);
    if (parent && !claimed.has(protocolId(parent)))
      throw new ApplicabilityError(
        422,
        `the agent claims the specialism ${s} of the ${parent} protocol, but supported_protocols does not list ${parent.replaceAll('-', '_')}`,
        { error_kind: 'specialism_parent_protocol_missing', specialism: s, protocol: parent, ...auth },
      );
  }
  const declared = targetInfo(catalog.target, caps[token]).agent_declared;
  const versions = declared?.supported_versions ?? [];
  const majors = declared?.major_versions ?? [];
  const gradable = versions.length ? versions.some((v) => lineOfVersion(v) !== undefined) : majors.length ? majors.includes(3) : true;
  if (!gradable)
    throw new ApplicabilityError(
      422,
      `the agent declares ${versions.length ? `supported_versions [${versions.join(', ')}]` : `major_versions [${majors.join(', ')}]`}, none of which the ${catalog.target} line (or any line graded here) covers`,
      { error_kind: 'unsupported_proto_version', ...auth },
    );
}

type BundleView = { kind: 'universal' | 'domain' | 'specialism'; id: string; storyboards: Array<Record<string, unknown>> };

const storyboardView = (e: CatalogStoryboard, steps: number) => ({ id: e.id, title: e.title, summary: e.summary ?? null, step_count: steps });

/** A bundle: its storyboards selected for the agent (select.ts), grouped by what selected them. */
function bundleStoryboards(catalog: StoryboardCatalog, caps: Record<string, unknown>, usable: AgentProfile[], token: string): BundleView[] {
  const bundle = catalog.bundle!;
  const block = caps[token];
  const majors = block && typeof block === 'object' ? (block as { major_versions?: unknown }).major_versions : undefined;
  const tools = new Set([...usable.flatMap((p) => p.tasks), `get_${token}_capabilities`]);
  const selection = selectStoryboards(bundle, {
    capabilities: caps,
    tools,
    ...(Array.isArray(majors) ? { majorVersions: majors.filter(Number.isInteger) } : {}),
  });
  const via = new Map(selection.map((s) => [s.storyboard.id, s.via]));
  const groupOf = (id: string, depth = 0): [BundleView['kind'], string] => {
    const v = via.get(id) ?? 'universal';
    const req = /^required by (.+)$/.exec(v);
    if (req && depth < 16) return groupOf(req[1]!, depth + 1);
    const m = /^(protocol|specialism) (.+)$/.exec(v);
    if (!m) return ['universal', 'universal'];
    return [m[1] === 'protocol' ? 'domain' : 'specialism', m[2]!];
  };
  const groups = new Map<string, BundleView>();
  for (const s of selection) {
    if (s.skip) continue;
    const e = catalog.get(s.storyboard.id);
    if (!e) continue;
    const [kind, id] = groupOf(s.storyboard.id);
    const key = `${kind}:${id}`;
    if (!groups.has(key)) groups.set(key, { kind, id, storyboards: [] });
    groups.get(key)!.storyboards.push(storyboardView(e, stepCountOf(e)));
  }
  return [...groups.values()];
}

/**
 * The built-in suites: a suite applies when at least one of its checks would run on one of the
 * agent's usable transports, as the engine's preflight decides it (not applicable, a coverage gap
 * or a transport it cannot use are not graded). Its step count is those check × transport runs.
 * The built-in suites each gate their own checks: one universal bundle.
 */
function suiteStoryboards(catalog: StoryboardCatalog, usable: AgentProfile[], ids: ReturnType<typeof protocolIds>): BundleView[] {
  const storyboards: Array<Record<string, unknown>> = [];
  for (const e of catalog.all()) {
    let steps = 0;
    for (const p of usable) {
      if (!suiteRunsOn(e.suite, p.transport)) continue;
      const env = { transport: { kind: p.transport } as Transport, profile: p, ids, target: catalog.target };
      for (const check of e.suite.checks) if (preflight(e.suite, check, env) === undefined) steps++;
    }
    if (steps > 0) storyboards.push(storyboardView(e, steps));
  }
  return [{ kind: 'universal', id: 'proto-comply', storyboards }];
}
