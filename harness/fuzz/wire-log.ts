/**
 * The request bodies of a fuzz case, as sent: every task call's arguments as the JSON text that
 * went over the wire (its idempotency keys and account included). A failing case keeps them in the
 * report (`fuzz.sent`), and `--replay` re-sends exactly those bytes instead of drawing the case
 * afresh from its seed (issue 36). The envelope (JSON-RPC id, MCP session, A2A message id) is the
 * transport's own and fresh on every call; the task arguments are byte for byte the recorded ones
 * (a transport serialises them with JSON.stringify, and JSON.stringify(JSON.parse(t)) is t for any
 * text JSON.stringify made).
 */
import type { Transport } from '../core/transport/types.js';

/** One call of a case: the task on the wire and its arguments' JSON text. */
export interface SentCall {
  task: string;
  arguments: string;
}

/** The bodies of a case are kept up to this size in all; a larger case is replayed from its seed and path. */
export const MAX_SENT_BYTES = 16 * 1024;
/** Calls per case kept (a model sequence makes a few dozen). */
const MAX_SENT_CALLS = 64;

/** The run's handle on its transport's bodies: one case at a time. */
export interface CaseWire {
  /** A new case starts: forget the previous one's calls (and stop re-sending a replay). */
  begin(): void;
  /** The current case's calls, or undefined when they went over the caps (MAX_SENT_BYTES, 64 calls). */
  sent(): SentCall[] | undefined;
  /** The next case re-sends these bodies, in order, in place of what it draws (a call of another task is sent as drawn). */
  replay(calls: readonly SentCall[]): void;
  /** Calls of the replayed case sent as drawn (another task than recorded, or more calls than recorded). */
  diverged(): number;
}

/** Wraps a transport so the run sees its case's bodies and can re-send recorded ones. */
export function wireLogged(t: Transport): { transport: Transport; wire: CaseWire } {
  // The arguments as sent, serialised only when a case's calls are asked for (a failing case):
  // the calls of passing cases cost a reference each. A property never changes arguments it sent.
  let calls: { task: string; args: Record<string, unknown>; text?: string }[] = [];
  let over = false;
  let pending: SentCall[] = [];
  let replaying = false;
  let armed: SentCall[] | undefined;
  let divergedCalls = 0;
  const wire: CaseWire = {
    begin() {
      calls = [];
      over = false;
      // The case after replay() re-sends; the one after that draws again.
      replaying = armed !== undefined;
      pending = armed ? [...armed] : [];
      armed = undefined;
    },
    sent() {
      if (over) return undefined;
      let bytes = 0;
      const out: SentCall[] = [];
      for (const c of calls) {
        const text = c.text ?? JSON.stringify(c.args);
        bytes += text.length + c.task.length;
        if (bytes > MAX_SENT_BYTES) return undefined;
        out.push({ task: c.task, arguments: text });
      }
      return out;
    },
    replay(recorded) {
      armed = [...recorded];
      divergedCalls = 0;
    },
    diverged: () => divergedCalls,
  };
  const transport: Transport = {
    kind: t.kind,
    endpoint: t.endpoint,
    open: (signal) => t.open(signal),
    listTasks: (signal) => t.listTasks(signal),
    call: (task, given, options) => {
      let args = given;
      let text: string | undefined;
      if (replaying) {
        const next = pending[0];
        if (next && next.task === task) {
          pending.shift();
          text = next.arguments;
          args = JSON.parse(text) as Record<string, unknown>;
        } else divergedCalls += 1;
      }
      if (!over) {
        if (calls.length >= MAX_SENT_CALLS) over = true;
        else calls.push({ task, args, ...(text !== undefined ? { text } : {}) });
      }
      return t.call(task, args, options);
    },
    getTask: (id, options) => t.getTask(id, options),
    stats: () => t.stats(),
    close: () => t.close(),
  };
  return { transport, wire };
}

/** Recorded calls from a report (untrusted JSON): well-formed entries only, within the caps. */
export function parseSentCalls(value: unknown): SentCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SENT_CALLS) return undefined;
  let bytes = 0;
  const out: SentCall[] = [];
  for (const c of value) {
    const task = (c as SentCall | null)?.task;
    const text = (c as SentCall | null)?.arguments;
    if (typeof task !== 'string' || typeof text !== 'string' || task.length > 256) return undefined;
    bytes += text.length + task.length;
    if (bytes > MAX_SENT_BYTES) return undefined;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    } catch {
      return undefined;
    }
    out.push({ task, arguments: text });
  }
  return out;
}
