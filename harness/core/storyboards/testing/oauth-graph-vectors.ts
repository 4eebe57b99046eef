/**
 * The harness's own conformance vectors for `oauth_metadata_graph` (oauth-graph.test.ts serves
 * them from loopback servers): graphs that hold, and graphs broken in one way each, covering every
 * diagnostic code of the 3.2 oauth-setup runner contract, plus the refusals that are a gap rather
 * than the agent's failure. The agent is at `{A}/mcp`; `{A}` and `{B}` stand for two loopback
 * origins (B an authorization server on another origin). A route is `<A|B> <path>`; a request to
 * any other path is answered 404.
 */
import type { GraphCode } from '../oauth-graph-rules.js';

export interface VectorReply {
  status: number;
  json?: unknown;
  /** A raw body instead of `json` (content type text/plain unless `type` says otherwise). */
  body?: string;
  type?: string;
  location?: string;
  /** A body of this many bytes (a JSON string padded out). */
  bytes?: number;
}

export interface GraphVector {
  id: string;
  routes: Record<string, VectorReply>;
  /** A pass; a failure with its code (and the pointer into the protected-resource metadata); or a gap, never a failure. */
  expect: { pass: true } | { code: GraphCode; pointer: string } | { gap: true };
  /** Paths that must never be requested (`<A|B> <path>`). */
  neverRequested?: string[];
}

const PRM_PATH = 'A /.well-known/oauth-protected-resource/mcp';
const AS_PATH = 'B /.well-known/oauth-authorization-server/tenant';

const prm = (json: Record<string, unknown>) => ({ [PRM_PATH]: { status: 200, json: { resource: '{A}/mcp', authorization_servers: ['{B}/tenant'], ...json } } });
const server = (json: Record<string, unknown> = {}) => ({
  [AS_PATH]: {
    status: 200,
    json: {
      issuer: '{B}/tenant',
      authorization_endpoint: '{B}/tenant/authorize',
      token_endpoint: '{B}/tenant/token',
      jwks_uri: '{B}/tenant/jwks',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      ...json,
    },
  },
});
const endpoints = (over: Record<string, VectorReply> = {}) => ({
  'B /tenant/authorize': { status: 302, location: '{B}/login' },
  'B /tenant/token': { status: 405 },
  'B /tenant/jwks': { status: 200, json: { keys: [] } },
  ...over,
});
const graph = (asJson: Record<string, unknown> = {}, over: Record<string, VectorReply> = {}) => ({ ...prm({}), ...server(asJson), ...endpoints(over) });
const fails = (code: GraphCode, pointer = '/authorization_servers/0') => ({ code, pointer });
const PASS = { pass: true } as const;
/** Unset in a server document (JSON drops undefined members). */
const none = undefined;

export const GRAPH_VECTORS: GraphVector[] = [
  // Graphs that hold.
  { id: 'off-origin server, every endpoint probed', routes: graph(), expect: PASS },
  {
    id: 'same-origin server at the root',
    routes: {
      ...prm({ authorization_servers: ['{A}'] }),
      'A /.well-known/oauth-authorization-server': {
        status: 200,
        json: { issuer: '{A}', token_endpoint: '{A}/token', grant_types_supported: ['client_credentials'] },
      },
      'A /token': { status: 400 },
    },
    expect: PASS,
  },
  {
    id: 'client credentials only: no response types, no authorization endpoint',
    routes: graph({ authorization_endpoint: none, response_types_supported: none, grant_types_supported: ['client_credentials'] }),
    expect: PASS,
    neverRequested: ['B /tenant/authorize'],
  },
  {
    id: 'implicit only: no token endpoint',
    routes: graph(
      { token_endpoint: none, jwks_uri: none, response_types_supported: ['token'], grant_types_supported: ['implicit'] },
      { 'B /tenant/authorize': { status: 400 } },
    ),
    expect: PASS,
    neverRequested: ['B /tenant/token'],
  },
  {
    id: 'default grants; a registration endpoint is checked, never called',
    routes: graph({ grant_types_supported: none, registration_endpoint: '{B}/tenant/register' }),
    expect: PASS,
    neverRequested: ['B /tenant/register'],
  },
  {
    id: 'metadata behind a redirect, followed',
    routes: { ...prm({}), [AS_PATH]: { status: 301, location: '/moved/metadata' }, 'B /moved/metadata': server()[AS_PATH], ...endpoints() },
    expect: PASS,
  },
  {
    id: 'two servers, both whole',
    routes: {
      ...graph(),
      ...prm({ authorization_servers: ['{B}/tenant', '{A}'] }),
      'A /.well-known/oauth-authorization-server': {
        status: 200,
        json: { issuer: '{A}', token_endpoint: '{A}/token', grant_types_supported: ['client_credentials'] },
      },
      'A /token': { status: 401 },
    },
    expect: PASS,
  },
  // One code each (some more than once).
  {
    id: 'seventeen servers: over the limit, nothing followed',
    routes: prm({ authorization_servers: Array.from({ length: 17 }, (_, i) => `{B}/t${i}`) }),
    expect: fails('oauth_graph_limit_exceeded', '/authorization_servers'),
    neverRequested: ['B /.well-known/oauth-authorization-server/t0'],
  },
  { id: 'metadata over 256 KiB', routes: { [PRM_PATH]: { status: 200, bytes: 300 * 1024 } }, expect: fails('oauth_graph_limit_exceeded', '') },
  { id: 'issuer on the cloud metadata address', routes: prm({ authorization_servers: ['https://169.254.169.254'] }), expect: fails('oauth_fetch_blocked') },
  {
    id: 'metadata redirected to a link-local address',
    routes: { ...prm({}), [AS_PATH]: { status: 302, location: 'https://169.254.169.254/latest/meta-data/' } },
    expect: fails('oauth_fetch_blocked'),
  },
  {
    id: 'JWKS redirected to plain http off loopback',
    routes: graph({}, { 'B /tenant/jwks': { status: 307, location: 'http://keys.example.net/jwks' } }),
    expect: fails('oauth_fetch_blocked'),
  },
  { id: 'no protected-resource metadata', routes: {}, expect: fails('oauth_protected_resource_metadata_unavailable', '') },
  {
    id: 'protected-resource metadata not JSON',
    routes: { [PRM_PATH]: { status: 200, body: 'not json', type: 'application/json' } },
    expect: fails('oauth_protected_resource_metadata_invalid', ''),
  },
  {
    id: 'protected-resource metadata served as HTML',
    routes: { [PRM_PATH]: { status: 200, body: '{"resource":"x"}', type: 'text/html' } },
    expect: fails('oauth_protected_resource_metadata_invalid', ''),
  },
  { id: 'resource with a trailing slash', routes: { ...graph(), ...prm({ resource: '{A}/mcp/' }) }, expect: fails('oauth_resource_mismatch', '/resource') },
  { id: 'resource of another origin', routes: { ...graph(), ...prm({ resource: '{B}/mcp' }) }, expect: fails('oauth_resource_mismatch', '/resource') },
  { id: 'no authorization servers', routes: prm({ authorization_servers: [] }), expect: fails('oauth_authorization_servers_empty', '/authorization_servers') },
  {
    id: 'authorization_servers absent',
    routes: prm({ authorization_servers: none }),
    expect: fails('oauth_authorization_servers_empty', '/authorization_servers'),
  },
  {
    id: 'issuer with a secret in its query',
    routes: prm({ authorization_servers: ['{B}/tenant?token=issuer-secret-7731'] }),
    expect: fails('oauth_authorization_server_url_invalid'),
  },
  {
    id: 'issuer with userinfo',
    routes: prm({ authorization_servers: ['https://user:userinfo-secret-5512@auth.example.net'] }),
    expect: fails('oauth_authorization_server_url_invalid'),
  },
  {
    id: 'issuer over plain http off loopback',
    routes: prm({ authorization_servers: ['http://auth.example.net'] }),
    expect: fails('oauth_authorization_server_url_invalid'),
  },
  { id: 'server metadata missing', routes: { ...prm({}), ...endpoints() }, expect: fails('oauth_authorization_server_metadata_unavailable') },
  {
    id: 'second server answers 500',
    routes: { ...graph(), ...prm({ authorization_servers: ['{B}/tenant', '{B}/other'] }), 'B /.well-known/oauth-authorization-server/other': { status: 500 } },
    expect: fails('oauth_authorization_server_metadata_unavailable', '/authorization_servers/1'),
  },
  {
    id: 'response types missing for an authorization-code server',
    routes: graph({ response_types_supported: none }),
    expect: fails('oauth_authorization_server_metadata_invalid'),
  },
  {
    id: 'token-only server with an empty response types list',
    routes: graph({ authorization_endpoint: none, response_types_supported: [], grant_types_supported: ['client_credentials'] }),
    expect: fails('oauth_authorization_server_metadata_invalid'),
  },
  {
    id: 'default grants without a token endpoint',
    routes: graph({ grant_types_supported: none, token_endpoint: none }),
    expect: fails('oauth_authorization_server_metadata_invalid'),
  },
  { id: 'authorization endpoint missing', routes: graph({ authorization_endpoint: none }), expect: fails('oauth_authorization_server_metadata_invalid') },
  {
    id: 'server metadata not JSON',
    routes: { ...prm({}), [AS_PATH]: { status: 200, body: '<html>', type: 'application/json' } },
    expect: fails('oauth_authorization_server_metadata_invalid'),
  },
  { id: 'issuer with a trailing slash', routes: graph({ issuer: '{B}/tenant/' }), expect: fails('oauth_issuer_mismatch') },
  { id: 'issuer of another server', routes: graph({ issuer: '{A}' }), expect: fails('oauth_issuer_mismatch') },
  {
    id: 'authorization endpoint with a fragment',
    routes: graph({ authorization_endpoint: '{B}/tenant/authorize#x' }),
    expect: fails('oauth_endpoint_url_invalid'),
  },
  {
    id: 'registration endpoint over plain http off loopback',
    routes: graph({ registration_endpoint: 'http://auth.example.net/register' }),
    expect: fails('oauth_endpoint_url_invalid'),
  },
  { id: 'token endpoint answers 503', routes: graph({}, { 'B /tenant/token': { status: 503 } }), expect: fails('oauth_endpoint_unreachable') },
  { id: 'token endpoint gone (410)', routes: graph({}, { 'B /tenant/token': { status: 410 } }), expect: fails('oauth_endpoint_unreachable') },
  {
    id: 'authorization endpoint not deployed (404)',
    routes: graph({}, { 'B /tenant/authorize': { status: 404 } }),
    expect: fails('oauth_endpoint_unreachable'),
  },
  { id: 'JWKS missing', routes: graph({}, { 'B /tenant/jwks': { status: 404 } }), expect: fails('oauth_jwks_unavailable') },
  { id: 'JWKS without keys', routes: graph({}, { 'B /tenant/jwks': { status: 200, json: { key: [] } } }), expect: fails('oauth_jwks_unavailable') },
  // Refused by the run's address policy on a local network while the agent is itself local: a gap.
  { id: 'issuer on a private address, agent on loopback', routes: prm({ authorization_servers: ['https://10.255.255.1'] }), expect: { gap: true } },
];
