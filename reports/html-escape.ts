/**
 * Safe HTML building. `html\`...\`` escapes every interpolated value (`& < > " '`, after the
 * sanitising of text.ts) unless it is already `SafeHtml` built the same way, so agent text can
 * only ever land as text. Templates always quote attribute values; no template puts a value
 * into an href, src, style, event handler or script.
 */
import { sanitizeText } from './text.js';

export function escapeHtml(value: string): string {
  return sanitizeText(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function piece(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeHtml(String(value));
}

/** Tagged template: literal parts are trusted markup, interpolations are escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}
