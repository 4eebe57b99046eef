/**
 * A storyboard's literal idempotency keys, made the run's own. A key the storyboard writes out
 * (`idempotency_key: "pending-creatives-transition-v1"`) would make the run's second transport
 * pass replay what the first created (an A2A cancel of the buy MCP already canceled answers
 * NOT_CANCELLABLE), and a second run against the same agent replay the first: a failure of the
 * harness's own making, not the agent's. So a well-formed literal key is sent with a suffix naming
 * the transport and the run's seed; every step of the pass that writes the same key sends the same
 * suffixed key, so replays and conflicts inside the storyboard stay what the author wrote.
 * Generated keys (`$generate:…`), captured ones (`$context.…`) and malformed keys (a step testing
 * their refusal) are sent as they are.
 */
import { createHash } from 'node:crypto';

/** The key grammar of the protocol (digest 3.x idempotency, "Key format"): 16 to 255 of these characters. */
const KEY = /^[A-Za-z0-9_.:-]{16,255}$/;

/** The suffix of a run's transport pass: `.pc-mcp-<8 hex of the seed>`. */
export const passSuffix = (transport: string, seed: string): string => `.pc-${transport}-${createHash('sha256').update(seed).digest('hex').slice(0, 8)}`;

/**
 * The request with its literal idempotency key made the pass's own, and the note saying so; the
 * request unchanged when the authored key is not a well-formed literal.
 */
export function withPassKey(authored: unknown, args: Record<string, unknown>, suffix: string): { args: Record<string, unknown>; note?: string } {
  const literal = authored && typeof authored === 'object' ? (authored as Record<string, unknown>).idempotency_key : undefined;
  if (typeof literal !== 'string' || !KEY.test(literal) || args.idempotency_key !== literal) return { args };
  const key = `${literal}${suffix}`;
  if (!KEY.test(key)) return { args };
  return {
    args: { ...args, idempotency_key: key },
    note: `the storyboard's idempotency_key ${literal} is sent as ${key}: one per transport pass and run, so no pass replays another's`,
  };
}
