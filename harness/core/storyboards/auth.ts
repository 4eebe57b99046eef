/**
 * A step's own credentials (digest 6.1 step `auth:`; the bundle's storyboard schema): `auth: none`
 * calls with no Authorization header; `{type: api_key, from_test_kit: true}` with the test kit's
 * `auth.api_key` (or `from_test_kit: "<path>"`, a named principal's key); `{type: api_key,
 * value_strategy: random_invalid}` with `invalid-<32 random bytes>`; `{type: oauth_bearer,
 * value_strategy: random_invalid_jwt}` with a JWT-shaped token whose signature is random. The
 * random values are drawn once per run. A kit without the key is the runner's missing input (a
 * gap); any other shape (a literal `value`, which the schema disallows, an unknown type or
 * strategy) is not applicable, naming the shape.
 */
import { randomBytes } from 'node:crypto';
import type { CheckContext, StepVerdict } from '../engine/kinds/types.js';
import type { AuthOverride } from '../transport/types.js';
import type { StoryboardStep } from './model.js';
import { UnresolvedSubstitution } from './substitute.js';
import { kitValue, type KitOf } from './test-kits.js';

export type StepAuth = { auth: AuthOverride; note: string } | { verdict: StepVerdict };

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** The run's random invalid credentials (one of each per run, as the schema says). */
function randomCredentials(ctx: CheckContext): Promise<{ apiKey: string; jwtSignature: string }> {
  return ctx.resources.get('storyboards.auth.random', async () => ({
    value: { apiKey: `invalid-${randomBytes(32).toString('hex')}`, jwtSignature: b64(randomBytes(32)) },
    close: async () => {},
  }));
}

const shapeOf = (auth: unknown) => JSON.stringify(auth)?.slice(0, 120) ?? String(auth);
const notApplicable = (auth: unknown, why: string): StepAuth => ({
  verdict: { status: 'not_applicable', message: `the step's auth ${shapeOf(auth)} ${why}` },
});

/** The credentials the step calls with, or undefined when it names none (the run's own token). */
export async function stepAuth(step: StoryboardStep, kit: KitOf, ctx: CheckContext): Promise<StepAuth | undefined> {
  const auth = step.raw.auth;
  if (auth === undefined) return undefined;
  if (auth === 'none') return { auth: { mode: 'none' }, note: 'called with no credentials (auth: none)' };
  if (auth === null || typeof auth !== 'object' || Array.isArray(auth)) return notApplicable(auth, 'is not a shape the harness knows');
  const a = auth as Record<string, unknown>;
  if ('value' in a) return notApplicable(auth, 'carries a literal value, which the storyboard schema disallows (use from_test_kit or value_strategy)');
  if (a.type !== 'api_key' && a.type !== 'oauth_bearer') return notApplicable(auth, 'names a credential type the harness does not send');
  const fromKit = a.from_test_kit;
  const strategy = a.value_strategy;
  if ((fromKit !== undefined) === (strategy !== undefined)) return notApplicable(auth, 'needs exactly one of from_test_kit and value_strategy');
  if (fromKit !== undefined) {
    const path = fromKit === true ? 'auth.api_key' : typeof fromKit === 'string' && fromKit !== '' ? fromKit : undefined;
    if (!path) return notApplicable(auth, 'has a from_test_kit that is neither true nor a path');
    let key: unknown;
    try {
      key = kitValue(kit, path);
    } catch (e) {
      if (!(e instanceof UnresolvedSubstitution)) throw e;
      return e.gap ? { verdict: { status: 'gap', gap: e.gap, message: e.message } } : notApplicable(auth, `cannot be read: ${e.message}`);
    }
    if (typeof key !== 'string' || !/^[\x21-\x7e]+$/.test(key)) return notApplicable(auth, `reads the test kit's ${path}, which is no bearer token`);
    return { auth: { mode: 'bearer', token: key }, note: `called with the test kit's ${path} as the bearer token` };
  }
  const random = await randomCredentials(ctx);
  if (strategy === 'random_invalid') return { auth: { mode: 'bearer', token: random.apiKey }, note: 'called with a random invalid API key (random_invalid)' };
  if (strategy === 'random_invalid_jwt') {
    const token = `${b64('{"alg":"RS256","typ":"JWT"}')}.${b64(JSON.stringify({ sub: 'invalid', aud: ctx.transport.endpoint }))}.${random.jwtSignature}`;
    return { auth: { mode: 'bearer', token }, note: 'called with a random JWT-shaped bearer token whose signature is random (random_invalid_jwt)' };
  }
  return notApplicable(auth, 'names a value_strategy the harness does not know');
}
