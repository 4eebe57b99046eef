/**
 * Who is calling the registry API. Reads are public; what the digest calls owner-only or
 * members-only needs a key (`Authorization: Bearer <key>` or `X-API-Key`):
 * - an operator key (`--api-key`): the registry's operator, owner of every agent;
 * - a member key (`--member-key NAME=KEY`): a member named NAME, owner of the agents registered
 *   with `owner: NAME`.
 * A key that is given but unknown is refused (401), never treated as anonymous.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './respond.js';

export interface MemberKey {
  name: string;
  key: string;
}

export interface KeyRing {
  operators: readonly string[];
  members: readonly MemberKey[];
}

export type Caller = { kind: 'anonymous' } | { kind: 'operator' } | { kind: 'member'; name: string };

const CHALLENGE = { 'www-authenticate': 'Bearer realm="proto-comply registry"' };

function same(given: Buffer, key: string): boolean {
  const b = Buffer.from(key);
  return b.length === given.length && timingSafeEqual(b, given);
}

export function callerOf(req: IncomingMessage, ring: KeyRing): Caller {
  const auth = req.headers.authorization;
  const given = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : auth && /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (!given) return { kind: 'anonymous' };
  const g = Buffer.from(given);
  // Every key is compared (no early exit), so timing says nothing about which kind matched.
  let caller: Caller | undefined;
  for (const k of ring.operators) if (same(g, k) && !caller) caller = { kind: 'operator' };
  for (const m of ring.members) if (same(g, m.key) && !caller) caller = { kind: 'member', name: m.name };
  if (!caller) throw new HttpError(401, 'the API key is not valid', CHALLENGE);
  return caller;
}

/** Who a caller is, for per-caller limits: `member:<name>`, `operator` or `anonymous`. */
export const callerKey = (c: Caller): string => (c.kind === 'member' ? `member:${c.name}` : c.kind);

/** A key holder (operator or member); 401 for an anonymous caller. */
export function requireKey(caller: Caller): void {
  if (caller.kind === 'anonymous') throw new HttpError(401, 'an API key is required (Authorization: Bearer <key> or X-API-Key)', CHALLENGE);
}

/** The caller owns an agent registered with `owner`: the operator always, a member when it is theirs. */
export function owns(caller: Caller, owner: string | undefined): boolean {
  return caller.kind === 'operator' || (caller.kind === 'member' && owner !== undefined && caller.name === owner);
}

/** 401 without a key, 403 with a key that does not own the agent. */
export function requireOwner(caller: Caller, owner: string | undefined, agentUrl: string): void {
  requireKey(caller);
  if (!owns(caller, owner)) throw new HttpError(403, `only the owner of ${agentUrl} (or the registry's operator) may do this`);
}

/** `NAME=KEY` of `--member-key`. */
export function memberKeyOf(spec: string): MemberKey {
  const at = spec.indexOf('=');
  const name = at > 0 ? spec.slice(0, at) : '';
  const key = at > 0 ? spec.slice(at + 1) : '';
  if (!/^[A-Za-z0-9._@-]{1,128}$/.test(name) || key.length < 16)
    throw new Error(`--member-key wants NAME=KEY (NAME of letters, digits and ._@-, KEY of at least 16 characters), not ${JSON.stringify(spec.slice(0, 40))}`);
  return { name, key };
}
