/** `proto-comply run` argument parsing: the concurrency default is left to the run (4 for an agent URL, 8 for the built-in mocks). */
import { describe, expect, it } from 'vitest';
import { parseRunArgs } from './run-command.js';
import { UsageError } from './usage.js';

describe('run --concurrency', () => {
  it('is absent unless given, so the run picks the default for its agent', () => {
    const plain = parseRunArgs(['--agent', 'https://a.example']);
    if (plain === 'help') throw new Error('help');
    expect(plain.concurrency).toBeUndefined();
    const given = parseRunArgs(['--agent', 'https://a.example', '--concurrency', '2']);
    if (given === 'help') throw new Error('help');
    expect(given.concurrency).toBe(2);
  });

  it('refuses what is not a positive integer', () => {
    for (const bad of ['0', '-1', '1.5', 'many']) expect(() => parseRunArgs(['--concurrency', bad])).toThrow(UsageError);
  });
});
