import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FRESH_CLONE_CI, SLOW_TEST_FILES } from './test-times.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('slowest test files', () => {
  it('each listed file exists', () => {
    for (const file of Object.keys(SLOW_TEST_FILES)) expect(existsSync(`${ROOT}${file}`), file).toBe(true);
  });

  it('docs/testing.md names exactly these files with these times', () => {
    const readme = readFileSync(`${ROOT}docs/testing.md`, 'utf8');
    const rows = [...readme.matchAll(/^\| `([^`]+\.test\.ts)` \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(SLOW_TEST_FILES);
  });

  it('docs/testing.md states the recorded fresh-clone CI times the bench prints', () => {
    const readme = readFileSync(`${ROOT}docs/testing.md`, 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`The whole of \`.ci/run\` takes about ${FRESH_CLONE_CI.wholeMinutes} minutes`);
    expect(readme).toContain(`about ${FRESH_CLONE_CI.vitestMinutes} minutes of vitest`);
  });
});
