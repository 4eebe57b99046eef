/**
 * Protocol lines: the 3.x releases a certifier judges an agent against (digest 6.3
 * `requested_compliance_target`). A rule, a check, a step or an expectation may belong to some
 * lines only (`lines: ["3.1", "3.2"]`); absent means every line. Under a target outside a
 * check's lines the check is not applicable; steps and expectations outside it are skipped, so the
 * target's shape of a rule is what gets judged.
 */

/** The lines a run can target, oldest first. 3.2 is the development line (HEAD, beta bundles). */
export const PROTOCOL_LINES = ['3.0', '3.1', '3.2'] as const;
export type ProtocolLine = (typeof PROTOCOL_LINES)[number];

/** The newest released line (3.1.x; 3.2 has only beta bundles): the target when none is given. */
export const DEFAULT_TARGET: ProtocolLine = '3.1';

export function isProtocolLine(value: unknown): value is ProtocolLine {
  return typeof value === 'string' && (PROTOCOL_LINES as readonly string[]).includes(value);
}

/** Does something that belongs to `lines` (absent: every line) hold under `target`? */
export function inLines(target: ProtocolLine, lines: readonly string[] | undefined): boolean {
  return lines === undefined || lines.includes(target);
}

/** `3.1 and later`, `3.0 and 3.1`, `3.2 only`, `3.0, 3.2`: how a set of lines reads in a report. */
export function describeLines(lines: readonly string[]): string {
  const idx = PROTOCOL_LINES.map((l) => lines.includes(l));
  const first = idx.indexOf(true);
  const last = idx.lastIndexOf(true);
  if (first < 0) return 'no line';
  const contiguous = idx.slice(first, last + 1).every(Boolean);
  if (first === last) return `${PROTOCOL_LINES[first]} only`;
  if (contiguous && last === PROTOCOL_LINES.length - 1) return `${PROTOCOL_LINES[first]} and later`;
  if (contiguous && first === 0) return last === 1 ? `${PROTOCOL_LINES[0]} and ${PROTOCOL_LINES[1]}` : `up to ${PROTOCOL_LINES[last]}`;
  return PROTOCOL_LINES.filter((_, i) => idx[i]).join(', ');
}

/** The line of a release-precision or semver version string (`3.0`, `3.0.6`, `3.1-beta`); undefined for other majors or lines. */
export function lineOfVersion(version: string): ProtocolLine | undefined {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  const line = `${Number(m[1])}.${Number(m[2])}`;
  return isProtocolLine(line) ? line : undefined;
}
