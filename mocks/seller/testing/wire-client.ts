/**
 * Minimal wire clients for the mock seller's own tests: plain fetch, SSE decoded with
 * eventsource-parser, bounded by a timeout on every request. They expose the raw HTTP answer so
 * tests can assert exact status codes and headers.
 */
import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';

const TIMEOUT_MS = 15_000;

export interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC message answering the request (from JSON or from the SSE stream). */
  message?: Record<string, unknown>;
  text: string;
}

function parseSse(text: string): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  const parser = createParser({ onEvent: (event) => messages.push(JSON.parse(event.data) as Record<string, unknown>) });
  parser.feed(text);
  return messages;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: 'manual',
  });
  const text = await res.text();
  let message: Record<string, unknown> | undefined;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) message = parseSse(text).find((m) => 'result' in m || 'error' in m);
  else if (text) {
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      message = undefined;
    }
  }
  return { status: res.status, headers: res.headers, message, text };
}

export interface ToolAnswer {
  answer: RpcAnswer;
  result?: { content?: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  isError: boolean;
  /** Parsed `content[0].text` (undefined when it is not JSON). */
  payload?: Record<string, unknown>;
}

export class McpTestClient {
  sessionId?: string;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly authToken?: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    if (this.authToken) h.authorization = `Bearer ${this.authToken}`;
    if (this.sessionId) {
      h['mcp-session-id'] = this.sessionId;
      h['mcp-protocol-version'] = '2025-06-18';
    }
    return h;
  }

  async initialize(): Promise<RpcAnswer> {
    const answer = await postJson(
      this.url,
      {
        jsonrpc: '2.0',
        id: this.nextId++,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mock-seller-test', version: '1' } },
      },
      this.headers(),
    );
    this.sessionId = answer.headers.get('mcp-session-id') ?? undefined;
    if (answer.status === 200) {
      await postJson(this.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, this.headers());
    }
    return answer;
  }

  rpc(method: string, params: unknown, extraHeaders: Record<string, string> = {}): Promise<RpcAnswer> {
    return postJson(this.url, { jsonrpc: '2.0', id: this.nextId++, method, params }, this.headers(extraHeaders));
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    const answer = await this.rpc('tools/call', { name, arguments: args });
    const result = answer.message?.result as ToolAnswer['result'];
    let payload: Record<string, unknown> | undefined;
    try {
      payload = result?.content?.[0] ? (JSON.parse(result.content[0].text) as Record<string, unknown>) : undefined;
    } catch {
      payload = undefined;
    }
    return { answer, result, isError: result?.isError === true, payload };
  }

  /** Calls and insists on a success; returns the payload. */
  async ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const r = await this.call(name, args);
    if (r.answer.status !== 200 || r.isError || !r.payload) {
      throw new Error(`${name} failed: HTTP ${r.answer.status} ${r.answer.text.slice(0, 500)}`);
    }
    return r.payload;
  }

  /** Calls and insists on a task error; returns the error object. */
  async err(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const r = await this.call(name, args);
    if (!r.isError || !r.payload) throw new Error(`${name} was expected to fail: ${r.answer.text.slice(0, 500)}`);
    return r.payload;
  }
}

export interface A2aAnswer {
  answer: RpcAnswer;
  task?: Record<string, unknown>;
  state?: string;
  /** Last data part of artifacts[0].parts, or first data part of status.message.parts. */
  data?: Record<string, unknown>;
  text?: string;
}

function dataParts(parts: unknown): Record<string, unknown>[] {
  if (!Array.isArray(parts)) return [];
  return parts.filter((p) => p?.kind === 'data').map((p) => p.data as Record<string, unknown>);
}

export async function a2aSend(
  url: string,
  skill: string,
  parameters: Record<string, unknown>,
  opts: { authToken?: string; configuration?: Record<string, unknown> } = {},
): Promise<A2aAnswer> {
  const headers: Record<string, string> = opts.authToken ? { authorization: `Bearer ${opts.authToken}` } : {};
  const answer = await postJson(
    url,
    {
      jsonrpc: '2.0',
      id: randomUUID(),
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: { skill, parameters } }] },
        ...(opts.configuration ? { configuration: opts.configuration } : {}),
      },
    },
    headers,
  );
  const task = answer.message?.result as Record<string, unknown> | undefined;
  const status = task?.status as { state?: string; message?: { parts?: unknown[] } } | undefined;
  const artifacts = task?.artifacts as { parts?: unknown[] }[] | undefined;
  const finalData = dataParts(artifacts?.[0]?.parts);
  const interim = dataParts(status?.message?.parts);
  const text = (status?.message?.parts as { kind: string; text?: string }[] | undefined)?.find((p) => p.kind === 'text')?.text;
  return { answer, task, state: status?.state, data: finalData.at(-1) ?? interim[0], text };
}

export async function a2aGetTask(url: string, id: string, authToken?: string): Promise<A2aAnswer> {
  const headers: Record<string, string> = authToken ? { authorization: `Bearer ${authToken}` } : {};
  const answer = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id } }, headers);
  const task = answer.message?.result as Record<string, unknown> | undefined;
  const status = task?.status as { state?: string } | undefined;
  const artifacts = task?.artifacts as { parts?: unknown[] }[] | undefined;
  return { answer, task, state: status?.state, data: dataParts(artifacts?.[0]?.parts).at(-1) };
}
