/**
 * Admin and read-back routes (not part of the protocol; for people, suites and tests):
 *   GET  /_admin/state                     tallies, dedup configuration, endpoints
 *   GET  /_admin/state?task_id=T           read-back convention: {pending, task, events}
 *   GET  /_admin/state?idempotency_key=K   {pending, events}
 *   GET  /_admin/events?after=SEQ&limit=N  processed events, oldest first
 *   GET  /_admin/endpoints                 registrations (credentials never shown)
 *   POST /_admin/endpoints                 {id?, path?, authentication?, sender_brand?} → 201
 *   GET  /_admin/health
 *
 * Every route needs `Authorization: Bearer <admin token>` when the buyer has one (always when it
 * is bound to anything but loopback); without it: 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constantTimeEqual } from '../../../harness/core/signing/legacy/legacy-bearer.js';
import { EndpointConfigError, EndpointLimitError, type EndpointInfo, type EndpointSpec } from '../store/endpoints.js';
import type { ReadBack } from '../store/readback.js';
import { readBody, sendJson } from './io.js';

export const ADMIN_PREFIX = '/_admin';
const ADMIN_BODY_CAP = 64 * 1024;

export interface AdminDeps {
  readBack: ReadBack;
  register: (spec: EndpointSpec) => EndpointInfo;
  endpoints: () => EndpointInfo[];
  endpointUrl: (info: EndpointInfo) => string;
  config: () => Record<string, unknown>;
  /** The bearer token the routes require, if any. */
  adminToken: () => string | undefined;
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m !== null && constantTimeEqual(m[1]!, token);
}

function withUrl(d: AdminDeps, info: EndpointInfo) {
  return { ...info, url: d.endpointUrl(info) };
}

export async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL, d: AdminDeps): Promise<void> {
  if (!authorized(req, d.adminToken())) {
    sendJson(res, 401, { error: 'unauthorized' }, { headers: { 'www-authenticate': 'Bearer' }, close: true });
    return;
  }
  const route = `${req.method} ${url.pathname}`;
  switch (route) {
    case `GET ${ADMIN_PREFIX}/health`:
      sendJson(res, 200, { ok: true });
      return;
    case `GET ${ADMIN_PREFIX}/state`: {
      const taskId = url.searchParams.get('task_id');
      const key = url.searchParams.get('idempotency_key');
      if (taskId !== null) sendJson(res, 200, d.readBack.task(taskId));
      else if (key !== null) sendJson(res, 200, { pending: d.readBack.pending(), events: d.readBack.eventsForKey(key) });
      else sendJson(res, 200, { ...d.readBack.snapshot(), ...d.config(), endpoints: d.endpoints().map((e) => withUrl(d, e)) });
      return;
    }
    case `GET ${ADMIN_PREFIX}/events`: {
      const after = Number(url.searchParams.get('after') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '1000');
      if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1) {
        sendJson(res, 400, { error: 'bad_query', message: 'after and limit must be non-negative integers' });
        return;
      }
      const events = d.readBack.events(after, limit);
      sendJson(res, 200, { pending: d.readBack.pending(), events, next_after: events.length ? events[events.length - 1]!.seq : after });
      return;
    }
    case `GET ${ADMIN_PREFIX}/endpoints`:
      sendJson(res, 200, { endpoints: d.endpoints().map((e) => withUrl(d, e)) });
      return;
    case `POST ${ADMIN_PREFIX}/endpoints`: {
      const body = await readBody(req, ADMIN_BODY_CAP);
      if (!body.ok) {
        sendJson(res, 413, { error: 'payload_too_large' }, { close: true });
        return;
      }
      let spec: Record<string, unknown>;
      try {
        spec = JSON.parse(body.bytes.toString('utf8')) as Record<string, unknown>;
        if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new Error('not an object');
      } catch {
        sendJson(res, 400, { error: 'invalid_json', message: 'expected a JSON object' });
        return;
      }
      try {
        const info = d.register({
          id: spec.id as string | undefined,
          path: spec.path as string | undefined,
          authentication: spec.authentication as EndpointSpec['authentication'],
          senderBrand: spec.sender_brand as string | undefined,
        });
        sendJson(res, 201, withUrl(d, info));
      } catch (err) {
        if (err instanceof EndpointLimitError) sendJson(res, 409, { error: 'endpoint_limit', message: err.message });
        else if (err instanceof EndpointConfigError) sendJson(res, 400, { error: 'invalid_endpoint', message: err.message });
        else throw err;
      }
      return;
    }
    default:
      sendJson(res, 404, { error: 'not_found' });
  }
}
