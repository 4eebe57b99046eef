/**
 * `proto-comply --version` (and `-v`): the entry point answers it without the TypeScript loader,
 * and says what `main` says, the version of package.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

const BIN = fileURLToPath(new URL('../../bin/proto-comply.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('proto-comply --version', () => {
  it.each(['--version', '-v'])('%s prints the package version and exits 0, as main does', async (flag) => {
    expect(execFileSync(process.execPath, [BIN, flag], { encoding: 'utf8' })).toBe(`proto-comply ${VERSION}\n`);
    let out = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => {
      out += s;
      return true;
    }) as typeof process.stdout.write;
    try {
      expect(await main([flag])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out).toBe(`proto-comply ${VERSION}\n`);
  });
});
