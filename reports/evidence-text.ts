/**
 * A compact plain-text rendering of a check's evidence: expected vs actual, the JSON pointer,
 * notes, and one line per wire exchange (request line and status). Used where a short text
 * body fits (JUnit failure bodies, Allure traces). The output is sanitised (see text.ts) but
 * not escaped: the caller escapes for its format.
 */
import type { Evidence } from '../harness/core/engine/result.js';
import type { WireExchange } from '../harness/core/transport/types.js';
import { oneLine, sanitizeText, toJsonText, truncate } from './text.js';

export interface EvidenceTextOptions {
  /** Cap for the expected/actual values, in characters. Default 2000. */
  maxValueChars?: number;
  /** At most this many exchanges are listed. Default 20. */
  maxExchanges?: number;
}

/** `#3 mcp tools/call get_products: POST https://host/mcp → 200 (12 ms)` */
export function exchangeLine(ex: WireExchange): string {
  const request = `${oneLine(ex.request.method, 20)} ${oneLine(ex.request.url, 300)}`;
  const outcome = ex.response
    ? `${ex.response.status}${ex.response.body_truncated ? ' (body truncated)' : ''}`
    : `no response: ${oneLine(ex.error ?? 'unknown error', 200)}`;
  const extra = ex.response && ex.error ? `; ${oneLine(ex.error, 200)}` : '';
  return `#${ex.seq} ${ex.transport} ${oneLine(ex.purpose, 120)}: ${request} → ${outcome}${extra} (${Math.round(ex.duration_ms)} ms)`;
}

function valueText(value: unknown, max: number): string {
  return truncate(sanitizeText(toJsonText(value)), max);
}

export function evidenceText(evidence: Evidence | undefined, options: EvidenceTextOptions = {}): string {
  if (!evidence) return '';
  const maxValue = options.maxValueChars ?? 2000;
  const maxExchanges = options.maxExchanges ?? 20;
  const lines: string[] = [];
  if (evidence.expected !== undefined) lines.push(`expected: ${valueText(evidence.expected, maxValue)}`);
  if (evidence.actual !== undefined) lines.push(`actual: ${valueText(evidence.actual, maxValue)}`);
  if (evidence.pointer !== undefined) lines.push(`pointer: ${oneLine(evidence.pointer || '(whole document)', 300)}`);
  for (const note of evidence.notes ?? []) lines.push(`note: ${oneLine(note, 500)}`);
  const exchanges = evidence.exchanges ?? [];
  if (exchanges.length > 0) {
    lines.push('exchanges:');
    for (const ex of exchanges.slice(0, maxExchanges)) lines.push(`  ${exchangeLine(ex)}`);
    if (exchanges.length > maxExchanges) lines.push(`  … ${exchanges.length - maxExchanges} more`);
  }
  return lines.join('\n');
}
