/** A storyboard introduced in a minor release (`introduced_in: "3.1"`) against the run's target line and the agent's declared versions (select.ts). */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStoryboardBundle } from './load.js';
import { type AgentFacts, selectStoryboards } from './select.js';

const dir = mkdtempSync(join(tmpdir(), 'select-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'x.yaml');
writeFileSync(file, 'id: x\ntitle: x\nintroduced_in: "3.1"\nphases:\n  - id: p\n    steps:\n      - { id: s, task: get_products }\n');
const bundle = loadStoryboardBundle(file);
const skip = (facts: Partial<AgentFacts>) =>
  selectStoryboards(bundle, { capabilities: {}, tools: new Set(), majorVersions: [3], ...facts })[0]?.skip?.detail ?? 'run';

describe('introduced_in of a minor release', () => {
  it('is not applicable to a run targeting an earlier line, or to an agent declaring only earlier versions', () => {
    expect(skip({ target: '3.0' })).toBe('introduced in 3.1; the run targets 3.0');
    expect(skip({ target: '3.1', supportedVersions: ['3.0'] })).toBe('introduced in 3.1; the agent declares supported_versions [3.0]');
    expect(skip({ target: '3.0', supportedVersions: ['3.0', '3.1'] })).toBe('introduced in 3.1; the run targets 3.0');
  });
  it('applies on its line and later, and when nothing is known of versions', () => {
    expect(skip({ target: '3.1', supportedVersions: ['3.0', '3.1'] })).toBe('run');
    expect(skip({ target: '3.2', supportedVersions: ['3.2'] })).toBe('run');
    expect(skip({})).toBe('run');
  });
});
