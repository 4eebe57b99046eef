/**
 * Cursor pagination of list answers (released 3.0 core/pagination-request and -response): the
 * request's `pagination {max_results 1–100, cursor}`, the answer's `pagination {has_more,
 * cursor (only when has_more)}` (no `total_count`, which is optional: a sandbox shared by many
 * runs would count other runs' items too). The cursor is opaque to the buyer: the offset of
 * the next page, base64url-encoded; one the seller did not issue is INVALID_REQUEST.
 */
import { z } from 'zod';
import { invalidRequest } from './errors.js';

export const paginationArg = z
  .looseObject({ max_results: z.number().int().min(1).max(100).optional(), cursor: z.string().min(1).max(200).optional() })
  .optional();

export interface Page<T> {
  items: T[];
  pagination: { has_more: boolean; cursor?: string };
}

const DEFAULT_PAGE = 50;

/** Without `pagination` in the request the whole list is one page (the interface spec's reads have no pages). */
export function paginate<T>(all: readonly T[], asked: z.infer<typeof paginationArg>): Page<T> {
  if (asked === undefined) return { items: [...all], pagination: { has_more: false } };
  const size = asked.max_results ?? DEFAULT_PAGE;
  const offset = asked.cursor === undefined ? 0 : offsetOf(asked.cursor);
  const items = all.slice(offset, offset + size);
  const next = offset + items.length;
  const hasMore = next < all.length;
  return { items, pagination: { has_more: hasMore, ...(hasMore ? { cursor: cursorOf(next) } : {}) } };
}

function cursorOf(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function offsetOf(cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw invalidRequest('pagination.cursor', 'not a cursor this seller issued');
  return Number(m[1]);
}
