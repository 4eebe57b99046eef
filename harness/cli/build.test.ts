/**
 * The command's bundle (bin/build-cli.js), which `npm start` runs: built into a cache directory of
 * its own, it is current until an input changes, and `run` through it (mocks on their worker
 * thread) certifies the built-in mocks as the sources do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface BuildCli {
  buildCli(cacheDir?: string): Promise<URL>;
  freshBuild(cacheDir?: string): URL | undefined;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside node_modules, as the real cache is: the packages left out of the bundle resolve from there.
const CACHE = join(ROOT, 'node_modules', '.cache', `proto-comply-test-${process.pid}`);
const work = mkdtempSync(join(tmpdir(), 'proto-comply-build-'));
let build: BuildCli;
let main: URL;

/** The command through the bundle's main.js, as bin/proto-comply.js runs it. */
function runBundle(args: string[]) {
  const script = join(work, 'start.mjs');
  writeFileSync(
    script,
    `const { main } = await import(${JSON.stringify(main.href)});\nprocess.exitCode = await main(${JSON.stringify(args)});\nsetTimeout(() => process.exit(), 1000).unref();\n`,
  );
  return spawnSync(process.execPath, [script], { cwd: work, encoding: 'utf8', timeout: 120_000 });
}

beforeAll(async () => {
  // A specifier typed as a string: the build script is plain JavaScript, outside the TypeScript project.
  build = (await import(join(ROOT, 'bin', 'build-cli.js') as string)) as BuildCli;
  main = await build.buildCli(CACHE);
}, 120_000);

afterAll(() => {
  rmSync(CACHE, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('the bundle', () => {
  it('is current while its inputs are unchanged, and out of date once one changed', () => {
    expect(build.freshBuild(CACHE)?.href).toBe(main.href);
    const manifestFile = join(fileURLToPath(new URL('.', main)), 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { inputs: Record<string, [number, number]> };
    expect(Object.keys(manifest.inputs)).toContain('harness/cli/run-command.ts');
    const [size, mtime] = manifest.inputs['harness/cli/run-command.ts']!;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, inputs: { ...manifest.inputs, 'harness/cli/run-command.ts': [size, mtime - 1] } }));
    try {
      expect(build.freshBuild(CACHE)).toBeUndefined();
    } finally {
      writeFileSync(manifestFile, JSON.stringify(manifest));
    }
  });

  it('runs `run` against the built-in mocks: every check passes, the reports are written', () => {
    const r = runBundle(['run', '--seed', '7']);
    expect(r.stderr).toContain('certifying the built-in mock seller');
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(work, 'compliance-report', 'agent-compliance.json'), 'utf8')) as {
      overall_status: string;
      checks: Array<{ outcome: string }>;
    };
    expect(report.overall_status).toBe('passing');
    expect(report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'error')).toEqual([]);
    for (const f of ['junit.xml', 'report.html']) expect(readFileSync(join(work, 'compliance-report', f), 'utf8').length).toBeGreaterThan(0);
  }, 120_000);

  it('finds the files the sources locate beside themselves (the traceability maps)', () => {
    const r = runBundle(['rules', '--untested', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(100);
  }, 60_000);
});
