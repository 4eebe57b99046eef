/**
 * Test helpers for the schema tests: derive an invalid payload from a valid sample by editing
 * it at JSON pointers, then assert the verdict names the expected violation (pointer and
 * keyword), so each case fails for the reason it claims and for no other.
 */
import { expect } from 'vitest';
import { DEFAULT_TOKEN } from '../../token.js';
import { loadSample } from '../samples.js';
import type { SchemaVerdict } from '../validator.js';

export const REMOVE: unique symbol = Symbol('remove');

/** `[pointer, value]`: set the member at `pointer` (its parent must exist), or delete it with REMOVE. */
export type Edit = readonly [pointer: string, value: unknown];

export interface InvalidCase {
  /** The constraint the case breaks, with its spec reference. */
  why: string;
  /** Sample the case starts from (fixtures/samples/<base>.json). */
  base: string;
  /** Schema to validate against; defaults to the sample's schema. */
  schema?: string;
  edits: readonly Edit[];
  /** The violation the verdict must report. */
  expect: { pointer: string; keyword: string };
}

export function parsePointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`bad pointer ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** A deep copy of `value` with the edits applied in order. */
export function applyEdits(value: unknown, edits: readonly Edit[]): unknown {
  const root = structuredClone(value);
  for (const [pointer, replacement] of edits) {
    const tokens = parsePointerTokens(pointer);
    const last = tokens.pop();
    if (last === undefined) throw new Error('cannot edit the root');
    let parent: unknown = root;
    for (const t of tokens) {
      if (parent === null || typeof parent !== 'object') throw new Error(`no parent at ${pointer}`);
      parent = (parent as Record<string, unknown>)[t];
    }
    if (parent === null || typeof parent !== 'object') throw new Error(`no parent at ${pointer}`);
    const container = parent as Record<string, unknown>;
    if (replacement === REMOVE) {
      if (!(last in container)) throw new Error(`nothing to remove at ${pointer}`);
      if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    } else {
      container[last] = replacement;
    }
  }
  return root;
}

export function buildCase(c: InvalidCase, token: string = DEFAULT_TOKEN): { schema: string; value: unknown } {
  const schema = c.schema ?? c.base.split('.')[0]!;
  return { schema, value: applyEdits(loadSample(c.base, { token }), c.edits) };
}

export function expectViolation(verdict: SchemaVerdict, expected: { pointer: string; keyword: string }): void {
  expect(verdict.valid, 'payload should be invalid').toBe(false);
  expect(verdict.errors, `errors: ${JSON.stringify(verdict.errors, null, 1)}`).toContainEqual(
    expect.objectContaining({ pointer: expected.pointer, keyword: expected.keyword }),
  );
}

export function expectValid(verdict: SchemaVerdict): void {
  expect(verdict.errors, JSON.stringify(verdict.errors, null, 1)).toEqual([]);
  expect(verdict.valid).toBe(true);
}

/** A string of `n` characters. */
export function chars(n: number, c = 'a'): string {
  return c.repeat(n);
}
