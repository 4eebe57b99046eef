/**
 * The registry API's route table: each route is a method, a path template (`{name}` segments, as
 * in OpenAPI), who may call it and its handler. The table is the one place the service's routes are
 * listed: the dispatcher matches on it, and the OpenAPI description is checked against it. A path
 * no route has is 404; a known path with another method is 405 with `Allow`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Caller, callerOf, type KeyRing } from './callers.js';
import { HttpError, send } from './respond.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who may call a route (checked again per agent by handlers of owner-only routes). */
export type Access = 'public' | 'member' | 'owner' | 'operator';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  caller: Caller;
}

export interface Route {
  method: Method;
  /** e.g. `/api/registry/agents/{encodedUrl}/badge/{role}.svg` */
  path: string;
  access: Access;
  summary: string;
  handle(ctx: RouteContext): Promise<void> | void;
}

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path
    .split(/(\{[A-Za-z]+\})/)
    .map((part) => {
      const m = /^\{([A-Za-z]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]!);
      return '([^/]+)';
    })
    .join('');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/** On a public route a key that is not valid only means the public view; elsewhere it is a 401. */
function callerOrAnonymous(req: IncomingMessage, keys: KeyRing, access: Access): Caller {
  try {
    return callerOf(req, keys);
  } catch (e) {
    if (access === 'public' && e instanceof HttpError) return { kind: 'anonymous' };
    throw e;
  }
}

export function createRouter(routes: readonly Route[], keys: KeyRing): (req: IncomingMessage, res: ServerResponse) => void {
  const compiled = routes.map(compile);
  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://registry.invalid');
    const method = req.method ?? 'GET';
    const matching = compiled.filter((c) => c.pattern.test(url.pathname));
    if (method === 'OPTIONS' && matching.length) {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': [...new Set(matching.map((c) => c.route.method))].join(', '),
        'access-control-allow-headers': 'authorization, content-type, x-api-key',
      });
      res.end();
      return;
    }
    // A literal segment wins over a parameter (`…/storyboard-status` before `…/{encodedUrl}`): the fewest parameters first.
    const hit = matching.filter((c) => c.route.method === method).sort((a, b) => a.names.length - b.names.length)[0];
    if (!hit) {
      if (matching.length)
        throw new HttpError(405, `${method} is not allowed on ${url.pathname}`, { allow: [...new Set(matching.map((c) => c.route.method))].join(', ') });
      throw new HttpError(404, `no such endpoint: ${method} ${url.pathname}`);
    }
    const values = hit.pattern.exec(url.pathname)!.slice(1);
    const params: Record<string, string> = {};
    hit.names.forEach((n, i) => {
      params[n] = values[i]!;
    });
    const caller = callerOrAnonymous(req, keys, hit.route.access);
    await hit.route.handle({ req, res, url, params, caller });
  };
  return (req, res) => {
    dispatch(req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof HttpError) send(res, e.status, { error: e.message, ...e.extra }, e.headers);
      else send(res, 500, { error: 'internal error' });
    });
  };
}
