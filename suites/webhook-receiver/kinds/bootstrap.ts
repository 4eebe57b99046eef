/**
 * `receiver_bootstrap_send`: one webhook from one of the harness's bootstrap sender agents
 * (harness/core/webhooks/receiver-probe/bootstrap/), posted to the receiver endpoint registered
 * for that agent (`--receiver-bootstrap URL`, `{slot}` = `<column>-<variant>`). The key it signs
 * with is published only in that agent's JWKS, so the receiver can verify it only by discovering
 * the agent's keys from its URL (digest 1.11 bootstrap).
 *
 * `expect: accepted` wants a 2xx. `expect: refused` wants a 401 whose code is the variant's
 * discovery code (variants.ts expectedCodes: either prefix, or step 7's key_unknown); a 2xx, any
 * other code, or no code fails. `publish` adds keys to the agent's JWKS before sending (a key
 * rotation); `expect_jwks_fetches` judges how many times the agent's JWKS was fetched so far.
 * Without --receiver-bootstrap the step is a coverage gap (the receiver does not take endpoints
 * bound to a seller agent discovered from its URL).
 */
import { parseWwwAuthenticate } from '../../../harness/core/signing/parse/www-authenticate.js';
import type { StepKind, StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import { bootstrapSender, NO_RECEIVER, postWebhook, probeEnv, receiverTarget } from '../../../harness/core/webhooks/receiver-probe/client.js';
import { encodeEvent } from '../../../harness/core/webhooks/receiver-probe/events.js';
import { aliasValue } from '../../../harness/core/webhooks/receiver-probe/scope.js';
import { signRequest } from '../../../harness/core/signing/sign/signer.js';
import { expectedCodes, VARIANTS, type Variant } from '../../../harness/core/webhooks/receiver-probe/bootstrap/variants.js';

const ALIAS = { type: 'string', pattern: '^k[0-9]$' };

export const BOOTSTRAP_GAP = {
  message:
    'needs receiver endpoints each registered for one of the harness bootstrap sender agents, whose keys the receiver discovers from the agent URL: give them with --receiver-bootstrap URL ({slot} in it), --bootstrap-port N and --bootstrap-ca-dir DIR',
  gap: 'receiver options (--receiver-bootstrap)',
};

export const receiverBootstrapSend: StepKind = {
  name: 'receiver_bootstrap_send',
  fields: {
    variant: { enum: [...VARIANTS] },
    key: ALIAS,
    publish: { type: 'array', items: ALIAS, minItems: 1 },
    expect: { enum: ['accepted', 'refused'] },
    expect_jwks_fetches: { type: 'integer', minimum: 0 },
  },
  required: ['variant', 'expect'],
  async run(step, ctx) {
    const target = receiverTarget(ctx);
    if (!target) return { verdict: { status: 'not_applicable', message: NO_RECEIVER } };
    const sender = await bootstrapSender(ctx);
    if (!target.bootstrap || !sender) return { verdict: { status: 'gap', ...BOOTSTRAP_GAP } };
    const env = await probeEnv(ctx);
    const variant = step.variant as Variant;
    const slot = `${ctx.kind}-${variant}`;
    const alias = (step.key as string | undefined) ?? 'k1';
    for (const a of (step.publish as string[] | undefined) ?? []) sender.publish(slot, a);
    const url = target.bootstrap.url.replace('{slot}', slot);
    const taskId = aliasValue(ctx, 'task', `bootstrap_${variant.replace(/-/g, '_')}`);
    const idempotencyKey = aliasValue(ctx, 'key', `bootstrap_${variant.replace(/-/g, '_')}_${alias}`);
    const eventBytes = encodeEvent({
      format: ctx.kind,
      idempotencyKey,
      taskId,
      operationId: aliasValue(ctx, 'op', `bootstrap_${variant}`),
      contextId: aliasValue(ctx, 'ctx', `bootstrap_${variant}`),
      status: 'working',
      timestamp: new Date().toISOString(),
      context: { probe: ctx.checkId },
    });
    const key = sender.key(slot, alias);
    const signed = signRequest(
      { method: 'POST', url, headers: { 'Content-Type': 'application/json' }, body: eventBytes },
      { profile: 'webhook', ids: env.identity.ids, key, encoding: 'legacy' },
    );
    const r = await postWebhook(
      ctx,
      env,
      url,
      signed.headers,
      Buffer.from(signed.body),
      `webhook from bootstrap agent ${sender.urls(slot).agentUrl} (kid ${key.kid})`,
    );
    const code = parseWwwAuthenticate(r.wwwAuthenticate);
    const record = {
      http_status: r.status,
      payload: { status: r.status, www_authenticate: r.wwwAuthenticate, agent_url: sender.urls(slot).agentUrl, kid: key.kid },
    };
    const actual = { status: r.status, www_authenticate: r.wwwAuthenticate, body: r.body?.slice(0, 300) };
    const verdict = judge(step.expect as 'accepted' | 'refused', variant, r.status, code, actual);
    if (verdict.status !== 'ok' || step.expect_jwks_fetches === undefined) return { verdict, record };
    const fetches = sender.jwksFetches(slot);
    const want = step.expect_jwks_fetches as number;
    if (fetches !== want) {
      return {
        verdict: {
          status: 'failed',
          message: `the agent's JWKS was fetched ${fetches} time(s) so far, expected ${want} (a kid miss refetches at once, a second refetch within 30 s is not allowed)`,
          expected: want,
          actual: fetches,
        },
        record,
      };
    }
    return { verdict, record };
  },
};

function judge(expect: 'accepted' | 'refused', variant: Variant, status: number | undefined, code: string | undefined, actual: unknown): StepVerdict {
  if (status === undefined) return { status: 'failed', message: 'the receiver gave no answer', actual };
  if (expect === 'accepted') {
    if (status >= 200 && status < 300) return { status: 'ok' };
    return {
      status: 'failed',
      message: `the receiver answered HTTP ${status}${code ? ` (${code})` : ''} to a delivery whose keys the ${variant} discovery chain publishes correctly; expected a 2xx`,
      expected: '2xx',
      actual,
    };
  }
  const codes = expectedCodes(variant);
  if (status === 401 && code !== undefined && codes.includes(code)) return { status: 'ok' };
  return {
    status: 'failed',
    message:
      status >= 200 && status < 300
        ? variant === 'cooldown'
          ? `the receiver accepted (HTTP ${status}) a kid its sender published after the receiver's last JWKS refetch, within the 30 s cooldown (a second refetch is not allowed)`
          : `the receiver accepted (HTTP ${status}) a delivery whose ${variant} discovery chain is broken`
        : `the receiver answered HTTP ${status}${code ? ` (${code})` : ' without a Signature error code'}; expected 401 with ${codes.join(' or ')}`,
    expected: { status: 401, www_authenticate: codes.map((c) => `Signature error="${c}"`) },
    actual,
  };
}
