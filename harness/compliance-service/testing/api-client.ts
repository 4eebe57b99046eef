/**
 * The registry API as its tests call it: JSON requests with an optional bearer key, the path of
 * an agent's operations, and a bounded wait for an agent's compliance detail to reach a state.
 */
export type Json = Record<string, unknown>;

export interface ApiReply {
  status: number;
  headers: Headers;
  body: Json;
}

/** `call(path, key?, method?, body?, base?)` against the service at `base()` (read at call time). */
export function apiCaller(base: () => string) {
  return async (path: string, key?: string, method = 'GET', body?: unknown, at = base()): Promise<ApiReply> => {
    const r = await fetch(`${at}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, headers: r.headers, body: (await r.json()) as Json };
  };
}

/** `/api/registry/agents/<url-encoded agent URL>`. */
export const agentPath = (url: string): string => `/api/registry/agents/${encodeURIComponent(url)}`;

/** Reads `read()` every 100 ms until `test` holds (returning that reading), for at most 30 s. */
export async function untilDetail(read: () => Promise<Json>, test: (d: Json) => boolean, what: string): Promise<Json> {
  let last: Json | undefined;
  for (let i = 0; i < 300; i++) {
    last = await read();
    if (test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = last && { status: last.status, headline: last.headline, failing_checks: last.failing_checks, problem: last.problem };
  throw new Error(`${what} did not happen in 30 s; last read: ${JSON.stringify(seen).slice(0, 600)}`);
}
