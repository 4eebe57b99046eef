/**
 * Every check is proven able to fail: targeted by a fault profile of a mock (seller, verifier,
 * webhook emission, buyer, calling buyer, registry) or named in suites/testing/failing-tests.ts with a unit test that fails
 * it. Lists the checks with neither, map entries whose test does not exist, and fault targets or
 * map entries that are no check id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listBuyerFaults } from '../mocks/buyer/faults.js';
import { listCallingFaults } from '../mocks/buyer/calls/faults.js';
import { listFaults } from '../mocks/seller/faults.js';
import { DISCOVERY_FAULTS, REGISTRY_API_FAULTS } from '../mocks/registry/faults.js';
import '../mocks/seller/index.js'; // registers the verifier and webhook faults
import { builtinCheckIds } from './index.js';
import { FAILING_TESTS } from './testing/failing-tests.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const checkIds = builtinCheckIds();
// A storyboard fault targets storyboard step checks, not built-in ones (FaultDef.judgedBy).
const faults = [
  ...listFaults().filter((f) => f.judgedBy !== 'storyboard'),
  ...listBuyerFaults(),
  ...listCallingFaults(),
  ...REGISTRY_API_FAULTS,
  ...DISCOVERY_FAULTS,
];
const targeted = new Set(faults.flatMap((f) => f.targets));

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Why a map entry does not name a real test that runs its check, or undefined. */
function entryProblem(checkId: string, entry: string): string | undefined {
  const m = /^(\S+\.test\.ts) > (.+)$/.exec(entry);
  if (!m) return `${checkId}: "${entry}" is not "<test file> > <test name>"`;
  const [, file, name] = m as unknown as [string, string, string];
  if (!existsSync(ROOT + file)) return `${checkId}: ${file} does not exist`;
  const source = readFileSync(ROOT + file, 'utf8');
  const declared = new RegExp(`\\b(?:it|test)(?:\\.\\w+)*\\(\\s*(['"\`])${escapeRegExp(name)}\\1`);
  if (!declared.test(source)) return `${checkId}: ${file} has no test named "${name}"`;
  if (!name.includes(checkId)) return `${checkId}: the test "${name}" does not name the check it fails`;
  return undefined;
}

describe('every check is proven able to fail', () => {
  it('is targeted by a fault or named by a failing unit test; the list of checks with neither is empty', () => {
    const named = new Set(Object.keys(FAILING_TESTS));
    const neither = [...checkIds].filter((id) => !targeted.has(id) && !named.has(id)).sort();
    console.log(
      `check coverage: ${checkIds.size} checks, ${[...checkIds].filter((id) => targeted.has(id)).length} targeted by ${faults.length} faults, ` +
        `${[...checkIds].filter((id) => !targeted.has(id) && named.has(id)).length} named by a unit test, ${neither.length} with neither`,
    );
    expect(neither).toEqual([]);
  });

  it('names in its map only tests that exist and name their check', () => {
    const problems = Object.entries(FAILING_TESTS)
      .map(([id, entry]) => entryProblem(id, entry))
      .filter((p): p is string => p !== undefined);
    expect(problems).toEqual([]);
  });

  it('knows only real check ids, in the fault registries and in the map', () => {
    const bogus = [
      ...faults.flatMap((f) => [...f.targets, ...(f.collateral ?? [])].filter((id) => !checkIds.has(id)).map((id) => `fault ${f.name}: ${id}`)),
      ...Object.keys(FAILING_TESTS)
        .filter((id) => !checkIds.has(id))
        .map((id) => `failing-tests.ts: ${id}`),
    ];
    expect(bogus).toEqual([]);
  });
});
