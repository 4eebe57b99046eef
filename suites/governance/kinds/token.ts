/**
 * `governance_token`: the signed token (a compact JWS, RFC 7515) that may accompany a
 * check_governance approval (interface spec 4.3) must verify against the keys the governance agent
 * publishes (brand.json `agents[].jwks_uri`, else `/.well-known/jwks.json` at its origin: digest
 * 1.11, harness/core/webhooks/emission/keys.ts). The token is looked for in the reply of the call step
 * `step`: any string member (depth 4, 64 strings at most) shaped as a compact JWS whose header is a
 * JSON object with an `alg`. None: a coverage gap (the token is optional). Verified with jose:
 * EdDSA or ES256 only, the header's `kid` resolved among the published keys, an `exp` claim in the
 * past refused.
 */
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import type { StepKind } from '../../../harness/core/engine/kinds/types.js';
import { sellerKeys } from '../../../harness/core/webhooks/emission/keys.js';

const COMPACT = /^[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{16,}$/;
const ALGORITHMS = ['EdDSA', 'ES256'];

/** `[pointer, token]` of every string in `value` that looks like a compact JWS. */
function tokensIn(value: unknown, pointer = '', depth = 0, out: Array<[string, string]> = [], budget = { strings: 64 }): Array<[string, string]> {
  if (depth > 4 || budget.strings <= 0) return out;
  if (typeof value === 'string') {
    budget.strings -= 1;
    if (value.length <= 16_384 && COMPACT.test(value)) {
      try {
        if (typeof decodeProtectedHeader(value).alg === 'string') out.push([pointer, value]);
      } catch {
        // not a JWS header
      }
    }
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value))
    tokensIn(v, `${pointer}/${String(k).replaceAll('~', '~0').replaceAll('/', '~1')}`, depth + 1, out, budget);
  return out;
}

export const governanceToken: StepKind = {
  name: 'governance_token',
  fields: { step: { type: 'string' } },
  required: ['step'],
  async run(step, ctx) {
    const record = ctx.steps[String(step.step)];
    if (!record) throw new Error(`governance_token: no earlier step "${String(step.step)}"`);
    const found = tokensIn(record.payload);
    if (found.length === 0)
      return {
        verdict: {
          status: 'gap',
          message: 'the approval carries no signed token (a JWS may accompany an approval: optional)',
          gap: 'a signed governance token',
        },
      };
    const [pointer, token] = found[0]!;
    const header = decodeProtectedHeader(token);
    const fail = (message: string) => ({ verdict: { status: 'failed' as const, message: `the token at ${pointer}: ${message}`, pointer, actual: header } });
    if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg)) return fail(`alg ${JSON.stringify(header.alg)} is not EdDSA or ES256`);
    if (typeof header.kid !== 'string' || header.kid === '') return fail('its header names no kid, so no published key can verify it');
    const { brandJsonUrl, resolver } = await sellerKeys(ctx);
    const lookup = await resolver.resolve(header.kid);
    if (!lookup.ok)
      return fail(`kid ${JSON.stringify(header.kid)} is not a key the agent publishes (${lookup.reason}: ${lookup.detail}; brand.json ${brandJsonUrl})`);
    let payload: Uint8Array;
    try {
      const key = await importJWK(lookup.key.jwk as Parameters<typeof importJWK>[0], header.alg);
      ({ payload } = await compactVerify(token, key, { algorithms: ALGORITHMS }));
    } catch (e) {
      return fail(`does not verify with the published key ${header.kid} (${(e as Error).message})`);
    }
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload).toString('utf8'));
    } catch {
      claims = undefined;
    }
    const exp = claims && typeof claims === 'object' ? (claims as { exp?: unknown }).exp : undefined;
    if (typeof exp === 'number' && exp * 1000 < Date.now()) return fail(`expired at ${new Date(exp * 1000).toISOString()}`);
    return { verdict: { status: 'ok' }, record: { payload: { pointer, header, claims }, ok: true } };
  },
};
