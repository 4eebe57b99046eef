/**
 * Each dependency rule fails on a violating import: for every rule of rules.ts, a small tree in a
 * temporary folder (the repository's top-level names, one import that breaks the rule) is
 * cruised with that rule alone, and the violation must be reported. A rule added without such a
 * tree fails here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { RULES } from './rules.js';

const OK = 'export const x = 1;\n';
const imports = (spec: string) => `import { x } from '${spec}';\nexport const y = x;\n`;

/** Per rule: the files of a tree that breaks it (path → source). */
const VIOLATIONS: Record<string, Record<string, string>> = {
  'no-cycle': { 'harness/core/a.ts': imports('./b.js'), 'harness/core/b.ts': `import { y } from './a.js';\nexport const x = y;\n` },
  'core-is-the-base': { 'harness/core/engine/run.ts': imports('../../cli/main.js'), 'harness/cli/main.ts': OK },
  'engine-is-generic': { 'harness/core/engine/run.ts': imports('../webhooks/rules.js'), 'harness/core/webhooks/rules.ts': OK },
  'suites-and-reports-on-the-core': { 'reports/html.ts': imports('../harness/certify/index.js'), 'harness/certify/index.ts': OK },
  'suite-internals-stay-home': { 'suites/webhooks/kinds/call.ts': imports('../../setup/kinds/create.js'), 'suites/setup/kinds/create.ts': OK },
  'no-reaching-into-suites': { 'harness/proxy/audit.ts': imports('../../suites/webhooks/kinds/rules.js'), 'suites/webhooks/kinds/rules.ts': OK },
  'suite-list-for-entry-points': { 'harness/fuzz/report.ts': imports('../../suites/index.js'), 'suites/index.ts': OK },
  'run-builder-below-applications': { 'harness/certify/certify.ts': imports('../cli/run-failure.js'), 'harness/cli/run-failure.ts': OK },
  'command-line-on-top': { 'harness/compliance-service/probe.ts': imports('../cli/run-failure.js'), 'harness/cli/run-failure.ts': OK },
  'mocks-use-the-core': { 'mocks/buyer/suite-run.ts': imports('../../harness/certify/index.js'), 'harness/certify/index.ts': OK },
  'library-does-not-start-mocks': { 'harness/certify/certify.ts': imports('../../mocks/seller/index.js'), 'mocks/seller/index.ts': OK },
  'test-helpers-stay-in-tests': { 'harness/core/engine/run.ts': imports('../testing/spawn.js'), 'harness/core/testing/spawn.ts': OK },
  'no-dev-dependency-at-runtime': {
    'harness/core/engine/run.ts': imports('devonly'),
    'package.json': JSON.stringify({ name: 'tree', devDependencies: { devonly: '1.0.0' } }),
    'node_modules/devonly/package.json': JSON.stringify({ name: 'devonly', version: '1.0.0', main: 'index.js' }),
    'node_modules/devonly/index.js': 'exports.x = 1;\n',
  },
  'fast-path-is-fenced': { 'harness/core/signing/verify/steps.ts': imports('../fast/verify.js'), 'harness/core/signing/fast/verify.ts': OK },
  resolvable: { 'harness/core/engine/run.ts': imports('./missing.js') },
};

/** A tree of the imports the layers allow (entry points, plugins, the fenced fast path): no rule may flag it. */
const ALLOWED: Record<string, string> = {
  'bin/main.ts': imports('../harness/cli/main.js'),
  'harness/cli/main.ts': imports('../../suites/index.js'),
  'harness/vitest/index.ts': imports('../cli/run-args.js'),
  'harness/cli/run-args.ts': imports('../core/engine/run.js'),
  'harness/proxy/session.ts': imports('../../suites/index.js'),
  'harness/certify/certify.ts': imports('../../suites/index.js'),
  'harness/compliance-service/probe.ts': imports('../certify/certify.js'),
  'suites/index.ts': imports('./setup/plugin.js'),
  'suites/setup/plugin.ts': imports('../../harness/core/engine/run.js'),
  'reports/html.ts': imports('../harness/core/engine/run.js'),
  'mocks/seller/index.ts': imports('../../harness/core/signing/verify/verifier.js'),
  'harness/core/signing/verify/verifier.ts': imports('../fast/verify.js'),
  'harness/core/signing/fast/verify.ts': imports('../../engine/run.js'),
  'harness/core/engine/run.ts': OK,
  'harness/cli/cli.test.ts': imports('../../mocks/seller/index.js'),
};

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function violationsOf(rule: string | undefined, files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'dep-rule-'));
  made.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  if (!files['package.json']) writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tree' }));
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const top = [...new Set(Object.keys(files).map((p) => p.split('/')[0]))].filter((t) => t !== 'package.json' && t !== 'node_modules');
    const out = await cruise(
      top,
      {
        ruleSet: { forbidden: rule ? RULES.filter((r) => r.name === rule) : RULES },
        tsPreCompilationDeps: true,
        doNotFollow: { path: 'node_modules' },
        combinedDependencies: false,
        validate: true,
      },
      { extensions: ['.ts', '.js'] },
    );
    const result = out.output as ICruiseResult;
    return result.summary.violations.filter((v) => !rule || v.rule.name === rule).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe('each dependency rule fails on a violating import', () => {
  it('every rule has a violating tree', () => {
    expect(RULES.map((r) => r.name).filter((n) => !VIOLATIONS[n!])).toEqual([]);
  });

  it.each(RULES.map((r) => [r.name!]))(
    '%s',
    async (name) => {
      const found = await violationsOf(name, VIOLATIONS[name] ?? {});
      expect(found.length, `no violation of ${name} reported`).toBeGreaterThan(0);
    },
    60_000,
  );

  it('the imports the layers allow break no rule', async () => {
    expect(await violationsOf(undefined, ALLOWED)).toEqual([]);
  }, 60_000);
});
