/**
 * `signed_host`: probes of the verifier's authority canonicalization (digest 1.6 steps 3 and 4)
 * through the HTTP/1.1 Host header, each a correctly signed task call over the agent's transport
 * whose signature covers the canonical target URI and authority of the agent URL.
 *
 * - `form: malformed` (step 3): the Host is `:PORT` (empty host), `[::1` (broken bracket) or
 *   `fe80::1` (bare IPv6). Each must be refused with 401 and `request_target_uri_malformed`
 *   (1.6, 1.14). A 2xx or a JSON-RPC answer means the request went past the verifier: a failure.
 *   A non-401 refusal without a JSON-RPC body (a plain 400 of the HTTP server or of a proxy)
 *   never reached a verifier: no evidence against it, the form is not judged (all three: a gap).
 * - `form: default-port` (step 4): on a port-less agent URL, the Host carries the scheme's default
 *   port (`name:443` / `name:80`), the same origin; the verifier strips it and accepts. A signature
 *   refusal is a failure; a non-401 refusal without a JSON-RPC body is a front server's (a gap).
 *   Not applicable at an agent URL with an explicit port, as signatures.target.host-case is at an
 *   IP literal: its Host is that port, there is no default port to add at that URL (`run
 *   --connect-to` certifies a port-less name at any address).
 */
import type { DefectName } from '../../../harness/core/signing/sign/defects.js';
import { errorCode } from '../../../harness/core/signing/codes.js';
import { recordOf, type CheckContext, type StepKind, type StepRecord, type StepVerdict } from '../../../harness/core/engine/kinds/types.js';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { counterpartyServer, coverDigest, signingPrepare, type SignSpec } from '../../../harness/core/signing/counterparty-signing.js';
import { describeProbe, judgeSigned, noteKeys } from './probe.js';
import { resolveTarget } from './target.js';

/** The malformed authorities of digest 1.6 step 3 that an HTTP/1.1 Host header can carry (userinfo cannot travel). */
export const MALFORMED_HOST_DEFECTS = ['host-empty', 'host-broken-bracket', 'host-bare-ipv6'] as const satisfies readonly DefectName[];

const MALFORMED = errorCode('request', 'target_uri_malformed');

/**
 * Did someone in front of the verifier refuse the request (a non-401 HTTP status without a
 * JSON-RPC answer, or a connection closed without any answer)? Such a refusal says nothing about
 * the verifier.
 */
export function frontRefusal(reply: TaskReply): string | undefined {
  const f = reply.failure;
  if (!f) return undefined;
  if (f.kind === 'network') return `the connection ended without an answer (${f.message})`;
  if (f.kind === 'http_status' && f.httpStatus !== 401 && f.jsonRpcError === undefined)
    return `HTTP ${f.httpStatus ?? '?'} without a JSON-RPC answer or Signature challenge`;
  return undefined;
}

/** The port an agent URL names explicitly, or undefined (none, or the scheme's default, which URL parsing drops). */
export function explicitPort(url: string): string | undefined {
  try {
    return new URL(url).port || undefined;
  } catch {
    return undefined;
  }
}

async function probe(ctx: CheckContext, defect: DefectName, purpose: 'accept' | 'reject'): Promise<{ gap: string } | { reply: TaskReply; what: string }> {
  const target = await resolveTarget(ctx, purpose, 'signed');
  if (!target.ok) return { gap: target.message };
  const spec: SignSpec = { key: 'ed25519', defects: [defect], coverDigest: coverDigest('policy', ctx) };
  const what = describeProbe(target.target.task, spec, ctx);
  ctx.notes.push(`${what} [${target.target.how}]`);
  const reply = await ctx.call(target.target.task, target.target.args, {
    prepare: signingPrepare(ctx, spec),
    purpose: `${target.target.task} (signed, ${defect})`,
  });
  return { reply, what };
}

async function malformed(ctx: CheckContext): Promise<{ verdict: StepVerdict; record?: StepRecord }> {
  const judged: string[] = [];
  const unjudged: string[] = [];
  let record: StepRecord | undefined;
  for (const defect of MALFORMED_HOST_DEFECTS) {
    const p = await probe(ctx, defect, 'reject');
    if ('gap' in p) return { verdict: { status: 'gap', message: p.gap, gap: 'an operation to probe the signature verifier with' } };
    record = recordOf(p.reply);
    const front = frontRefusal(p.reply);
    if (front) {
      unjudged.push(`${defect}: ${front}`);
      continue;
    }
    const verdict = judgeSigned(p.reply, { error: MALFORMED }, ctx, p.what);
    if (verdict.status !== 'ok') {
      if (verdict.status === 'failed') await noteKeys(ctx);
      return { verdict, record };
    }
    judged.push(defect);
  }
  if (judged.length === 0) {
    return {
      verdict: {
        status: 'gap',
        message: `no malformed Host reached a signature verifier: ${unjudged.join('; ')}. A server or proxy in front refused them; digest 1.6 step 3 is judged where the verifier sees the Host`,
        gap: 'a front server passing malformed Host headers to the verifier',
      },
      record,
    };
  }
  if (unjudged.length > 0) ctx.notes.push(`refused in front of the verifier, not judged: ${unjudged.join('; ')}`);
  return { verdict: { status: 'ok' }, record };
}

async function defaultPort(ctx: CheckContext): Promise<{ verdict: StepVerdict; record?: StepRecord }> {
  const endpoint = ctx.transport.endpoint;
  const port = explicitPort(endpoint);
  if (port !== undefined) {
    return {
      verdict: {
        status: 'not_applicable',
        message: `the agent URL names port ${port}: a Host with the scheme's default port would be another origin, so digest 1.6 step 4 is probed only at a port-less agent URL (name the agent without a port; run --connect-to reaches it at any address)`,
      },
    };
  }
  const p = await probe(ctx, 'host-default-port', 'accept');
  if ('gap' in p) return { verdict: { status: 'gap', message: p.gap, gap: 'an operation to probe the signature verifier with' } };
  const record = recordOf(p.reply);
  const front = frontRefusal(p.reply);
  if (front) {
    return {
      verdict: {
        status: 'gap',
        message: `${p.what}: ${front}; a server or proxy in front refused the Host with its default port before any verifier`,
        gap: 'a front server passing a Host with the default port to the verifier',
      },
      record,
    };
  }
  const verdict = judgeSigned(p.reply, 'accepted', ctx, p.what);
  if (verdict.status === 'failed') await noteKeys(ctx);
  return { verdict, record };
}

export const signedHost: StepKind = {
  name: 'signed_host',
  /** Probe targets are called in the buyer's account, and a sandbox create buys the setup suite's product (target.ts). */
  reads: ['buyer', 'accounts', 'product'],
  fields: {
    /** `malformed`: digest 1.6 step 3; `default-port`: step 4. */
    form: { enum: ['malformed', 'default-port'] },
  },
  required: ['form'],
  async run(step, ctx) {
    await counterpartyServer(ctx);
    return step.form === 'malformed' ? malformed(ctx) : defaultPort(ctx);
  },
};
