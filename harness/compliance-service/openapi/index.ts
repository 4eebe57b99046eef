/**
 * The registry API's OpenAPI 3.1.0 description, assembled from the route groups' descriptions in
 * this folder and joined to the route table (http/router.ts) by method and path template: each
 * operation's summary and security come from its route (so they cannot drift), the responses every
 * route of its kind has (a bad `{encodedUrl}`, no key, not the owner) are added here, the rest is
 * the group file's. openapi.test.ts fails when a route has no description or a description no route.
 *
 * Adding a route's description: add an `OperationDoc` (same method and path as the route) to its
 * group's file here, or a new group file listed in OPERATION_GROUPS below.
 */
import { HARNESS_VERSION } from '../../core/version.js';
import type { Access, Route } from '../http/router.js';
import { CHALLENGE_HEADER, commonSchemas, error } from './common.js';
import { complianceDocs } from './compliance.js';
import { diagnosticsDocs } from './diagnostics.js';
import { fleetDocs } from './fleet.js';
import { metaDocs } from './meta.js';
import { ownerSettingsDocs } from './owner-settings.js';
import { refreshDocs } from './refresh.js';
import { storyboardStatusDocs } from './storyboard-status.js';
import { badgeDocs } from './badges.js';
import { dashboardDocs } from './dashboard.js';
import { storyboardDocs } from './storyboards.js';
import { badgeKeyDocs } from './badge-keys.js';
import type { OperationDoc, OperationGroup, ResponseDoc, Schema } from './types.js';

/** Every group of operation descriptions (one file each). */
export const OPERATION_GROUPS: readonly OperationGroup[] = [
  metaDocs,
  fleetDocs,
  complianceDocs,
  diagnosticsDocs,
  storyboardStatusDocs,
  ownerSettingsDocs,
  refreshDocs,
  badgeDocs,
  badgeKeyDocs,
  storyboardDocs,
  dashboardDocs,
];

export const describedOperations = (): OperationDoc[] => OPERATION_GROUPS.flatMap((g) => g.operations);

/** `GET /api/...`: how a route and its description are matched. */
export const operationKey = (o: { method: string; path: string }): string => `${o.method} ${o.path}`;

/** Routes without a description, descriptions without a route, and descriptions given twice, as `METHOD path`. */
export function coverageOf(
  routes: readonly Route[],
  described: readonly OperationDoc[] = describedOperations(),
): { undescribed: string[]; unrouted: string[]; twice: string[] } {
  const routeKeys = new Set(routes.map(operationKey));
  const docKeys = described.map(operationKey);
  return {
    undescribed: [...routeKeys].filter((k) => !docKeys.includes(k)),
    unrouted: docKeys.filter((k) => !routeKeys.has(k)),
    twice: docKeys.filter((k, i) => docKeys.indexOf(k) !== i),
  };
}

const KEY = 'Give the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`; a key that is given but not valid is a 401.';
const ACCESS: Record<Access, string> = {
  public: 'Public: no key needed (a key that is not valid only means the public view).',
  member: `Members only: a member key (\`--member-key NAME=KEY\`) or an operator key (\`--api-key\`). ${KEY}`,
  owner: `Owner only: the key of the member who owns the agent (a member owns the agents registered with their key, or that the operator registered with \`owner\` set to their name) or an operator key (the operator owns every agent). ${KEY} Another member's key is a 403.`,
  operator: `Operator only: an operator key (\`--api-key\`). ${KEY}`,
};
const SECURED = [{ bearerAuth: [] }, { apiKeyAuth: [] }];

/** The responses every route of its kind has; a group file's own response for a status replaces these. */
function implied(path: string, access: Access | undefined): Record<string, ResponseDoc> {
  const out: Record<string, ResponseDoc> = {};
  if (path.includes('{encodedUrl}')) {
    out['400'] = error('The agent URL in the path is not URL-encoded correctly.');
    out['404'] = error('No agent of that URL is registered.');
  }
  if (access && access !== 'public') out['401'] = { ...error('No key where one is needed, or a key that is not valid.'), headers: CHALLENGE_HEADER };
  if (access === 'owner') out['403'] = error('The key does not own the agent.');
  if (access === 'operator') out['403'] = error('Not an operator key.');
  return out;
}

function operation(doc: OperationDoc, route: Route | undefined): Record<string, unknown> {
  const responses = { ...implied(doc.path, route?.access), ...doc.responses };
  return {
    operationId: doc.operationId,
    ...(route ? { summary: route.summary } : {}),
    description: [doc.description, route ? ACCESS[route.access] : undefined].filter(Boolean).join('\n\n'),
    tags: doc.tags,
    ...(doc.parameters?.length ? { parameters: doc.parameters } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    ...(route ? { security: route.access === 'public' ? [] : SECURED, 'x-access': route.access } : {}),
  };
}

/** The document: one operation per description, joined to the route of the same method and path. */
/** The registry API's version (interface spec 9: the description is OpenAPI 3.1.0, API version 1.0.0). */
export const REGISTRY_API_VERSION = '1.0.0';

export function openApiDocument(routes: readonly Route[], version: string = REGISTRY_API_VERSION): Record<string, unknown> {
  const byKey = new Map(routes.map((r) => [operationKey(r), r]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const doc of describedOperations()) {
    paths[doc.path] ??= {};
    paths[doc.path]![doc.method.toLowerCase()] = operation(doc, byKey.get(operationKey(doc)));
  }
  const schemas: Record<string, Schema> = { ...commonSchemas };
  for (const g of OPERATION_GROUPS)
    for (const [name, schema] of Object.entries(g.schemas ?? {})) {
      if (name in schemas) throw new Error(`OpenAPI component schema ${name} is defined twice`);
      schemas[name] = schema;
    }
  return {
    openapi: '3.1.0',
    info: {
      title: 'proto-comply registry API',
      version,
      description:
        "The compliance service of `proto-comply registry serve`: the registry's Agent Compliance operations (AdCP digest 6.3) and our fleet routes. Replies are JSON; every error is `{error}`, some with more members. Reads are public (CORS open); members-only and owner-only routes need a key: an operator key (`--api-key`) owns every agent, a member key (`--member-key NAME=KEY`) owns the agents registered for NAME.",
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      'x-proto-comply-version': HARNESS_VERSION,
    },
    tags: [
      { name: 'Fleet', description: 'The registered agents, their statistics and status changes; registering and removing agents.' },
      { name: 'Compliance', description: "An agent's compliance: detail, history, diagnostics, storyboard statuses, refresh, badge." },
      { name: 'Owner settings', description: "What an agent's owner sets: monitoring, lifecycle stage, opting out." },
      { name: 'Badges', description: "An agent's verification badges, their images and embeds." },
      { name: 'Storyboards', description: "One agent's storyboards: what will be graded, a single run, a single step, a comparison." },
      { name: 'Dashboard', description: 'The operator dashboard (HTML).' },
      { name: 'Meta', description: 'This description.' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A member or operator key: `Authorization: Bearer <key>`.' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A member or operator key: `X-API-Key: <key>`.' },
      },
    },
  };
}
