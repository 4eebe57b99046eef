/**
 * Plain-text helpers shared by every renderer. Agent-controlled text reaches reports through
 * these functions first: characters that are illegal in XML 1.0, terminal control characters
 * (ANSI/C1 escape injection) and bidirectional overrides ("trojan source" spoofing) are
 * replaced by a visible `\uXXXX` spelling, so the evidence stays readable and nothing hidden
 * reaches a terminal, an XML parser or a browser.
 */
import type { SpecRef } from '../harness/core/engine/result.js';

/**
 * C0 controls except TAB/LF/CR, DEL, C1 controls, unpaired surrogates (the `u` flag makes the
 * surrogate range match only lone halves), U+FFFE/U+FFFF, and bidi controls.
 */
const UNSAFE_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uD800-\uDFFF\uFFFE\uFFFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

function visible(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A line that starts (after blanks) with `::` or `##[` is a GitHub Actions workflow command when
 * it reaches a job's log; agent text never may: its first character is spelled `\uXXXX`.
 */
const WORKFLOW_COMMAND = /(^|[\r\n])([ \t]*)(::|##\[)/g;

function defuse(_m: string, lineStart: string, blanks: string, command: string): string {
  return `${lineStart}${blanks}${visible(command[0])}${command.slice(1)}`;
}

/**
 * Replace unsafe characters by their visible `\uXXXX` spelling (TAB, LF and CR are kept) and
 * defuse workflow commands at line starts.
 */
export function sanitizeText(value: string): string {
  return value.replace(UNSAFE_CHARS, visible).replace(WORKFLOW_COMMAND, defuse);
}

/** Sanitised, whitespace collapsed to single spaces (no CR/LF/TAB), cut to `max` characters. */
export function oneLine(value: string, max = 300): string {
  const flat = sanitizeText(value).replace(/\s+/g, ' ').trim();
  return truncate(flat, max);
}

/** Cut to `max` characters (never inside a surrogate pair), marking the cut with `…`. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - 1);
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/**
 * Pretty JSON for evidence values (`expected`, `actual`). Strings are shown as they are (not
 * quoted) when they are the whole value; everything else is JSON. Never throws: BigInt and
 * cycles are spelled out instead of breaking the report.
 */
export function toJsonText(value: unknown, indent = 2): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  const seen = new WeakSet<object>();
  try {
    const text = JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v.toString()}n`;
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[circular]';
          seen.add(v);
        }
        return v;
      },
      indent,
    );
    return text ?? String(value);
  } catch (err) {
    return `[unserialisable: ${(err as Error).message}]`;
  }
}

/** `interface-spec §4.4 (#44-idempotency-rules) rule 2`: the anchor when the reference has one. */
export function specRefText(ref: SpecRef): string {
  return `${ref.doc} §${ref.section}${ref.anchor ? ` (#${ref.anchor})` : ''}${ref.rule ? ` ${ref.rule}` : ''}`;
}

/** `1.234 s` / `12 ms` */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '? ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
