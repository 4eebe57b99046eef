/** The `run` flags for a buyer's receiver: parsing, validation, the reproduce command. */
import { describe, expect, it } from 'vitest';
import { parseRunArgs, reproduceCommand, type RunArgs } from './run-args.js';
import { UsageError } from './usage.js';
import { certify } from '../certify/index.js';

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

  it('takes the HMAC endpoint from --receiver-hmac and its secret from the environment only, and never reproduces the secret', () => {
    const secret = 's'.repeat(40);
    const a = parseRunArgs(['--receiver', R, '--receiver-hmac', 'http://127.0.0.1:9000/webhooks/hmac', '--seed', '7'], {
      PROTO_COMPLY_RECEIVER_HMAC_SECRET: secret,
    });
    if (a === 'help') throw new Error('help');
    expect(a.receiver?.hmac).toEqual({ url: 'http://127.0.0.1:9000/webhooks/hmac', secret });
    expect(reproduceCommand(a)).toBe(`npx proto-comply run --receiver ${R} --receiver-hmac http://127.0.0.1:9000/webhooks/hmac --seed 7`);
    const b = parseRunArgs(['--receiver', R, '--receiver-bearer', 'http://127.0.0.1:9000/webhooks/b'], { PROTO_COMPLY_RECEIVER_BEARER_TOKEN: secret });
    if (b === 'help') throw new Error('help');
    expect(b.receiver?.bearer).toEqual({ url: 'http://127.0.0.1:9000/webhooks/b', secret });
    expect(() => parseRunArgs(['--receiver', R, '--receiver-bearer', 'http://127.0.0.1:9000/webhooks/b'], {})).toThrow(
      "--receiver-bearer needs the endpoint's credential in $PROTO_COMPLY_RECEIVER_BEARER_TOKEN",
    );
  });

  it.each([
    [{}, "needs the endpoint's shared secret in $PROTO_COMPLY_RECEIVER_HMAC_SECRET"],
    [{ PROTO_COMPLY_RECEIVER_HMAC_SECRET: 'short' }, 'at least 32 characters'],
  ])('refuses --receiver-hmac with the environment %j', (env, message) => {
    const argv = ['--receiver', R, '--receiver-hmac', 'http://127.0.0.1:9000/webhooks/hmac'];
    expect(() => parseRunArgs(argv, env)).toThrow(UsageError);
    expect(() => parseRunArgs(argv, env)).toThrow(message);
    const same = ['--receiver', R, '--receiver-hmac', R];
    expect(() => parseRunArgs(same, { PROTO_COMPLY_RECEIVER_HMAC_SECRET: 's'.repeat(40) })).toThrow('must differ');
  });

  it('a receiver-only run refuses suites that need an agent', async () => {
    await expect(certify({ receiverUrl: R, suites: ['idempotency'] })).rejects.toThrow(/needs an agent/);
    await expect(certify({})).rejects.toThrow(/agent URL/);
  });
});
