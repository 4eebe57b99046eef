/**
 * `signed_namespace` (digest 1.15 namespace rules): operation lists (`required_for`) match only a
 * `tools/call` name (or A2A skill), method lists (`protocol_methods_required_for`) only the
 * JSON-RPC method. Unsigned and without credentials, the probe crosses them:
 * - `method-as-operation`: a task call whose name is the first listed JSON-RPC method;
 * - `operation-as-method`: a JSON-RPC call whose method is the first required_for operation.
 * Neither is in the other list, so neither may be refused with `request_signature_required`.
 * A control call first (an unlisted task name, or an unlisted JSON-RPC method, the same way):
 * an agent that answers it with that code too uses the code for any unauthenticated call, and
 * the probe cannot tell a namespace mix-up from it (a coverage gap).
 */
import { recordOf, type CheckContext, type StepKind } from '../../../harness/core/engine/kinds/types.js';
import type { TaskReply } from '../../../harness/core/transport/types.js';
import { signingCapability } from '../../../harness/core/signing/counterparty-signing.js';
import { unreachable } from '../../../harness/core/engine/kinds/steps/util.js';
import { judgeSigned, rejectionCode } from './probe.js';
import { asProtocolMethod, requiredMethod } from './signed-call.js';

const REQUIRED_CODE = 'request_signature_required';
const CONTROL_OPERATION = 'proto_comply_unlisted_operation';
const CONTROL_METHOD = 'proto_comply/unlisted_method';

function requiredOperation(ctx: CheckContext): string | undefined {
  const list = signingCapability(ctx).required_for;
  const first = Array.isArray(list) ? list[0] : undefined;
  return typeof first === 'string' && first.length > 0 && first.length <= 128 ? first : undefined;
}

type Direction = 'method-as-operation' | 'operation-as-method';

/** One unsigned call without credentials: the task `name`, or `method` as the JSON-RPC method (body rewritten). */
function send(ctx: CheckContext, direction: Direction, name: string, purpose: string): Promise<TaskReply> {
  const common = { auth: { mode: 'none' as const }, purpose };
  if (direction === 'method-as-operation') return ctx.call(name, {}, common);
  return ctx.call(ctx.ids.capabilitiesTask, {}, { ...common, prepare: asProtocolMethod(name, ctx) });
}

export const signedNamespace: StepKind = {
  name: 'signed_namespace',
  reads: [],
  fields: { direction: { enum: ['method-as-operation', 'operation-as-method'] } },
  required: ['direction'],
  async run(step, ctx) {
    const direction = step.direction as Direction;
    const name = direction === 'method-as-operation' ? requiredMethod(ctx) : requiredOperation(ctx);
    const list = direction === 'method-as-operation' ? 'protocol_methods_required_for' : 'required_for';
    if (name === undefined)
      return { verdict: { status: 'gap', message: `the agent lists nothing usable in request_signing.${list}`, gap: `an entry of ${list}` } };
    const controlName = direction === 'method-as-operation' ? CONTROL_OPERATION : CONTROL_METHOD;
    const how = direction === 'method-as-operation' ? 'a task call named' : 'a JSON-RPC call of method';
    const control = await send(ctx, direction, controlName, `${controlName} (unsigned control)`);
    const down = unreachable(control);
    if (down) return { verdict: down, record: recordOf(control) };
    if (rejectionCode(control) === REQUIRED_CODE) {
      const message = `the agent answers an unsigned, unauthenticated ${how} ${controlName} (listed nowhere) with ${REQUIRED_CODE} too, so a namespace mix-up cannot be told apart`;
      return {
        verdict: { status: 'gap', message, gap: 'an answer other than request_signature_required to an unlisted unauthenticated call' },
        record: recordOf(control),
      };
    }
    ctx.notes.push(
      `control: ${how} ${controlName} unsigned was not refused with ${REQUIRED_CODE}; probe: ${how} ${name} (in ${list}) unsigned, no credentials`,
    );
    const reply = await send(ctx, direction, name, `${name} (unsigned, ${direction})`);
    const verdict = judgeSigned(reply, { not_error: REQUIRED_CODE }, ctx, `${how} ${name}, unsigned`);
    return { verdict, record: recordOf(reply) };
  },
};
