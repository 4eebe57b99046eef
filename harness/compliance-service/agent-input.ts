/** A registration body checked field by field, with one clear message per problem (the REST API's 400s). */
import { protocolIds, TokenError } from '../core/token.js';
import { resolveEndpoints } from '../core/transport/endpoints.js';
import { TransportConfigError } from '../core/transport/errors.js';
import { type AgentTransportKind, TRANSPORT_KINDS } from '../core/transport/types.js';
import type { AgentInput } from './types.js';

const FIELDS = new Set(['url', 'agent_url', 'transports', 'token', 'auth_token', 'auth_ref', 'owner', 'capabilities', 'channels']);
/** What a registration may declare before any probe (interface spec 2.4): task names and channel codes. */
const MAX_DECLARED = 200;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_URL = 2_048;
const MAX_TEXT = 512;

export class AgentInputError extends Error {
  override name = 'AgentInputError';
}

function text(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0) throw new AgentInputError(`${name} must be a non-empty string`);
  if (v.length > max) throw new AgentInputError(`${name} is longer than ${max} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new AgentInputError(`${name} contains control characters`);
  return v;
}

/** A URL as the registry stores it (WHATWG serialization, no fragment). */
export function normalizedUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = '';
  return u.href;
}

/** The agent URL as stored: an http(s) URL without credentials or fragment. */
export function agentUrlOf(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new AgentInputError('url (or agent_url) is required: the agent URL (http or https)');
  if (raw.length > MAX_URL) throw new AgentInputError(`url is longer than ${MAX_URL} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new AgentInputError(`url ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new AgentInputError(`url must be http or https, not ${u.protocol.replace(/:$/, '')}`);
  if (u.username || u.password) throw new AgentInputError('url must not carry credentials; give auth_token instead');
  u.hash = '';
  try {
    resolveEndpoints(u.href);
  } catch (e) {
    if (e instanceof TransportConfigError) throw new AgentInputError(`url: ${e.message}`);
    throw e;
  }
  return u.href;
}

export function agentInputOf(body: unknown): AgentInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AgentInputError('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !FIELDS.has(k));
  if (unknown.length) throw new AgentInputError(`unknown field(s) ${unknown.join(', ')} (fields: ${[...FIELDS].join(', ')})`);
  // `agent_url` is the interface spec's name (2.4); `url` ours. Both given: they must agree.
  if (b.url !== undefined && b.agent_url !== undefined && b.url !== b.agent_url) throw new AgentInputError('url and agent_url name different agents: give one');
  const url = agentUrlOf(b.url ?? b.agent_url);
  let transports: AgentTransportKind[] = [...TRANSPORT_KINDS];
  if (b.transports !== undefined) {
    if (!Array.isArray(b.transports) || b.transports.length === 0 || b.transports.some((t) => !TRANSPORT_KINDS.includes(t as AgentTransportKind)))
      throw new AgentInputError(`transports must be a non-empty list of ${TRANSPORT_KINDS.join(', ')}`);
    transports = [...new Set(b.transports as AgentTransportKind[])];
  }
  const token = text(b, 'token', 64) ?? 'proto';
  try {
    protocolIds(token);
  } catch (e) {
    if (e instanceof TokenError) throw new AgentInputError(`token: ${e.message}`);
    throw e;
  }
  const authToken = text(b, 'auth_token', 4_096);
  const authRef = text(b, 'auth_ref', MAX_TEXT);
  const owner = text(b, 'owner', MAX_TEXT);
  const declaredCapabilities = names(b, 'capabilities', 'task names');
  const channels = names(b, 'channels', 'channel codes');
  return {
    url,
    transports,
    token,
    ...(authToken ? { authToken } : {}),
    ...(authRef ? { authRef } : {}),
    ...(owner ? { owner } : {}),
    ...(declaredCapabilities ? { declaredCapabilities } : {}),
    ...(channels ? { channels } : {}),
  };
}

/** A list of at most MAX_DECLARED names (letters, digits, `_.-`), deduplicated, or undefined when absent. */
function names(body: Record<string, unknown>, field: string, what: string): string[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length > MAX_DECLARED || v.some((x) => typeof x !== 'string' || !NAME.test(x)))
    throw new AgentInputError(`${field} must be a list of at most ${MAX_DECLARED} ${what} (letters, digits, _ . -)`);
  return [...new Set(v as string[])];
}
