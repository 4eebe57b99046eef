import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allureStatus, propertiesText, stableUuid, writeAllureResults } from './allure.js';
import { HOSTILE, HOSTILE_AGENT_URL, buildRunFixture } from './testing/run-result.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'reports-allure-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function readResults(dir: string): Promise<Array<Record<string, any>>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('-result.json'));
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8'))));
}

function label(result: Record<string, any>, name: string): string | undefined {
  return result.labels.find((l: { name: string }) => l.name === name)?.value;
}

describe('writeAllureResults', () => {
  const run = buildRunFixture();

  it('writes one result per check × transport with names, labels and status mapping', async () => {
    const dir = join(root, 'a');
    const written = await writeAllureResults(run, dir);
    const results = await readResults(dir);
    expect(results).toHaveLength(run.checks.length);
    expect(written.filter((p) => p.endsWith('-result.json'))).toHaveLength(run.checks.length);
    for (const r of results) expect(`${r.uuid}-result.json`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-result\.json$/);

    const byName = (full: string) => results.find((r) => r.fullName === full)!;
    const failed = byName('capabilities.capabilities.version.declared[a2a]');
    expect(failed).toMatchObject({
      name: 'capabilities.version.declared: Declares a protocol version',
      status: 'failed',
      stage: 'finished',
      parameters: [{ name: 'transport', value: 'a2a' }],
      links: [],
    });
    expect(label(failed, 'suite')).toBe('capabilities');
    expect(label(failed, 'parentSuite')).toBe(HOSTILE_AGENT_URL);
    expect(label(failed, 'subSuite')).toBe('a2a');
    expect(label(failed, 'tag')).toBe('MUST');
    expect(label(failed, 'severity')).toBe('critical');
    expect(label(failed, 'level')).toBe('MUST');
    expect(label(failed, 'transport')).toBe('a2a');
    expect(label(failed, 'spec_ref')).toBe('interface-spec §4.1 rule 3');
    expect(label(failed, 'check_id')).toBe('capabilities.version.declared');
    expect(failed.statusDetails.message).toContain(HOSTILE.img);
    expect(failed.statusDetails.trace).toContain('pointer: /');
    expect(JSON.parse(failed.statusDetails.expected)).toEqual(run.checks[3].evidence!.expected);

    const statuses = Object.fromEntries(results.map((r) => [r.fullName, r.status]));
    expect(statuses['idempotency.idempotency.replay.same-payload[a2a]']).toBe('broken');
    expect(statuses['idempotency.idempotency.conflict.code[mcp]']).toBe('skipped'); // blocked
    expect(statuses['idempotency.idempotency.conflict.code[a2a]']).toBe('skipped'); // not run
    expect(statuses['signing.signing.request.verify[mcp]']).toBe('skipped'); // coverage gap
    expect(statuses['webhooks.webhooks.signing.tag[mcp]']).toBe('skipped');
    expect(statuses['capabilities.capabilities.tasks.listed[mcp]']).toBe('passed'); // warn
    expect(statuses['idempotency.idempotency.ttl.declared[a2a]']).toBe('passed'); // info
    expect(label(byName('capabilities.capabilities.tasks.listed[mcp]'), 'severity')).toBe('normal');
    expect(label(byName('idempotency.idempotency.ttl.declared[mcp]'), 'severity')).toBe('minor');
    expect(label(byName('idempotency.idempotency.missing-key.rejected[mcp]'), 'baselined')).toBe('true');

    const replay = byName('idempotency.idempotency.replay.same-payload[mcp]');
    expect(replay.statusDetails.message).not.toMatch(/[\u0000-\u0008\u001b]/);
    expect(replay.statusDetails.message).toContain('esc\\u001b[31m');
  });

  it('times each result from its exchanges or the run start, lasting its duration', async () => {
    const results = await readResults(join(root, 'a'));
    const answers = results.find((r) => r.fullName === 'capabilities.capabilities.task.answers[mcp]')!;
    expect(answers.start).toBe(Date.parse(run.started_at));
    expect(answers.stop - answers.start).toBe(12);
    const failed = results.find((r) => r.fullName === 'capabilities.capabilities.version.declared[a2a]')!;
    expect(failed.start).toBe(Date.parse(run.checks[3].evidence!.exchanges[0].started_at));
    expect(failed.stop - failed.start).toBe(32);
  });

  it('writes evidence attachments that read back to the recorded exchanges', async () => {
    const dir = join(root, 'a');
    const results = await readResults(dir);
    const replay = results.find((r) => r.fullName === 'idempotency.idempotency.replay.same-payload[mcp]')!;
    const check = run.checks.find((c) => c.check_id === 'idempotency.replay.same-payload' && c.transport === 'mcp')!;
    expect(replay.attachments.map((a: any) => a.type)).toEqual(['text/plain', 'application/json', 'application/json']);
    const [text, ...exchanges] = replay.attachments;
    expect(text.source).toMatch(/-attachment\.txt$/);
    expect(await readFile(join(dir, text.source), 'utf8')).toContain('expected: {');
    for (const [i, a] of exchanges.entries()) {
      expect(a.source).toMatch(/-attachment\.json$/);
      expect(JSON.parse(await readFile(join(dir, a.source), 'utf8'))).toEqual(check.evidence!.exchanges[i]);
    }
    const passed = results.find((r) => r.fullName === 'capabilities.capabilities.task.answers[mcp]')!;
    expect(passed.attachments).toEqual([]);
  });

  it('writes environment.properties and executor.json', async () => {
    const dir = join(root, 'a');
    const env = await readFile(join(dir, 'environment.properties'), 'utf8');
    expect(env).toContain('token=proto\n'.replace('proto', run.token));
    expect(env).toContain('seed=seed-7f3a\n');
    expect(env).toContain('transports=mcp,a2a\n');
    expect(env.split('\n').every((l) => /^[\x20-\x7e]*$/.test(l))).toBe(true);
    expect(env.trimEnd().split('\n')).toHaveLength(9); // no value broke out onto its own line
    const executor = JSON.parse(await readFile(join(dir, 'executor.json'), 'utf8'));
    expect(executor).toMatchObject({ name: 'proto-comply', type: 'proto-comply' });
    expect(executor.buildName).toContain('seed-7f3a');
  });

  it('names files deterministically from the seed, and differently for another seed', async () => {
    const again = join(root, 'b');
    await writeAllureResults(buildRunFixture(), again);
    expect((await readdir(again)).sort()).toEqual((await readdir(join(root, 'a'))).sort());
    const other = buildRunFixture();
    other.seed = 'another-seed';
    const otherDir = join(root, 'c');
    await writeAllureResults(other, otherDir);
    const a = new Set((await readdir(join(root, 'a'))).filter((n) => n.includes('-')));
    const c = (await readdir(otherDir)).filter((n) => n.includes('-'));
    expect(c.filter((n) => a.has(n))).toEqual([]);
    // but the history id is stable per check × transport
    const ha = (await readResults(join(root, 'a'))).map((r) => `${r.fullName} ${r.historyId}`).sort();
    const hc = (await readResults(otherDir)).map((r) => `${r.fullName} ${r.historyId}`).sort();
    expect(hc).toEqual(ha);
    expect(new Set(ha.map((s) => s.split(' ')[1])).size).toBe(run.checks.length);
  });
});

describe('helpers', () => {
  it('stableUuid is a version-8 UUID, stable and input-sensitive', () => {
    expect(stableUuid('a', 'b')).toBe(stableUuid('a', 'b'));
    expect(stableUuid('a', 'b')).not.toBe(stableUuid('ab'));
  });

  it('maps every outcome to an Allure status', () => {
    expect(allureStatus({ outcome: 'fail', level: 'MUST' })).toBe('failed');
    expect(allureStatus({ outcome: 'fail', level: 'MUST', baselined: true })).toBe('skipped');
    expect(allureStatus({ outcome: 'warn', level: 'SHOULD' })).toBe('passed');
    expect(allureStatus({ outcome: 'warn', level: 'SHOULD' }, true)).toBe('failed');
    expect(allureStatus({ outcome: 'blocked', level: 'MUST' })).toBe('skipped');
    expect(allureStatus({ outcome: 'gap', level: 'MUST' })).toBe('skipped');
    expect(allureStatus({ outcome: 'gap', level: 'MUST', not_run: true })).toBe('skipped');
    expect(allureStatus({ outcome: 'error', level: 'MAY' })).toBe('broken');
  });

  it('escapes properties the way java.util.Properties reads them', () => {
    expect(propertiesText([['k y', ' a=b:c\nd\\e#f é😀']])).toBe('k\\ y=\\ a\\=b\\:c\\nd\\\\e\\#f \\u00e9\\ud83d\\ude00\n');
  });
});
