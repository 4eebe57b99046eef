import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from './index.js';
import { validateAgentCompliance } from './json.js';
import { renderSummary } from './console.js';
import { buildRunFixture, buildUnreachableFixture } from './testing/run-result.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'reports-index-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('writeReports', () => {
  it('writes every format by default into a directory it creates', async () => {
    const dir = join(root, 'all', 'nested');
    const written = await writeReports(buildRunFixture(), { dir });
    expect(written).toEqual([join(dir, 'agent-compliance.json'), join(dir, 'junit.xml'), join(dir, 'report.html'), join(dir, 'allure-results')]);
    expect(validateAgentCompliance(JSON.parse(await readFile(written[0], 'utf8'))).valid).toBe(true);
    const allure = await readdir(written[3]);
    expect(allure.filter((f) => f.endsWith('-result.json'))).toHaveLength(buildRunFixture().checks.length);
    expect(allure).toContain('environment.properties');
  });

  it('writes only the chosen formats, Allure where asked', async () => {
    const dir = join(root, 'some');
    const allureDir = join(root, 'elsewhere', 'allure');
    const written = await writeReports(buildRunFixture(), { dir, formats: ['junit', 'allure'], allureDir });
    expect(written).toEqual([join(dir, 'junit.xml'), allureDir]);
    expect(await readdir(dir)).toEqual(['junit.xml']);
    expect((await readdir(allureDir)).length).toBeGreaterThan(0);
  });

  it('rejects an unknown format before writing anything', async () => {
    const dir = join(root, 'bad');
    await expect(writeReports(buildRunFixture(), { dir, formats: ['json', 'pdf' as never] })).rejects.toThrow(/unknown report format "pdf"/);
    await expect(readdir(dir)).rejects.toThrow();
  });

  it('stops at an invalid run: the JSON validation fails before other reports are written', async () => {
    const dir = join(root, 'invalid');
    const run = buildRunFixture();
    run.counts.pass += 1;
    await expect(writeReports(run, { dir })).rejects.toThrow(/\/counts\.pass/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('renders every format for an unreachable agent (no checks at all)', async () => {
    const dir = join(root, 'unreachable');
    const run = buildUnreachableFixture();
    const written = await writeReports(run, { dir });
    expect(written).toHaveLength(4);
    const doc = JSON.parse(await readFile(written[0], 'utf8'));
    expect(doc.compliance_detail).toMatchObject({ status: 'unknown', storyboards_total: 5, storyboards_passing: 0 });
    expect(await readFile(written[1], 'utf8')).toContain('tests="0"');
    expect(await readFile(written[2], 'utf8')).toContain('No MUST checks in this run.');
    expect(await readdir(written[3])).toEqual(['environment.properties', 'executor.json']);
    const summary = renderSummary(run, { written });
    expect(summary).toContain('Overall: UNREACHABLE');
    expect(summary).toContain('mcp https://agent.example/mcp unreachable: connect ECONNREFUSED');
  });
});
