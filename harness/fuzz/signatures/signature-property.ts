/**
 * fuzz.signatures.mutation-refused: a valid signed request with one random defect (covered
 * components, signature parameters, content-digest, key id, time window) must be refused with
 * HTTP 401 and the `Signature error` code the verifier checklist names for it (digest 1.9, 1.14).
 * Applies to agents declaring `request_signing.supported: true`; a valid signed control call
 * must be accepted first (else the agent does not trust the test counterparty: a gap).
 */
import fc from 'fast-check';
import { startCounterpartyServer } from '../../core/signing/keys/counterparty-server.js';
import { parseWwwAuthenticate } from '../../core/signing/parse/www-authenticate.js';
import { protocolIds, type ProtocolIds } from '../../core/token.js';
import type { OutgoingRequest, TaskReply } from '../../core/transport/types.js';
import type { FuzzContext, FuzzProperty, FuzzRunOptions, PropertyOutcome } from '../property.js';
import { type DigestPolicy, expectedCodes, type Probe, probeArb } from './mutations.js';
import { mutatedSigning } from './sign-mutated.js';
import { clip } from '../judge.js';

export const SIGNATURE_CHECK_ID = 'fuzz.signatures.mutation-refused';

interface Target {
  task: string;
  args: Record<string, unknown>;
}

const asObject = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The operation to probe: one the agent signs (supported_for / required_for, never warn_for) and lists, preferring reads. */
function pickTarget(ctx: FuzzContext, ids: ProtocolIds, cap: Record<string, unknown>, listed: readonly string[]): Target | undefined {
  const warn = new Set(strings(cap.warn_for));
  const ops = [...new Set([...strings(cap.supported_for), ...strings(cap.required_for)])].filter((op) => !warn.has(op) && listed.includes(op));
  if (ops.includes(ids.capabilitiesTask)) return { task: ids.capabilitiesTask, args: {} };
  if (ops.includes('get_products')) {
    const brand = asObject(ctx.account.brand);
    return { task: 'get_products', args: { buying_mode: 'brief', brief: 'fuzz signature probe', account: ctx.account, ...(brand.domain ? { brand } : {}) } };
  }
  // Inert arguments: if a mutation is wrongly accepted, validation fails and nothing is created.
  return ops[0] ? { task: ops[0], args: {} } : undefined;
}

function describe(reply: TaskReply): string {
  const f = reply.failure;
  if (f)
    return `${f.kind}${f.httpStatus ? ` ${f.httpStatus}` : ''}${f.wwwAuthenticate ? ` WWW-Authenticate: ${f.wwwAuthenticate}` : ''}: ${f.message}`.slice(
      0,
      240,
    );
  return reply.error ? `accepted (task error ${reply.error.code})` : 'accepted (task succeeded)';
}

/** The `Signature error` code of a 401, or undefined when the request was not refused by the verifier. */
function refusalCode(reply: TaskReply): string | undefined {
  return reply.failure?.kind === 'http_status' && reply.failure.httpStatus === 401
    ? (parseWwwAuthenticate(reply.failure.wwwAuthenticate) ?? '(none)')
    : undefined;
}

export const signatureMutations: FuzzProperty = {
  id: SIGNATURE_CHECK_ID,
  title: 'a signed request with one defect is refused with the checklist code for that defect',
  level: 'MUST',
  spec: { doc: 'digest', section: '1.9', rule: 'each checklist step refuses its defect with its error code, never accepting the request (digest 1.9, 1.14)' },
  async run(ctx: FuzzContext, opts: FuzzRunOptions): Promise<PropertyOutcome> {
    const base = { check_id: SIGNATURE_CHECK_ID, seed: opts.seed };
    const gap = (message: string): PropertyOutcome => ({ ...base, outcome: 'gap', gap: 'a task to sign', runs: 0, message });
    const ids = protocolIds(ctx.token);
    const caps = await ctx.transport.call(ids.capabilitiesTask, {}, { signal: ctx.signal });
    const cap = asObject(asObject(caps.payload).request_signing);
    // As the signatures suite: an agent that does not claim request signing is not judged on it.
    if (!caps.ok || cap.supported !== true)
      return {
        ...base,
        outcome: 'not_applicable',
        runs: 0,
        message: `the agent does not verify request signatures: ${ids.capabilitiesTask} declares no request_signing.supported: true${caps.ok ? '' : ` (${describe(caps)})`}`,
      };
    const policy: DigestPolicy = cap.covers_content_digest === 'required' || cap.covers_content_digest === 'forbidden' ? cap.covers_content_digest : 'either';
    const listed = (await ctx.transport.listTasks(ctx.signal)).names;
    const target = pickTarget(ctx, ids, cap, listed);
    if (!target) return gap('the agent lists no task named in request_signing.supported_for / required_for (warn_for excluded) to probe');
    // Agents resolve the counterparty's keys through its brand.json and JWKS (digest 1.11).
    const server = await startCounterpartyServer({ ids });
    try {
      const call = (p?: Probe, capture?: (req: OutgoingRequest) => void) =>
        ctx.transport.call(target.task, target.args, {
          signal: ctx.signal,
          prepare: (req) => {
            const out = mutatedSigning(ids, policy, p)(req);
            capture?.(out);
            return out;
          },
          purpose: `${target.task} (fuzz signature${p ? ` ${p.mutation.kind}` : ''})`,
        });
      /** Step 12: the identical copy of an accepted signed request (as suites/signatures signed_replay sends it). */
      const replay = async (p: Probe): Promise<TaskReply> => {
        let copy: OutgoingRequest | undefined;
        const first = await call(p, (r) => (copy = r));
        if (first.failure || !copy) throw new Error(`replayed-nonce: the first copy of a valid signed request was not accepted: ${describe(first)}`);
        const sent = copy;
        return ctx.transport.call(target.task, target.args, {
          signal: ctx.signal,
          prepare: () => ({ method: sent.method, url: sent.url, headers: { ...sent.headers }, body: sent.body }),
          purpose: `${target.task} (fuzz signature replayed-nonce, identical copy)`,
        });
      };
      const control = await call();
      if (control.failure)
        return gap(
          `the agent refuses a valid signature by the test counterparty on ${target.task} (${describe(control)}); it must trust the keys at ${server.jwksUrl} as \`proto-comply keys --agent-config\` describes`,
        );
      let runs = 0;
      const property = fc.asyncProperty(probeArb(policy), async (p) => {
        if (ctx.signal.aborted) return;
        runs += 1;
        ctx.onCase?.();
        const m = p.mutation;
        const codes = expectedCodes(m, policy);
        const reply = m.kind === 'replayed-nonce' ? await replay(p) : await call(p);
        if (reply.failure?.kind === 'aborted' || ctx.signal.aborted) return; // the budget ran out: not a counterexample
        const code = refusalCode(reply);
        if (code === undefined) {
          const processed =
            m.kind === 'replayed-nonce' && reply.failure?.kind === 'protocol' && (reply.httpStatus ?? 0) < 300
              ? " (the agent processed the copy: it answered the first copy's JSON-RPC id)"
              : '';
          throw new Error(`${m.kind}: expected 401 Signature error="${codes.join('" or "')}", got ${describe(reply)}${processed}`);
        }
        if (!codes.includes(code)) throw new Error(`${m.kind}: refused with ${code}, the checklist names ${codes.join(' or ')}`);
      });
      const details = await fc.check(property, { seed: opts.seed, numRuns: opts.numRuns, ...(opts.path ? { path: opts.path } : {}) });
      if (!details.failed) {
        const stopped = ctx.signal.aborted ? { message: `the run budget ran out after ${runs} of ${opts.numRuns} mutations` } : {};
        return { ...base, outcome: 'pass', runs: ctx.signal.aborted ? runs : details.numRuns, ...stopped };
      }
      const probe = details.counterexample?.[0] as Probe;
      const err = details.errorInstance;
      return {
        ...base,
        outcome: 'violated',
        runs: details.numRuns,
        ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
        counterexample: { task: target.task, ...probe, expected: expectedCodes(probe.mutation, policy) },
        message: clip((err instanceof Error ? err.message : String(err)).split('\n')[0]!, 400),
      };
    } finally {
      await server.close();
    }
  },
};
