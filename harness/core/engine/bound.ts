/**
 * Bounds on everything an agent can make a result hold: a check's message, notes and evidence
 * values are cut where results are created, and a whole run is shrunk (exchange bodies, then
 * exchanges) until its JSON fits a cap, whatever the agent sends. Cuts are marked (`…`,
 * `[truncated: …]`) so a reader knows something was left out.
 */
import { MAX_JSON_DEPTH } from '../transport/bounded-json.js';
import type { CheckResult, Evidence, RunResult } from './result.js';
import type { StoryboardStepInfo, ValidationRecord } from './storyboard-step.js';
import type { WireExchange } from '../transport/types.js';

export const LIMITS = {
  /** A check's one-line message, the headline, a transport problem. */
  message: 2_000,
  /** One note, and how many notes a check keeps. */
  note: 1_000,
  notes: 40,
  /** `expected` / `actual` as JSON text. */
  value: 16 * 1024,
  /** Exchanges kept per check. */
  exchanges: 60,
  /** The whole run's JSON (before reports repeat parts of it). */
  run: 8 * 1024 * 1024,
} as const;

/** Cut a string to `max` characters (never inside a surrogate pair), marking the cut. */
export function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = max;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}… [truncated: ${value.length - end} more characters]`;
}

/** JSON text of a value without throwing; undefined when it has none. */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    return `[unserialisable: ${(err as Error).message}]`;
  }
}

function tooDeep(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_JSON_DEPTH) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (tooDeep(v, depth + 1)) return true;
  return false;
}

/** An evidence value that fits: kept when small and shallow, else its JSON text cut to size. */
export function boundValue(value: unknown, max: number = LIMITS.value): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return cutText(value, max);
  if (tooDeep(value)) return `[value nested deeper than ${MAX_JSON_DEPTH} levels; not kept]`;
  const text = jsonText(value);
  if (text === undefined) return undefined;
  return text.length <= max ? value : cutText(text, max);
}

function boundExchanges(exchanges: WireExchange[], max: number): WireExchange[] {
  if (exchanges.length <= max) return exchanges;
  // Keep the first and the last ones: how it started and how it ended.
  const head = Math.ceil(max / 2);
  return [...exchanges.slice(0, head), ...exchanges.slice(exchanges.length - (max - head))];
}

function boundNotes(notes: string[] | undefined, extra: string[]): string[] | undefined {
  const all = [...(notes ?? []), ...extra];
  if (all.length === 0) return notes;
  const kept = all.slice(0, LIMITS.notes).map((n) => cutText(String(n), LIMITS.note));
  if (all.length > LIMITS.notes) kept.push(`[${all.length - LIMITS.notes} more notes not kept]`);
  return kept;
}

function boundEvidence(e: Evidence): Evidence {
  const exchanges = Array.isArray(e.exchanges) ? e.exchanges : [];
  const dropped = exchanges.length - LIMITS.exchanges;
  const out: Evidence = {
    ...e,
    exchanges: boundExchanges(exchanges, LIMITS.exchanges),
  };
  if ('expected' in e) out.expected = boundValue(e.expected);
  if ('actual' in e) out.actual = boundValue(e.actual);
  if (typeof e.pointer === 'string') out.pointer = cutText(e.pointer, LIMITS.note);
  const notes = boundNotes(e.notes, dropped > 0 ? [`${dropped} exchange(s) in the middle not kept (of ${exchanges.length})`] : []);
  if (notes !== undefined) out.notes = notes;
  return out;
}

/** A storyboard step's findings with their agent-controlled parts bounded, like evidence. */
function boundStoryboardStep(s: StoryboardStepInfo): StoryboardStepInfo {
  const out: StoryboardStepInfo = { ...s };
  if (s.validations)
    out.validations = s.validations.map((v) => {
      const b: ValidationRecord = { ...v };
      if (typeof v.message === 'string') b.message = cutText(v.message, LIMITS.message);
      if ('expected' in v) b.expected = boundValue(v.expected);
      if ('actual' in v) b.actual = boundValue(v.actual);
      if (typeof v.pointer === 'string') b.pointer = cutText(v.pointer, LIMITS.note);
      return b;
    });
  if (s.skip) out.skip = { ...s.skip, detail: cutText(s.skip.detail, LIMITS.message) };
  if (s.reply?.failure !== undefined) out.reply = { ...s.reply, failure: cutText(s.reply.failure, LIMITS.message) };
  return out;
}

/** A check result with its agent-controlled parts bounded. */
export function boundCheckResult(r: CheckResult): CheckResult {
  const out: CheckResult = { ...r, message: cutText(String(r.message ?? ''), LIMITS.message) };
  if (r.evidence) out.evidence = boundEvidence(r.evidence);
  if (r.storyboard_step) out.storyboard_step = boundStoryboardStep(r.storyboard_step);
  if (typeof r.gap === 'string') out.gap = cutText(r.gap, LIMITS.note);
  return out;
}

function shrinkExchange(x: WireExchange, bodyChars: number): WireExchange {
  const cut = (b: string | undefined, truncated: boolean | undefined) =>
    b !== undefined && b.length > bodyChars
      ? { body: cutText(b, bodyChars), body_truncated: true as const }
      : { body: b ?? '', ...(truncated ? { body_truncated: true as const } : {}) };
  return {
    ...x,
    request: { ...x.request, url: cutText(x.request.url, 4_096), ...cut(x.request.body, x.request.body_truncated) },
    ...(x.response ? { response: { ...x.response, ...cut(x.response.body, x.response.body_truncated) } } : {}),
    ...(x.error !== undefined ? { error: cutText(x.error, LIMITS.message) } : {}),
  };
}

function size(value: unknown): number {
  return jsonText(value)?.length ?? 0;
}

/**
 * The run with every check bounded and, when its JSON is still above `cap`, exchange bodies cut
 * (8 KiB, then 1 KiB), then exchanges dropped, until it fits. Never throws.
 */
export function boundRun(run: RunResult, cap: number = LIMITS.run): RunResult {
  let out: RunResult = {
    ...run,
    headline: cutText(String(run.headline ?? ''), LIMITS.message),
    transport_info: run.transport_info.map((t) => ({
      ...t,
      ...(t.problem !== undefined ? { problem: cutText(t.problem, LIMITS.message) } : {}),
      ...(t.server !== undefined ? { server: cutText(t.server, 400) } : {}),
      declared_tasks: t.declared_tasks.slice(0, 500).map((d) => cutText(d, 200)),
    })),
    suites: run.suites.map((s) =>
      s.first_failure ? { ...s, first_failure: { ...s.first_failure, message: cutText(s.first_failure.message, LIMITS.message) } } : s,
    ),
    checks: run.checks.map(boundCheckResult),
  };
  for (const bodyChars of [8 * 1024, 1024, -1]) {
    if (size(out) <= cap) return out;
    out = {
      ...out,
      checks: out.checks.map((c) => {
        if (!c.evidence) return c;
        const exchanges = bodyChars < 0 ? [] : c.evidence.exchanges.map((x) => shrinkExchange(x, bodyChars));
        const note = bodyChars < 0 ? [`${c.evidence.exchanges.length} exchange(s) not kept: the report reached its size cap`] : [];
        return { ...c, evidence: { ...c.evidence, exchanges, ...(note.length ? { notes: boundNotes(c.evidence.notes, note) } : {}) } };
      }),
    };
  }
  return out;
}
