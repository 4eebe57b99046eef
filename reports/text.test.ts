import { describe, expect, it } from 'vitest';
import { evidenceText, exchangeLine } from './evidence-text.js';
import { buildRunFixture } from './testing/run-result.js';
import { formatDuration, oneLine, sanitizeText, specRefText, toJsonText, truncate } from './text.js';

describe('text helpers', () => {
  it('replaces unsafe characters visibly and keeps TAB/LF/CR and astral characters', () => {
    expect(sanitizeText('a\u0000b\u001bc\u009bd\u202ee\u2066f\uD800g\uFFFEh')).toBe('a\\u0000b\\u001bc\\u009bd\\u202ee\\u2066f\\ud800g\\ufffeh');
    expect(sanitizeText('t\tl\nc\r 😀 é')).toBe('t\tl\nc\r 😀 é');
  });

  it('flattens to one line and truncates without splitting a surrogate pair', () => {
    expect(oneLine('  a\r\n\tb  c ')).toBe('a b c');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('abc', 3)).toBe('abc');
  });

  it('spells any value as JSON text without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(toJsonText(cyclic, 0)).toBe('{"a":1,"self":"[circular]"}');
    expect(toJsonText({ n: 10n }, 0)).toBe('{"n":"10n"}');
    expect(toJsonText('plain')).toBe('plain');
    expect(toJsonText(undefined)).toBe('undefined');
  });

  it('formats spec refs and durations', () => {
    expect(specRefText({ doc: 'digest', section: '4.2' })).toBe('digest §4.2');
    expect(specRefText({ doc: 'interface-spec', section: '3.1', rule: 'rule 2' })).toBe('interface-spec §3.1 rule 2');
    expect(specRefText({ doc: 'interface-spec', section: '4.4', anchor: '44-idempotency-rules', rule: 'rule 2' })).toBe(
      'interface-spec §4.4 (#44-idempotency-rules) rule 2',
    );
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(4321)).toBe('4.32 s');
    expect(formatDuration(Number.NaN)).toBe('? ms');
  });
});

describe('evidenceText', () => {
  const run = buildRunFixture();

  it('lists expected, actual, pointer, notes and one line per exchange', () => {
    const failed = run.checks.find((c) => c.check_id === 'capabilities.version.declared' && c.transport === 'a2a')!;
    const lines = evidenceText(failed.evidence).split('\n');
    expect(lines[0]).toBe('expected: {');
    expect(lines.some((l) => l.startsWith('actual: {'))).toBe(true);
    expect(lines).toContain(`pointer: ${failed.evidence!.pointer}`);
    expect(lines.some((l) => l.startsWith('note: payload from artifact'))).toBe(true);
    expect(lines.at(-1)).toMatch(/^ {2}#\d+ a2a message\/send \S+: POST https:\/\/agent\.example\/a2a → 200 \(body truncated\) \(30 ms\)$/);
    expect(evidenceText(undefined)).toBe('');
  });

  it('describes exchanges that got no response', () => {
    const error = run.checks.find((c) => c.outcome === 'error')!;
    expect(exchangeLine(error.evidence!.exchanges[0])).toMatch(/→ no response: timeout after 30000 ms bell\\u0007/);
  });

  it('caps values and the number of exchanges', () => {
    const ex = run.checks.find((c) => c.check_id === 'idempotency.replay.same-payload' && c.transport === 'mcp')!.evidence!;
    const text = evidenceText({ ...ex, actual: 'x'.repeat(5000) }, { maxValueChars: 100, maxExchanges: 1 });
    expect(text).toContain(`actual: ${'x'.repeat(99)}…\n`);
    expect(text).toContain('… 1 more');
  });
});

describe('workflow commands', () => {
  it('no line of agent text can start a GitHub workflow command', () => {
    const text = '::error::x\nok\n  ::add-mask::y\r##[group]z\nmid ::warning:: stays';
    const out = sanitizeText(text);
    expect(out.split(/[\r\n]/).filter((l) => /^\s*(::|##\[)/.test(l))).toEqual([]);
    expect(out).toContain('\\u003a:error::x');
    expect(out).toContain('  \\u003a:add-mask::y');
    expect(out).toContain('\\u0023#[group]z');
    expect(out).toContain('mid ::warning:: stays');
    expect(oneLine('::set-output name=a::b')).toBe('\\u003a:set-output name=a::b');
  });
});
