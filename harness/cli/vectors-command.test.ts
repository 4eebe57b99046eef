import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVectorSet, vectorsCommand } from './vectors-command.js';

const SHARED = join(process.cwd(), '../shared/vectors/request-signing');
const OWN = join(process.cwd(), 'fixtures/signing');

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await vectorsCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe.skipIf(!existsSync(SHARED))('public vectors (../shared/vectors/request-signing, token adcp)', () => {
  it('passes every request vector and the body-integrity policy', async () => {
    const r = await run(['--kind', 'request', '--dir', SHARED, '--token', 'adcp']);
    expect(r.out.filter((l) => !l.endsWith('PASS')).slice(0, -1)).toEqual([]);
    expect(r.out.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(r.out.some((l) => l.startsWith('profile-3.2/negative/002'))).toBe(true);
    expect(r.out.some((l) => l.startsWith('body-integrity-policy/'))).toBe(true);
    expect(r.code).toBe(0);
  });
  it('passes every request vector and the body-integrity policy on the reference path too', async () => {
    const outcomes = await runVectorSet('request', SHARED, 'adcp', 'reference');
    expect(outcomes.length).toBeGreaterThan(30);
    expect(outcomes.filter((o) => o.status !== 'pass')).toEqual([]);
  });
  it('passes canonicalization.json', async () => {
    const r = await run(['--kind', 'canonicalization', '--dir', SHARED, '--token', 'adcp']);
    expect(r.out.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(r.code).toBe(0);
  });
  it('fails them under the wrong token (the tag is byte-exact), naming the right one', async () => {
    const r = await run(['--kind', 'request', '--dir', SHARED]);
    expect(r.code).toBe(1);
    expect(r.err.at(-1)).toMatch(/--token adcp$/);
  });
});
if (!existsSync(SHARED)) console.warn(`skipping public vectors: ${SHARED} is absent`);

describe('own fixtures through the CLI', () => {
  it.each([
    ['request', 'request-signing'],
    ['canonicalization', 'request-signing'],
    ['webhook', 'webhook-signing'],
  ])('--kind %s passes %s', async (kind, set) => {
    const r = await run(['--kind', kind, '--dir', join(OWN, set)]);
    expect(r.out.filter((l) => !l.endsWith('PASS')).slice(0, -1)).toEqual([]);
    expect(r.out.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(r.code).toBe(0);
  });

  it('names the token the vectors are written for when run under another', async () => {
    const r = await run(['--kind', 'request', '--dir', join(OWN, 'request-signing'), '--token', 'other']);
    expect(r.code).toBe(1);
    expect(r.err).toEqual(['vectors: these vectors are written for token "proto"; run again with --token proto']);
  });

  it('prints JSON with --json', async () => {
    const r = await run(['--kind', 'webhook', '--dir', join(OWN, 'webhook-signing'), '--json']);
    const rows = JSON.parse(r.out.join('\n')) as Array<{ id: string; status: string; actual: string }>;
    expect(rows.find((x) => x.id === 'negative/022-per-keyid-cap')).toMatchObject({ status: 'pass', actual: 'webhook_signature_rate_abuse', step: '9a' });
  });
});

describe('usage and failures', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vectors-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('returns 2 with one line on stderr for bad usage', async () => {
    for (const argv of [
      [],
      ['--kind', 'request'],
      ['--kind', 'nope', '--dir', OWN],
      ['--kind', 'request', '--dir', join(tmp, 'missing')],
      ['--bogus'],
      ['--kind', 'request', '--dir', OWN, '--token', 'BAD'],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.err).toHaveLength(1);
      expect(r.out).toEqual([]);
    }
  });

  it('reports mismatches, unreadable files, and uninstallable webhook state as N/A', async () => {
    const dir = join(tmp, 'set');
    cpSync(join(OWN, 'webhook-signing'), dir, { recursive: true });
    const v = JSON.parse(
      JSON.stringify(await import(join(dir, 'positive/001-ed25519-webhook-signing-key.json'), { with: { type: 'json' } }).then((m) => m.default)),
    );
    writeFileSync(
      join(dir, 'positive/900-wrong-expectation.json'),
      JSON.stringify({ ...v, expected_outcome: { success: false, error_code: 'webhook_signature_invalid', failed_step: 10 } }),
    );
    writeFileSync(join(dir, 'positive/901-black-box-state.json'), JSON.stringify({ ...v, test_harness_state: { simulate_network_partition: true } }));
    writeFileSync(join(dir, 'positive/902-broken.json'), '{ not json');
    const r = await run(['--kind', 'webhook', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.out.find((l) => l.startsWith('positive/900'))).toMatch(/expected=webhook_signature_invalid {2}actual=success {2}FAIL/);
    expect(r.out.find((l) => l.startsWith('positive/901'))).toMatch(/actual=not_applicable {2}N\/A/);
    expect(r.out.find((l) => l.startsWith('positive/902'))).toMatch(/actual=error {2}FAIL/);
    expect(r.out.at(-1)).toMatch(/^\d+ passed, 2 failed, 1 skipped$/);
  });
});
