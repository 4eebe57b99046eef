import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../harness/core/engine/result.js';
import { createFuzzProgress } from './fuzz-progress.js';

function sink(): { out: Writable; text: () => string; writes: () => number } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { out, text: () => chunks.join(''), writes: () => chunks.length };
}

const check = (id: string, outcome: 'pass' | 'fail'): CheckResult =>
  ({
    check_id: id,
    suite_id: 'fuzz',
    title: id,
    level: 'MUST',
    spec_ref: { doc: 'interface-spec', section: '7', rule: 'r' },
    transport: 'mcp',
    duration_ms: 1200,
    outcome,
    message: outcome === 'pass' ? '200 case(s), none violating the rule' : 'accepted (shrunk counterexample; seed 7, path 0:1)',
    ...(outcome === 'fail' ? { evidence: { exchanges: [], actual: { fuzz: { seed: 7, path: '0:1', runs: 3, counterexample: {}, property: 'p' } } } } : {}),
  }) as CheckResult;

describe('fuzz progress', () => {
  it('not a TTY (CI): plain lines, one per property, no status line flood however many cases run', () => {
    let t = 0;
    const { out, text } = sink();
    const p = createFuzzProgress({ out, tty: false, total: 2, now: () => t });
    p.onStart('fuzz.errors.near-valid-refused.create_media_buy (mcp)');
    for (let i = 0; i < 5000; i++) {
      t += 1; // 5 s of cases: under the 30 s heartbeat
      p.onCase();
    }
    p.onCheck(check('fuzz.errors.near-valid-refused.create_media_buy', 'fail'));
    p.onStart('fuzz.schemas.valid-accepted.get_products (mcp)');
    for (let i = 0; i < 40; i++) {
      t += 1000; // a slow agent: one status line per 30 s
      p.onCase();
    }
    p.onCheck(check('fuzz.schemas.valid-accepted.get_products', 'pass'));
    p.done();
    p.done();
    const lines = text().trimEnd().split('\n');
    expect(text()).not.toContain('\r');
    expect(lines[0]).toMatch(/^\[1\/2\] FAIL mcp fuzz\.errors\.near-valid-refused\.create_media_buy \(1\.20 s\): accepted/);
    expect(lines[1]).toBe('fuzz: 1/2 properties · 5,030 cases · 1 counterexample · fuzz.schemas.valid-accepted.get_products (mcp)');
    expect(lines[2]).toMatch(/^\[2\/2\] PASS mcp fuzz\.schemas\.valid-accepted\.get_products/);
    expect(lines.at(-1)).toBe('fuzz: 2/2 properties · 5,040 cases · 1 counterexample');
    expect(lines).toHaveLength(4);
  });

  it('a TTY: one status line rewritten in place, at most every 200 ms, failures printed above it', () => {
    let t = 0;
    const { out, text, writes } = sink();
    const p = createFuzzProgress({ out, tty: true, total: 3, now: () => t });
    p.onStart('fuzz.errors.auth-refused (mcp)');
    for (let i = 0; i < 10_000; i++) {
      t += 0.1; // 1 s of very fast cases
      p.onCase();
    }
    expect(writes()).toBeLessThanOrEqual(7);
    p.onCheck(check('fuzz.errors.auth-refused', 'fail'));
    p.done();
    expect(text()).toContain('\r');
    expect(text()).toMatch(/\rfuzz: 1\/3 properties · 10,000 cases · 1 counterexample *\n$/);
    expect(text()).toMatch(/FAIL mcp fuzz\.errors\.auth-refused \(1\.20 s\): accepted/);
  });
});
