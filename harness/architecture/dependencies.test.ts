/**
 * The shape of the code, checked by dependency-cruiser over every module of the repository:
 * no import cycle anywhere (type-only imports included); the engine imports no suite, mock,
 * report or command; the mocks depend only on library code; test helpers (`testing/` folders)
 * and devDependencies stay out of runtime code; the verifier's fast path is fenced (only the
 * verifier's path selection imports it); and every runtime dependency is used by it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { RULES, TEST_CODE } from './rules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOP = ['bin', 'bench', 'harness', 'suites', 'mocks', 'reports', 'fixtures'];
let result: ICruiseResult | undefined;
async function cruised(): Promise<ICruiseResult> {
  if (result) return result;
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const out = await cruise(
      TOP,
      {
        ruleSet: { forbidden: RULES },
        tsPreCompilationDeps: true,
        doNotFollow: { path: 'node_modules' },
        combinedDependencies: false,
        enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types'] },
        validate: true,
      },
      { extensions: ['.ts', '.js', '.mjs', '.json'] },
    );
    result = out.output as ICruiseResult;
    return result;
  } finally {
    process.chdir(cwd);
  }
}

function violations(rule: string): string[] {
  return (result?.summary.violations ?? [])
    .filter((v) => v.rule.name === rule)
    .map((v) => (v.cycle ? v.cycle.map((c) => c.name).join(' -> ') : `${v.from} -> ${v.to}`));
}

describe('dependency rules (dependency-cruiser)', () => {
  it('cruises the whole repository', async () => {
    const r = await cruised();
    expect(r.summary.totalCruised).toBeGreaterThan(300);
  }, 120_000);

  it.each(RULES.map((r) => [r.name!, r.comment!]))('%s: %s', async (name) => {
    await cruised();
    expect(violations(name)).toEqual([]);
  });

  it('every runtime dependency in package.json is imported by runtime code', async () => {
    const r = await cruised();
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { dependencies: Record<string, string> };
    const runtime = new RegExp(TEST_CODE);
    const used = new Set<string>();
    for (const m of r.modules) {
      if (runtime.test(m.source) || m.source.startsWith('node_modules/')) continue;
      for (const d of m.dependencies) {
        if (!d.dependencyTypes.some((t) => t.startsWith('npm'))) continue;
        const name = d.module.startsWith('@') ? d.module.split('/').slice(0, 2).join('/') : d.module.split('/')[0];
        used.add(name);
      }
    }
    expect(Object.keys(pkg.dependencies).filter((d) => !used.has(d))).toEqual([]);
  });
});
