/**
 * `signed_call`: one real task call over the agent's transport, signed by the harness's test
 * counterparty (RFC 9421 request profile), optionally with named defects that each break one
 * checklist step (harness/core/signing/sign/defects.ts), judged as accepted or as a 401 with the exact
 * `Signature error` code (digest 1.9, 1.14, 2.6).
 */
import type { DefectName } from '../../../harness/core/signing/sign/defects.js';
import { type ProbeKey, probeKid } from '../../../harness/core/signing/keys/counterparty.js';
import { recordOf, type CheckContext, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import type { OutgoingRequest } from '../../../harness/core/transport/types.js';
import { authOverride } from '../../../harness/core/engine/kinds/steps/util.js';
import { counterpartyServer, coverDigest, signingCapability, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { DEFECTS_FIELD, describeProbe, EXPECT_FIELD, judgeSigned, KEY_FIELD, noteKeys, type SignedExpectation } from './probe.js';
import { resolveTarget, type OperationScope, type TargetResult } from './target.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** The first JSON-RPC method of `protocol_methods_required_for` (digest 1.15 pattern), if any. */
export function requiredMethod(ctx: CheckContext): string | undefined {
  const list = signingCapability(ctx).protocol_methods_required_for;
  const first = Array.isArray(list) ? list[0] : undefined;
  return typeof first === 'string' && /^[a-z][a-z0-9_]*\/[a-z][a-z0-9_]*$/.test(first) ? first : undefined;
}

/**
 * Rewrite the task call into a call of a JSON-RPC protocol method (same envelope id, same
 * session headers): `tasks/cancel` names an unknown task id in the transport's own spelling.
 */
export function asProtocolMethod(method: string, ctx: CheckContext): (req: OutgoingRequest) => OutgoingRequest {
  return (req) => {
    if (req.body.length > MAX_BODY_BYTES) throw new Error('request body too large to rewrite');
    const envelope = JSON.parse(new TextDecoder().decode(req.body)) as { id?: unknown };
    const taskId = `task-proto-comply-${ctx.random.alias('hex', '__protocol_method_task', (r) => r.hex(8))}`;
    const params = method === 'tasks/cancel' ? (ctx.kind === 'a2a' ? { id: taskId } : { taskId }) : {};
    const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: envelope.id ?? 1, method, params }));
    return { ...req, body };
  };
}

/** Append a query to the request URL before it is signed (kept byte for byte by both sides). */
function withQuery(query: string): (req: OutgoingRequest) => OutgoingRequest {
  return (req) => ({ ...req, url: `${req.url}${req.url.includes('?') ? '&' : '?'}${query}` });
}

/**
 * The host of the agent URL when it has letters to case (a DNS name, or an IPv6 literal with hex
 * letters); undefined for an IPv4 literal or an IPv6 literal of digits only, where digest 1.6 step 2
 * has nothing to lower-case at that URL.
 */
export function caseableHost(agentUrl: string): string | undefined {
  let host: string;
  try {
    host = new URL(agentUrl).hostname;
  } catch {
    return undefined;
  }
  return /[a-z]/i.test(host) ? host : undefined;
}

function capabilitiesTarget(ctx: CheckContext): TargetResult {
  return { ok: true, target: { task: ctx.ids.capabilitiesTask, args: {}, how: 'the capabilities task (no signing declared)' } };
}

export const signedCall: StepKind = {
  name: 'signed_call',
  /** Probe targets are called in the buyer's account, and a sandbox create buys the setup suite's product (target.ts). */
  reads: ['buyer', 'accounts', 'product'],
  fields: {
    /** Counterparty key to sign with (default ed25519). */
    key: KEY_FIELD,
    defects: DEFECTS_FIELD,
    /** `policy` (default): covered unless the agent declares covers_content_digest forbidden. */
    content_digest: { enum: ['policy', 'covered', 'uncovered'] },
    /** `none`: no bearer token (pre-check P1). */
    auth: { enum: ['default', 'none'] },
    /**
     * `required`: probe an operation from required_for only (default: supported_for + required_for);
     * `capabilities`: the capabilities task, for agents that declare no request signing.
     */
    operations: { enum: ['signed', 'required', 'capabilities'] },
    /** `required`: send the first JSON-RPC method of protocol_methods_required_for instead of the task call (gap when none). */
    rpc_method: { enum: ['required'] },
    /** A `<token>_version` member added to the task arguments (digest 1.7: the body never picks the policy). */
    body_version: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)*$' },
    /** A query appended to the request URL, signed and sent as is (digest 1.6 step 7). */
    query: { type: 'string', pattern: '^[A-Za-z0-9=&+%._~-]{1,64}$' },
    /** Fail a refusal whose WWW-Authenticate carries more than the code (digest 1.14). */
    exact_challenge: { type: 'boolean' },
    /** Push notification registration sent with the call (webhook authentication pre-check). */
    push_notification_config: { type: 'object' },
    expect: EXPECT_FIELD,
  },
  required: ['expect'],
  async run(step, ctx) {
    await counterpartyServer(ctx);
    const expect = step.expect as SignedExpectation;
    const method = step.rpc_method === 'required' ? requiredMethod(ctx) : undefined;
    if (step.rpc_method === 'required' && method === undefined) {
      return {
        verdict: {
          status: 'gap',
          message: 'the agent lists no JSON-RPC method in request_signing.protocol_methods_required_for',
          gap: 'a listed protocol method',
        },
      };
    }
    const defects = (step.defects as DefectName[] | undefined) ?? [];
    if (defects.includes('host-upper-case') && caseableHost(ctx.transport.endpoint) === undefined) {
      return {
        verdict: {
          status: 'not_applicable',
          message: `the endpoint host (${new URL(ctx.transport.endpoint).hostname}) is an IP literal without letters: there is no case to fold at this URL (digest 1.6 step 2); probed on a DNS-named agent URL`,
        },
      };
    }
    const target =
      step.operations === 'capabilities'
        ? capabilitiesTarget(ctx)
        : await resolveTarget(ctx, expect === 'accepted' ? 'accept' : 'reject', (step.operations as OperationScope | undefined) ?? 'signed');
    if (!target.ok) return { verdict: { status: 'gap', message: target.message, gap: 'an operation to probe the signature verifier with' } };
    const args = step.body_version === undefined ? target.target.args : { ...target.target.args, [ctx.ids.versionMember]: step.body_version };
    const spec: SignSpec = {
      key: (step.key as ProbeKey | undefined) ?? 'ed25519',
      defects,
      coverDigest: coverDigest(step.content_digest, ctx),
    };
    const unsigned = spec.defects.includes('unsigned');
    const query = step.query as string | undefined;
    const what = method !== undefined ? `JSON-RPC ${method}` : target.target.task;
    const probe = unsigned ? `${what} without a signature` : describeProbe(what, spec, ctx);
    ctx.notes.push(
      `${probe}${step.body_version === undefined ? '' : ` (body ${ctx.ids.versionMember} ${String(step.body_version)})`}${query === undefined ? '' : ` (URL query ${query})`} [${method !== undefined ? 'a method listed in request_signing.protocol_methods_required_for' : target.target.how}]`,
    );
    const sign = signingPrepare(ctx, spec);
    const rewrite = method !== undefined ? asProtocolMethod(method, ctx) : query !== undefined ? withQuery(query) : undefined;
    const reply = await ctx.call(target.target.task, args, {
      auth: authOverride(step.auth as string | undefined, ctx),
      pushNotificationConfig: step.push_notification_config ? (ctx.expand(step.push_notification_config) as Record<string, unknown>) : undefined,
      prepare: rewrite ? (req) => sign(rewrite(req)) : sign,
      purpose: `${what} (${unsigned ? 'unsigned' : spec.defects.length ? `signed, ${spec.defects.join('+')}` : 'signed'})`,
    });
    const verdict = judgeSigned(reply, expect, ctx, probe, {
      exactChallenge: step.exact_challenge === true,
      ...(spec.key !== 'ed25519' && spec.key !== 'es256' ? { specialKey: probeKid(spec.key) } : {}),
    });
    if (verdict.status === 'failed') await noteKeys(ctx);
    return { verdict, record: recordOf(reply) };
  },
};
