/**
 * The `rest` column: the registry face has no task to call, so this transport stands for the
 * registry's REST API (and the discovery files). Its `request` is what the registry and
 * discovery suites use: captured like every call of the run, the API key sent as a bearer to the
 * registry's origin only, under the run's address policy. `open` only asks whether the registry
 * answers HTTP at all: a status it should not give is for the checks to judge, not a reason to
 * block them.
 */
import type { AddressPolicy } from '../net/address-policy.js';
import { HttpClient, type HttpResult } from '../transport/http-client.js';
import { noTaskReply } from '../transport/reply.js';
import type { ExchangeRecorder, OpenInfo, TaskListReply, TaskReply, Transport, TransportStats } from '../transport/types.js';
import type { RegistryTarget } from './target.js';

const NO_TASKS = 'the registry face has no task to call';

export interface RegistryRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';
  /** Path under the registry's base URL (`/api/registry/stats`), or an absolute URL (a discovery file). */
  path: string;
  query?: Record<string, string>;
  /** JSON body (serialized here) or raw text. */
  body?: unknown;
  headers?: Record<string, string>;
  /** `key`: the run's API key; `none`: no Authorization header; `wrong`: a key the registry cannot know. */
  auth?: 'key' | 'none' | 'wrong';
  purpose: string;
  signal?: AbortSignal;
}

export class RegistryFaceTransport implements Transport {
  readonly kind = 'rest' as const;
  readonly endpoint: string;
  private readonly http: HttpClient;
  private calls = 0;

  constructor(
    readonly target: RegistryTarget,
    o: { capture: ExchangeRecorder; addressPolicy: AddressPolicy; connectTimeoutMs: number; totalTimeoutMs: number; maxResponseBytes: number },
  ) {
    this.endpoint = target.url ?? target.adagentsUrl ?? target.brandUrl ?? '';
    this.http = new HttpClient({
      ...o,
      ...(target.apiKey ? { authToken: target.apiKey } : {}),
      credentialOrigins: target.url ? [target.url] : [],
    });
  }

  /** A key of the right shape that no registry issued (for the wrong-key probes). */
  static readonly WRONG_KEY = 'proto-comply-not-a-registry-key-0000000000';

  async request(r: RegistryRequest): Promise<HttpResult> {
    this.calls++;
    const url = new URL(/^https?:\/\//.test(r.path) ? r.path : `${this.target.url ?? ''}${r.path}`);
    for (const [k, v] of Object.entries(r.query ?? {})) url.searchParams.set(k, v);
    const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    return this.http.send({
      method: r.method,
      url: url.href,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...r.headers },
      body,
      transport: 'rest',
      purpose: r.purpose,
      signal: r.signal,
      auth: r.auth === 'none' ? { mode: 'none' } : r.auth === 'wrong' ? { mode: 'bearer', token: RegistryFaceTransport.WRONG_KEY } : { mode: 'default' },
    });
  }

  async open(signal?: AbortSignal): Promise<OpenInfo> {
    if (!this.target.url) return { transport: 'rest', exchanges: [], serverName: 'discovery files (no registry)' };
    const r = await this.request({ method: 'GET', path: '/api/registry/stats', auth: 'none', purpose: 'profile', signal });
    return { transport: 'rest', exchanges: [r.exchange], serverName: 'registry', ...(r.ok ? {} : { failure: r.failure }) };
  }

  async listTasks(): Promise<TaskListReply> {
    return { transport: 'rest', names: [], source: 'tools/list', exchanges: [] };
  }

  async call(task: string): Promise<TaskReply> {
    return noTaskReply('rest', task, NO_TASKS);
  }

  getTask(taskId: string): Promise<TaskReply> {
    return this.call(`tasks/get ${taskId}`);
  }

  stats(): TransportStats {
    return { sessionsOpened: 0, calls: this.calls };
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
