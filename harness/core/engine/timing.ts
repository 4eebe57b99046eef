/**
 * Where a run's time went (the `timing` member of a RunResult): the wall time, how much of it the
 * harness spent waiting on the agent (the run's HTTP exchanges with it, summed and as the wall time
 * with at least one in flight), the wall time with none in flight (harness work and deliberate
 * waits: webhook quiet periods, poll pauses), the harness process's CPU, and the floor a run at
 * this concurrency could reach if waiting on the agent were all it did.
 */

/** One exchange: start and end in milliseconds on any one clock. */
export interface Interval {
  start: number;
  end: number;
}

export interface RunTiming {
  /** The run's wall time (= duration_ms). */
  wall_ms: number;
  /** Checks calling the agent at once (the run's concurrency). */
  concurrency: number;
  /** HTTP exchanges with the agent the run's transports made. */
  agent_calls: number;
  /** Their durations summed: time spent waiting on the agent, over all slots. */
  agent_wait_ms: number;
  /** Wall time with at least one exchange in flight. */
  agent_busy_ms: number;
  /** Wall time with no exchange in flight: harness work and deliberate waits (webhook quiet periods, poll pauses). */
  no_call_ms: number;
  /** agent_wait_ms / wall_ms: exchanges in flight on average. */
  mean_in_flight: number;
  /** agent_wait_ms / concurrency: the wall time if every slot always waited on the agent. */
  ideal_ms: number;
  /** CPU (user + system) of the harness process during the run; includes mocks running in it. */
  harness_cpu_ms: number;
}

/** Total length of the union of intervals (overlaps counted once). */
export function unionLength(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let from = Number.NEGATIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const { start, end } of sorted) {
    if (start > to) {
      if (to > from) total += to - from;
      from = start;
      to = end;
    } else if (end > to) to = end;
  }
  if (to > from) total += to - from;
  return total;
}

export function runTiming(o: { wallMs: number; concurrency: number; exchanges: readonly Interval[]; cpuMicros: number }): RunTiming {
  const wait = o.exchanges.reduce((s, x) => s + Math.max(0, x.end - x.start), 0);
  const busy = Math.min(o.wallMs, unionLength(o.exchanges));
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    wall_ms: o.wallMs,
    concurrency: o.concurrency,
    agent_calls: o.exchanges.length,
    agent_wait_ms: Math.round(wait),
    agent_busy_ms: Math.round(busy),
    no_call_ms: Math.max(0, Math.round(o.wallMs - busy)),
    mean_in_flight: o.wallMs > 0 ? round1(wait / o.wallMs) : 0,
    ideal_ms: Math.round(wait / o.concurrency),
    harness_cpu_ms: Math.round(o.cpuMicros / 1000),
  };
}

/** One line for the terminal summary. */
export function timingLine(t: RunTiming): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const over = t.ideal_ms > 0 ? ` (${(t.wall_ms / t.ideal_ms).toFixed(2)}×)` : '';
  return (
    `Time: ${s(t.wall_ms)} wall; waiting on the agent ${s(t.agent_wait_ms)} over ${t.agent_calls} calls, ` +
    `${t.mean_in_flight} in flight on average of ${t.concurrency}; no call in flight ${s(t.no_call_ms)} (harness work and deliberate waits); ` +
    `harness CPU ${s(t.harness_cpu_ms)}; floor at concurrency ${t.concurrency}: ${s(t.ideal_ms)}${over}`
  );
}
