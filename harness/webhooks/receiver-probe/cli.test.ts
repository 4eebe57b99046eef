/** The `run` flags for a buyer's receiver: parsing, validation, the reproduce command. */
import { describe, expect, it } from 'vitest';
import { parseRunArgs, reproduceCommand, type RunArgs } from '../../cli/run-command.js';
import { UsageError } from '../../cli/usage.js';
import { certify } from '../../certify.js';

const R = 'http://127.0.0.1:9000/webhooks/default';

function args(argv: string[]): RunArgs {
  const a = parseRunArgs(argv, {});
  if (a === 'help') throw new Error('help');
  return a;
}

describe('run --receiver flags', () => {
  it('parses every receiver option into one target and reproduces it', () => {
    const a = args([
      '--receiver',
      R,
      '--receiver-state',
      'http://127.0.0.1:9000/_admin/state',
      '--receiver-alt',
      'http://127.0.0.1:9000/webhooks/alt',
      '--receiver-dedup-bound',
      '20',
      '--sender-port',
      '47000',
      '--seed',
      '7',
    ]);
    expect(a.receiver).toEqual({
      url: R,
      stateUrl: 'http://127.0.0.1:9000/_admin/state',
      altUrl: 'http://127.0.0.1:9000/webhooks/alt',
      dedupBound: 20,
      senderPort: 47000,
    });
    expect(reproduceCommand(a)).toBe(
      `npx proto-comply run --receiver ${R} --receiver-state http://127.0.0.1:9000/_admin/state --receiver-alt http://127.0.0.1:9000/webhooks/alt --receiver-dedup-bound 20 --sender-port 47000 --seed 7`,
    );
  });

  it.each([
    [['--receiver', 'ftp://x/y'], 'must use http or https'],
    [['--receiver', R, '--receiver-dedup-bound', '0'], '--receiver-dedup-bound must be an integer'],
    [['--receiver', R, '--sender-port', '70000'], '--sender-port must be an integer'],
    [['--receiver-state', 'http://127.0.0.1:1/s'], 'need a receiver URL'],
    [['--receiver', R, '--receiver-alt', R], 'must differ'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseRunArgs(argv, {})).toThrow(UsageError);
    expect(() => parseRunArgs(argv, {})).toThrow(message);
  });

  it('a receiver-only run refuses suites that need an agent', async () => {
    await expect(certify({ receiverUrl: R, suites: ['idempotency'] })).rejects.toThrow(/needs an agent/);
    await expect(certify({})).rejects.toThrow(/agent URL/);
  });
});
