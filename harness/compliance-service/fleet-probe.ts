/**
 * A one-shot fleet run (`registry probe`): every agent of a list probed once, `concurrency` at a
 * time and at most `perHost` on one host, soonest-listed first; results in list order. The agent
 * list is a JSON array (of URLs or of `{url, transports?, token?, auth_token?}`) or a text file
 * with one URL per line (`#` comments).
 */
import { readFile } from 'node:fs/promises';
import type { RunResult } from '../core/engine/result.js';
import { AgentInputError, agentInputOf } from './agent-input.js';
import { type ProbeSettings, type Prober, probeAgent } from './probe.js';
import { hostOf } from './scheduler.js';
import type { AgentInput, AgentRow } from './types.js';

export const MAX_FLEET = 10_000;

export class AgentListError extends Error {
  override name = 'AgentListError';
}

/** The agents of a list file, each checked as a registration is; the first bad entry is named with its position. */
export async function readAgentList(file: string): Promise<AgentInput[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new AgentListError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let entries: unknown[];
  if (/^\s*\[/.test(text)) {
    try {
      entries = JSON.parse(text) as unknown[];
    } catch (e) {
      throw new AgentListError(`${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(entries)) throw new AgentListError(`${file} must hold a JSON array`);
  } else {
    entries = text
      .split(/\r?\n/)
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);
  }
  if (entries.length === 0) throw new AgentListError(`${file} lists no agent`);
  if (entries.length > MAX_FLEET) throw new AgentListError(`${file} lists ${entries.length} agents; at most ${MAX_FLEET}`);
  const seen = new Set<string>();
  return entries.map((e, i) => {
    try {
      const input = agentInputOf(typeof e === 'string' ? { url: e } : e);
      if (seen.has(input.url)) throw new AgentInputError(`${input.url} is listed twice`);
      seen.add(input.url);
      return input;
    } catch (err) {
      if (err instanceof AgentInputError) throw new AgentListError(`${file}: agent ${i + 1}: ${err.message}`);
      throw err;
    }
  });
}

export interface FleetProbeOptions {
  concurrency: number;
  perHost: number;
  settings: ProbeSettings;
  probe?: Prober;
  /** Each agent as it finishes (the progress bar). */
  onDone?: (index: number, result: RunResult) => void;
}

export async function probeFleet(agents: readonly AgentInput[], o: FleetProbeOptions): Promise<RunResult[]> {
  const probe = o.probe ?? probeAgent;
  const results: RunResult[] = new Array(agents.length);
  const waiting = agents.map((_, i) => i);
  const perHost = new Map<string, number>();
  let running = 0;
  return new Promise<RunResult[]>((resolve) => {
    const pump = (): void => {
      if (waiting.length === 0 && running === 0) {
        resolve(results);
        return;
      }
      for (let k = 0; k < waiting.length && running < o.concurrency; ) {
        const i = waiting[k]!;
        const host = hostOf(agents[i]!.url);
        if ((perHost.get(host) ?? 0) >= o.perHost) {
          k++;
          continue;
        }
        waiting.splice(k, 1);
        running++;
        perHost.set(host, (perHost.get(host) ?? 0) + 1);
        const a = agents[i]!;
        const row: AgentRow = {
          ...a,
          id: i + 1,
          createdAt: '',
          status: 'unknown',
          nextDueAt: 0,
          failures: 0,
          capabilities: [],
          monitoringPaused: false,
          optOut: false,
          requalificationRequired: false,
        };
        void probe(row, o.settings).then((r) => {
          results[i] = r;
          running--;
          perHost.set(host, (perHost.get(host) ?? 1) - 1);
          o.onDone?.(i, r);
          pump();
        });
      }
    };
    pump();
  });
}
