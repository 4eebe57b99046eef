/** `--target 3.0|3.1|3.2`: the protocol line a command judges against (harness/core/protocol/lines.ts). */
import { UsageError } from './usage.js';
import { isProtocolLine, PROTOCOL_LINES, type ProtocolLine } from '../core/protocol/lines.js';

/** The line named by `--target`, undefined when the flag is absent; a usage error naming the lines otherwise. */
export function parseTargetFlag(command: string, raw: string | undefined): ProtocolLine | undefined {
  if (raw === undefined) return undefined;
  if (!isProtocolLine(raw)) throw new UsageError(`${command}: --target must be one of ${PROTOCOL_LINES.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw;
}
