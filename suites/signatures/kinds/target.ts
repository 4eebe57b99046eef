/**
 * Which operation a signed probe calls (digest 1.15, 2.6). Probes go to operations the agent
 * lists in `request_signing.supported_for` / `required_for` (never `warn_for`: shadow mode does
 * not reject) and also lists as tasks.
 *
 * - Probes expected to be REJECTED use a listed read the harness knows valid arguments for, or
 *   else a listed operation with inert arguments (`{}`): if the agent wrongly accepts the
 *   signature, the arguments fail validation and nothing is created.
 * - Probes expected to be ACCEPTED need a successful task: a listed read, or else
 *   `create_media_buy` (after `get_products`), but only on a sandbox seller.
 * - The replay probe (vector 016) really executes its first copy: `create_media_buy` on a sandbox
 *   seller, otherwise a listed read.
 * A seller is a sandbox when it declares `compliance_testing` or flags its replies `sandbox: true`.
 */
import type { CheckContext } from '../../../harness/core/engine/kinds/types.js';
import { signingCapability } from '../../../harness/core/signing/counterparty-signing.js';

export type TargetPurpose = 'reject' | 'accept' | 'replay';
/** `signed`: supported_for + required_for; `required`: required_for only (pre-check P1). */
export type OperationScope = 'signed' | 'required';

export interface SigningTarget {
  task: string;
  args: Record<string, unknown>;
  /** Why this target: shown in notes. */
  how: string;
}

export type TargetResult = { ok: true; target: SigningTarget } | { ok: false; message: string };

/**
 * Reads the harness can call with arguments that succeed on any conforming seller, in the
 * buyer's account (the setup suite's facts; expanding them throws MissingFactError when setup
 * did not pass, which blocks the check by it).
 */
const READ_ARGS: Record<string, (ctx: CheckContext) => Record<string, unknown>> = {
  get_products: (ctx) =>
    ctx.expand({ buying_mode: 'brief', brief: '{{facts.buyer.brief}}', brand: '{{facts.buyer.brand}}', account: '{{account:signed}}' }) as Record<
      string,
      unknown
    >,
  list_creative_formats: () => ({}),
  list_accounts: () => ({}),
};

function readArgs(task: string, ctx: CheckContext): Record<string, unknown> | undefined {
  if (task === ctx.ids.capabilitiesTask) return {};
  return READ_ARGS[task]?.(ctx);
}

function knowsReadArgs(task: string, ctx: CheckContext): boolean {
  return task === ctx.ids.capabilitiesTask || task in READ_ARGS;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function isSandbox(ctx: CheckContext): boolean {
  const caps = ctx.profile.capabilities;
  return caps?.sandbox === true || (caps?.compliance_testing !== undefined && caps?.compliance_testing !== null);
}

/** Operations eligible for probing, in declaration order, listed by the agent, warn_for excluded. */
export function eligibleOperations(ctx: CheckContext, scope: OperationScope): string[] {
  const cap = signingCapability(ctx);
  const required = stringList(cap.required_for);
  const lists = scope === 'required' ? required : [...stringList(cap.supported_for), ...required];
  const warn = new Set(stringList(cap.warn_for));
  return [...new Set(lists)].filter((op) => !warn.has(op) && ctx.profile.tasks.includes(op));
}

/** A real create_media_buy of the product the setup suite chose (its facts), in the check's own account. */
function createMediaBuyTarget(ctx: CheckContext): TargetResult {
  const args = ctx.expand({
    idempotency_key: '{{uuid:signed_create}}',
    account: '{{account:signed}}',
    brand: '{{facts.buyer.brand}}',
    start_time: 'asap',
    end_time: '{{date:+30d}}',
    packages: [{ product_id: '{{facts.product.product_id}}', pricing_option_id: '{{facts.product.pricing_option_id}}', budget: '{{budget:signed}}' }],
  }) as Record<string, unknown>;
  return { ok: true, target: { task: 'create_media_buy', args, how: 'a real create on a sandbox seller' } };
}

/**
 * A probe target among the operations the agent lists in `request_signing.warn_for` (shadow mode,
 * digest 1.10) and as tasks: a read the harness knows valid arguments for; for a probe expected
 * to be refused, else the first listed one with inert arguments.
 */
export function resolveWarnTarget(ctx: CheckContext, purpose: 'accept' | 'reject'): TargetResult {
  const ops = [...new Set(stringList(signingCapability(ctx).warn_for))].filter((op) => ctx.profile.tasks.includes(op));
  if (ops.length === 0)
    return { ok: false, message: 'the agent lists no task named in request_signing.warn_for, so there is no shadow-mode operation to probe' };
  const read = ops.find((op) => knowsReadArgs(op, ctx));
  if (read) return { ok: true, target: { task: read, args: readArgs(read, ctx)!, how: 'a read listed in request_signing.warn_for' } };
  if (purpose === 'reject')
    return { ok: true, target: { task: ops[0]!, args: {}, how: 'inert arguments: nothing is created if the call is wrongly let through' } };
  return {
    ok: false,
    message: `no operation in request_signing.warn_for (${ops.join(', ')}) that the harness can call successfully without side effects (known reads: ${[ctx.ids.capabilitiesTask, ...Object.keys(READ_ARGS)].join(', ')})`,
  };
}

export async function resolveTarget(ctx: CheckContext, purpose: TargetPurpose, scope: OperationScope = 'signed'): Promise<TargetResult> {
  const ops = eligibleOperations(ctx, scope);
  const listName = scope === 'required' ? 'required_for' : 'supported_for / required_for';
  if (ops.length === 0) {
    return { ok: false, message: `the agent lists no task named in request_signing.${listName} (warn_for excluded), so there is no operation to probe` };
  }
  const canCreate = isSandbox(ctx) && ops.includes('create_media_buy') && ctx.profile.tasks.includes('get_products');
  if (purpose === 'replay' && canCreate) return createMediaBuyTarget(ctx);
  const read = ops.find((op) => knowsReadArgs(op, ctx));
  if (read) return { ok: true, target: { task: read, args: readArgs(read, ctx)!, how: `a read listed in request_signing.${listName}` } };
  if (purpose === 'reject')
    return { ok: true, target: { task: ops[0]!, args: {}, how: 'inert arguments: nothing is created if the signature is wrongly accepted' } };
  if (canCreate) return createMediaBuyTarget(ctx);
  return {
    ok: false,
    message:
      `no operation in request_signing.${listName} that the harness can call successfully without side effects ` +
      `(known reads: ${[ctx.ids.capabilitiesTask, ...Object.keys(READ_ARGS)].join(', ')}), and the seller is not a sandbox ` +
      '(no compliance_testing capability, no sandbox flag), so no real mutation is attempted',
  };
}
