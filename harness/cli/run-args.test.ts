/** `proto-comply run` argument parsing: the concurrency default is left to the run (4 for an agent URL, 8 for the built-in mocks). */
import { describe, expect, it } from 'vitest';
import { parseRunArgs, reproduceCommand } from './run-args.js';
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

/** The parsed arguments of `run --agent https://a.example ARGV`. */
const parsed = (argv: string[]) => {
  const a = parseRunArgs(['--agent', 'https://a.example', ...argv]);
  if (a === 'help') throw new Error('help');
  return a;
};

describe('run --target', () => {
  it('is absent unless given (the run then judges the newest released line and says so), and reproduces', () => {
    expect(parsed([]).target).toBeUndefined();
    expect(reproduceCommand(parsed([]))).not.toContain('--target');
    expect(parsed(['--target', '3.0']).target).toBe('3.0');
    expect(reproduceCommand(parsed(['--target', '3.2']))).toContain('--target 3.2');
  });

  it('refuses a line that is not a protocol line, naming the lines', () => {
    for (const bad of ['4.0', '3', '3.1.0', 'latest'])
      expect(() => parsed(['--target', bad])).toThrow(new UsageError(`run: --target must be one of 3.0, 3.1, 3.2, got ${JSON.stringify(bad)}`));
  });
});

describe('run --lifecycle-stage', () => {
  it('is absent unless given (the declaration then decides), and reproduces', () => {
    expect(parsed([]).lifecycleStage).toBeUndefined();
    expect(parsed(['--lifecycle-stage', 'development']).lifecycleStage).toBe('development');
    expect(reproduceCommand(parsed(['--lifecycle-stage', 'production']))).toContain('--lifecycle-stage production');
  });

  it('refuses what is not a registry stage, naming the stages', () => {
    for (const bad of ['prod', 'sandbox', ''])
      expect(() => parsed(['--lifecycle-stage', bad])).toThrow(
        new UsageError(`run: --lifecycle-stage must be one of development, testing, production, deprecated, got ${JSON.stringify(bad)}`),
      );
  });
});

describe('run --storyboards', () => {
  it('is absent unless given, and reproduces', () => {
    expect(parsed([]).storyboards).toBeUndefined();
    const a = parsed(['--storyboards', 'bundles/3.0.6']);
    expect(a.storyboards).toBe('bundles/3.0.6');
    expect(reproduceCommand(a)).toMatch(/ --storyboards bundles\/3\.0\.6 /);
  });

  it('a bundle that cannot be read is a usage error naming it, before any agent is called', async () => {
    const { runCommand } = await import('./run-command.js');
    await expect(runCommand(['--agent', 'http://127.0.0.1:9/mcp', '--storyboards', '/nonexistent/bundle'])).rejects.toThrow(
      /run: --storyboards: \/nonexistent\/bundle: no such file or directory/,
    );
  });
});

describe('run --schemas', () => {
  it('is absent unless given, and reproduces', () => {
    expect(parsed([]).schemas).toBeUndefined();
    const a = parsed(['--schemas', 'sdk/schemas-data/3.0']);
    expect(a.schemas).toBe('sdk/schemas-data/3.0');
    expect(reproduceCommand(a)).toMatch(/ --schemas sdk\/schemas-data\/3\.0 /);
  });

  it('a directory that is not a released schema set is a usage error naming it and what is wrong, before any agent is called', async () => {
    const { runCommand } = await import('./run-command.js');
    const { SCHEMA_SET_FIXTURE } = await import('../core/schemas/testing/schema-set-fixture.js');
    const run = (dir: string) => runCommand(['--agent', 'http://127.0.0.1:9/mcp', '--schemas', dir]);
    await expect(run('/nonexistent/schemas')).rejects.toThrow(new UsageError('run: --schemas: /nonexistent/schemas: no such directory'));
    await expect(run(`${SCHEMA_SET_FIXTURE}manifest.json`)).rejects.toThrow(/^run: --schemas: .*manifest\.json: not a directory/);
    await expect(run(`${SCHEMA_SET_FIXTURE}core`)).rejects.toThrow(/^run: --schemas: .*core: names no release version/);
  });
});

describe('run --format', () => {
  it('writes every format but runner-output by default, and runner-output too for a storyboard run', () => {
    expect(parsed([]).formats).toEqual(['json', 'junit', 'html', 'allure']);
    expect(parsed(['--storyboards', 'bundle']).formats).toEqual(['json', 'junit', 'html', 'allure', 'runner-output']);
    expect(parsed(['--storyboards', 'bundle', '--format', 'runner-output,json,runner-output']).formats).toEqual(['runner-output', 'json']);
  });

  it('refuses runner-output without storyboards, an unknown format and an empty list, before any agent is called', () => {
    expect(() => parsed(['--format', 'runner-output'])).toThrow(
      new UsageError('run: --format runner-output needs --storyboards: the runner output contract reports the steps of a storyboard run'),
    );
    expect(() => parsed(['--format', 'json,pdf'])).toThrow(
      new UsageError('run: --format must name formats of json, junit, html, allure, runner-output, got "pdf"'),
    );
    expect(() => parsed(['--format', ','])).toThrow(new UsageError('run: --format needs at least one format'));
  });
});

describe('--connect-to', () => {
  it('is parsed into rules, kept in the reproduce command, and a malformed value is a usage error', () => {
    const a = parsed(['--connect-to', 'seller.test:80:127.0.0.1:4000', '--connect-to', '::[::1]:']);
    expect(a.connectTo).toEqual([{ host: 'seller.test', port: 80, connectHost: '127.0.0.1', connectPort: 4000 }, { connectHost: '::1' }]);
    expect(reproduceCommand(a)).toContain("--connect-to seller.test:80:127.0.0.1:4000 --connect-to '::[::1]:'");
    expect(() => parseRunArgs(['--agent', 'http://seller.test/', '--connect-to', 'seller.test:80:127.0.0.1'])).toThrow(
      /--connect-to: .*HOST:PORT:CONNECT_HOST:CONNECT_PORT/,
    );
  });
});
