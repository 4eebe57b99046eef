/**
 * Verification and badges (digest 6.3, public):
 *
 *   GET /api/registry/agents/{encodedUrl}/verification                 {agent_url, verified, badges[VerificationBadge + token], registry_url}
 *   GET /api/registry/agents/{encodedUrl}/badge/{role}.svg              the role's badge: verified / degraded / not verified
 *   GET /api/registry/agents/{encodedUrl}/badge/{role}/{version}.svg    the same, verified only at that protocol version
 *   GET /api/registry/agents/{encodedUrl}/badge/{role}/embed            {agent_url, role, verified, proto_version?, badge_svg_url, registry_url, html, markdown}
 *   GET /api/registry/agents/{encodedUrl}/badge/{role}/{version}/embed  the same, pinned to the version
 *
 * A role outside the list is 400 `{error, code: "invalid_role", message, valid_roles}`. Which
 * badges an agent holds and their states: badges.ts. Each listed badge carries a signed token
 * (badge-tokens/) when the service has a key set.
 */
import { type Badge, badgesOf, isRole, ROLES, type Role } from '../badges.js';
import { roleBadgeSvg } from '../badge.js';
import { agentOr404 } from '../http/agent-param.js';
import { HttpError, send, sendRaw } from '../http/respond.js';
import type { Route } from '../http/router.js';
import type { AgentRow } from '../types.js';
import type { ServiceContext } from './context.js';

const VERSION = /^\d{1,3}\.\d{1,3}$/;

function roleOf(raw: string): Role {
  if (isRole(raw)) return raw;
  throw new HttpError(
    400,
    `unknown role ${JSON.stringify(raw.slice(0, 64))}`,
    {},
    { code: 'invalid_role', message: `role must be one of ${ROLES.join(', ')}`, valid_roles: ROLES },
  );
}
function versionOf(raw: string): string {
  if (VERSION.test(raw)) return raw;
  throw new HttpError(400, `unknown protocol version ${JSON.stringify(raw.slice(0, 32))}: a version is MAJOR.MINOR, e.g. 3.1`, {}, { code: 'invalid_version' });
}

/** Safe in an HTML attribute. */
const attr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Safe as a Markdown link target (no parentheses, spaces or angle brackets left unencoded). */
const mdUrl = (s: string) => s.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

export function badgeRoutes(s: ServiceContext): Route[] {
  const base = '/api/registry/agents/{encodedUrl}';
  const held = async (agent: AgentRow): Promise<Badge[]> => {
    const passed = await s.store.lastPassingRun(agent.url);
    const versions = passed?.summary ? { line: passed.summary.requested_compliance_target, version: passed.summary.proto_version } : undefined;
    return badgesOf(agent, versions, s.now(), s.badgePolicy);
  };
  const agentPath = (agent: AgentRow) => `/api/registry/agents/${encodeURIComponent(agent.url)}`;
  const svg = async (encoded: string, roleRaw: string, versionRaw?: string): Promise<string> => {
    const agent = await agentOr404(s.store, encoded);
    const role = roleOf(roleRaw);
    const version = versionRaw === undefined ? undefined : versionOf(versionRaw);
    const badge = (await held(agent)).find((b) => b.role === role && (version === undefined || b.proto_version === version));
    return roleBadgeSvg(role, badge?.state, badge?.proto_version ?? version);
  };
  const embed = async (encoded: string, roleRaw: string, versionRaw?: string): Promise<Record<string, unknown>> => {
    const agent = await agentOr404(s.store, encoded);
    const role = roleOf(roleRaw);
    const version = versionRaw === undefined ? undefined : versionOf(versionRaw);
    const badge = (await held(agent)).find((b) => b.role === role && (version === undefined || b.proto_version === version));
    const registry = s.publicUrl();
    const svgUrl = `${registry}${agentPath(agent)}/badge/${role}${version ? `/${version}` : ''}.svg`;
    const page = `${registry}${agentPath(agent)}/compliance`;
    const alt = `AdCP ${role} verification`;
    return {
      agent_url: agent.url,
      role,
      verified: badge !== undefined,
      ...(badge ? { proto_version: badge.proto_version, state: badge.state } : version ? { proto_version: version } : {}),
      badge_svg_url: svgUrl,
      registry_url: registry,
      html: `<a href="${attr(page)}"><img src="${attr(svgUrl)}" alt="${attr(alt)}"></a>`,
      markdown: `[![${alt}](${mdUrl(svgUrl)})](${mdUrl(page)})`,
    };
  };
  const image = (res: import('node:http').ServerResponse, body: string) => sendRaw(res, 200, 'image/svg+xml', body, { 'cache-control': 'no-cache' });
  return [
    {
      method: 'GET',
      path: `${base}/verification`,
      access: 'public',
      summary: "The agent's verification badges, each with its signed token",
      handle: async ({ res, params }) => {
        const agent = await agentOr404(s.store, params.encodedUrl!);
        const badges = await held(agent);
        const registry = s.publicUrl();
        const listed = await Promise.all(
          badges.map(async (b) => ({
            role: b.role,
            proto_version: b.proto_version,
            verified_at: b.verified_at,
            verified_specialisms: b.verified_specialisms,
            verification_modes: b.verification_modes,
            verified_protocol_version: b.verified_protocol_version,
            status: b.state,
            badge_url: `${registry}${agentPath(agent)}/badge/${b.role}.svg`,
            ...(s.badgeToken ? { token: await s.badgeToken(agent, b) } : {}),
          })),
        );
        send(res, 200, { agent_url: agent.url, verified: listed.length > 0, badges: listed, registry_url: registry });
      },
    },
    {
      method: 'GET',
      path: `${base}/badge/{role}.svg`,
      access: 'public',
      summary: "The agent's verification badge for a role",
      handle: async ({ res, params }) => image(res, await svg(params.encodedUrl!, params.role!)),
    },
    {
      method: 'GET',
      path: `${base}/badge/{role}/{version}.svg`,
      access: 'public',
      summary: "The agent's verification badge for a role at one protocol version",
      handle: async ({ res, params }) => image(res, await svg(params.encodedUrl!, params.role!, params.version!)),
    },
    {
      method: 'GET',
      path: `${base}/badge/{role}/embed`,
      access: 'public',
      summary: 'HTML and Markdown to embed the role badge',
      handle: async ({ res, params }) => send(res, 200, await embed(params.encodedUrl!, params.role!)),
    },
    {
      method: 'GET',
      path: `${base}/badge/{role}/{version}/embed`,
      access: 'public',
      summary: 'HTML and Markdown to embed the role badge pinned to a protocol version',
      handle: async ({ res, params }) => send(res, 200, await embed(params.encodedUrl!, params.role!, params.version!)),
    },
  ];
}
