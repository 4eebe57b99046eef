/** `proto-comply rules` as a user runs it: a real process, real exit codes. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SUMMARY = /^(interface-spec|digest): (\d+) rules, (\d+) tested, (\d+) untested( \(.+\))?$/;

describe('proto-comply rules', () => {
  it('prints every rule with its checks or its untested reason, then a summary line per document', () => {
    const r = cli(['rules']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('  is-4.4-r3  MUST  §4.4  the same key with another payload is IDEMPOTENCY_CONFLICT');
    expect(lines[lines.indexOf('  is-4.4-r3  MUST  §4.4  the same key with another payload is IDEMPOTENCY_CONFLICT') + 1]).toBe(
      '      checks: idempotency.conflict.changed-payload, idempotency.conflict.other-task, signals.idempotency.conflict, ' +
        'records.accounts.conflict, records.audiences.conflict, records.catalogs.conflict, records.events.conflict, records.feedback.conflict, ' +
        'idempotency.update.conflict, creative.idempotency.build-conflict, creative.idempotency.sync-conflict',
    );
    expect(lines).toContain('      untested: registry face: the OpenAPI description is not fetched or checked');
    const summaries = lines.slice(-2).map((l) => SUMMARY.exec(l));
    expect(summaries.map((m) => m?.[1])).toEqual(['interface-spec', 'digest']);
    for (const m of summaries) expect(Number(m![3]) + Number(m![4])).toBe(Number(m![2]));
  });

  it('--untested --doc digest lists only the digest rules no check tests', () => {
    const r = cli(['rules', '--untested', '--doc', 'digest']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/^\s+checks: /m);
    expect(r.stdout).not.toMatch(/^\s+is-/m);
    const rules = r.stdout.match(/^ {2}digest-\S+ {2}(MUST|SHOULD|MAY) {2}§/gm) ?? [];
    const untested = r.stdout.match(/^ {6}untested: /gm) ?? [];
    expect(rules.length).toBeGreaterThan(0);
    expect(untested.length).toBe(rules.length);
    const summary = r.stdout.trimEnd().split('\n').at(-1)!;
    expect(SUMMARY.exec(summary)?.[4]).toBe(String(rules.length));
  });

  it('--json gives the same rules and summaries as data', () => {
    const r = cli(['rules', '--json', '--untested']);
    expect(r.code, r.stderr).toBe(0);
    const { docs } = JSON.parse(r.stdout) as {
      docs: {
        doc: string;
        summary: { rules: number; tested: number; untested: number; by_category: Record<string, number> };
        rules: { untested?: string; anchor: string }[];
      }[];
    };
    expect(docs.map((d) => d.doc)).toEqual(['interface-spec', 'digest']);
    for (const d of docs) {
      expect(d.rules).toHaveLength(d.summary.untested);
      expect(d.rules.every((x) => typeof x.untested === 'string' && x.anchor.length > 0)).toBe(true);
      expect(Object.values(d.summary.by_category).reduce((a, b) => a + b, 0)).toBe(d.summary.untested);
    }
  });

  it.each([
    [['rules', '--doc', 'rfc9421'], /^proto-comply: rules: --doc must be interface-spec or digest, got "rfc9421"\n$/],
    [['rules', '--tested'], /^proto-comply: rules: Unknown option '--tested'.*\n$/],
    [['rules', 'digest'], /^proto-comply: rules: .*positional.*\n$/],
  ])('%j is a usage error (exit 2, one line)', (args, message) => {
    const r = cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
