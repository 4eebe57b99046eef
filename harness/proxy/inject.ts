/**
 * Fault injection by the proxy, for testing the side that calls (`--inject RULES --seed N`):
 * each rule fires on an exchange with its probability, decided from the seed and the exchange's
 * sequence number (the same traffic in the same order gets the same faults), and every fault
 * injected is recorded for the report.
 *
 *   call:delay:500ms[:P]    hold a task call that long before forwarding it
 *   call:reset[:P]          forward a task call, then reset the client's connection instead of answering
 *   call:status:503[:P]     answer a task call with that HTTP status (400-599) without forwarding it
 *   webhook:duplicate[:P]   deliver a webhook twice
 *   webhook:reorder[:P]     hold a webhook back and deliver it after the next one to the same receiver
 *   webhook:corrupt-signature[:P]  change one character of a webhook's Signature header
 *
 * P is a probability in (0, 1], default 1.
 */
import { createHash } from 'node:crypto';
import { isObject, tryParseJson } from '../core/transport/jsonrpc.js';

export type InjectRule =
  | { text: string; on: 'call'; kind: 'delay'; ms: number; p: number }
  | { text: string; on: 'call'; kind: 'reset'; p: number }
  | { text: string; on: 'call'; kind: 'status'; status: number; p: number }
  | { text: string; on: 'webhook'; kind: 'duplicate' | 'reorder' | 'corrupt-signature'; p: number };

export interface InjectedFault {
  /** The proxy's sequence number of the exchange. */
  seq: number;
  at: string;
  rule: string;
  /** What was done, one line. */
  what: string;
}

export class InjectRuleError extends Error {}

const MAX_DELAY_MS = 60_000;
const MAX_RECORDED = 1_000;

function probability(raw: string | undefined, rule: string): number {
  if (raw === undefined) return 1;
  const p = Number(raw);
  if (!/^(0?\.\d+|1(\.0+)?|0\.\d+)$/.test(raw) || !(p > 0 && p <= 1))
    throw new InjectRuleError(`${rule}: the probability must be a number in (0, 1], got ${JSON.stringify(raw)}`);
  return p;
}

function parseOne(text: string): InjectRule {
  const parts = text.split(':');
  const [on, kind] = parts;
  const bad = (why: string) => new InjectRuleError(`--inject ${JSON.stringify(text)}: ${why}`);
  if (on === 'call' && kind === 'delay') {
    const m = /^(\d+)(ms|s)$/.exec(parts[2] ?? '');
    if (!m) throw bad('expected call:delay:<N>ms or call:delay:<N>s');
    const ms = Number(m[1]) * (m[2] === 's' ? 1000 : 1);
    if (ms < 1 || ms > MAX_DELAY_MS) throw bad(`the delay must be from 1 ms to ${MAX_DELAY_MS / 1000} s`);
    if (parts.length > 4) throw bad('too many fields');
    return { text, on, kind, ms, p: probability(parts[3], text) };
  }
  if (on === 'call' && kind === 'reset') {
    if (parts.length > 3) throw bad('too many fields');
    return { text, on, kind, p: probability(parts[2], text) };
  }
  if (on === 'call' && kind === 'status') {
    const status = Number(parts[2]);
    if (!/^\d{3}$/.test(parts[2] ?? '') || status < 400 || status > 599) throw bad('expected call:status:<400-599>');
    if (parts.length > 4) throw bad('too many fields');
    return { text, on, kind, status, p: probability(parts[3], text) };
  }
  if (on === 'webhook' && (kind === 'duplicate' || kind === 'reorder' || kind === 'corrupt-signature')) {
    if (parts.length > 3) throw bad('too many fields');
    return { text, on, kind, p: probability(parts[2], text) };
  }
  throw bad('unknown rule (call:delay, call:reset, call:status, webhook:duplicate, webhook:reorder, webhook:corrupt-signature)');
}

/** Rules from `--inject` values (each may hold several, comma-separated). */
export function parseInjectRules(values: readonly string[]): InjectRule[] {
  return values
    .flatMap((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .map(parseOne);
}

export class Injector {
  private readonly recorded: InjectedFault[] = [];
  private readonly counts = new Map<string, number>();
  private total = 0;

  constructor(
    readonly rules: readonly InjectRule[],
    readonly seed: string,
  ) {}

  /** The rules of one kind of exchange that fire on exchange `seq` (a uniform draw per rule and exchange, from the seed). */
  firing(on: 'call' | 'webhook', seq: number): InjectRule[] {
    return this.rules.filter((r, i) => {
      if (r.on !== on) return false;
      if (r.p >= 1) return true;
      const h = createHash('sha256').update(`${this.seed}\0${i}\0${seq}`).digest();
      return h.readUInt32BE(0) / 2 ** 32 < r.p;
    });
  }

  record(seq: number, rule: InjectRule, what: string): void {
    this.total++;
    this.counts.set(rule.text, (this.counts.get(rule.text) ?? 0) + 1);
    if (this.recorded.length < MAX_RECORDED) this.recorded.push({ seq, at: new Date().toISOString(), rule: rule.text, what });
  }

  /** What the report keeps: the rules, the seed, counts per rule and the first faults in detail. */
  summary(): { seed: string; rules: string[]; total: number; by_rule: Record<string, number>; faults: InjectedFault[] } {
    return {
      seed: this.seed,
      rules: this.rules.map((r) => r.text),
      total: this.total,
      by_rule: Object.fromEntries(this.rules.map((r) => [r.text, this.counts.get(r.text) ?? 0])),
      faults: [...this.recorded],
    };
  }
}

/** A JSON-RPC task call (MCP tools/call, A2A message/send): the exchanges call rules act on. */
export function isTaskCall(method: string, body: string): boolean {
  if (method !== 'POST') return false;
  const parsed = tryParseJson(body);
  return parsed.ok && isObject(parsed.value) && (parsed.value.method === 'tools/call' || parsed.value.method === 'message/send');
}
