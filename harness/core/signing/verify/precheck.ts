/**
 * Pre-checks for requests without any signature header (digest 1.9 P1, 1.15): is a signature
 * required for this operation or JSON-RPC method, and does the body register a webhook with
 * an `authentication` block (which always needs a signature on a signing-capable seller)?
 */

/** The `request_signing` capability block (digest 1.15); only `supported` is required. */
export interface RequestSigningCapability {
  supported: boolean;
  covers_content_digest?: DigestPolicy;
  required_for?: string[];
  warn_for?: string[];
  supported_for?: string[];
  protocol_methods_required_for?: string[];
  protocol_methods_warn_for?: string[];
  protocol_methods_supported_for?: string[];
}

export type DigestPolicy = 'required' | 'forbidden' | 'either';

/** Where a request sits in the capability lists (trusted routing, never the body's word). */
export interface OperationRef {
  /** Operation (task) name: `tools/call` `params.name`, or the route's operation. */
  operation?: string;
  /** JSON-RPC method (`tasks/cancel`); operation lists apply only to `tools/call`. */
  jsonRpcMethod?: string;
}

export type SigningMode = 'required_for' | 'warn_for' | 'supported_for' | 'none';

/** Precedence: required_for > warn_for > supported_for (digest 1.10). */
export function signingMode(cap: RequestSigningCapability | undefined, ref: OperationRef): SigningMode {
  if (!cap?.supported) return 'none';
  const opApplies = ref.operation !== undefined && (ref.jsonRpcMethod === undefined || ref.jsonRpcMethod === 'tools/call');
  const inOp = (list?: string[]) => opApplies && !!list?.includes(ref.operation!);
  const inMethod = (list?: string[]) => ref.jsonRpcMethod !== undefined && !!list?.includes(ref.jsonRpcMethod);
  if (inOp(cap.required_for) || inMethod(cap.protocol_methods_required_for)) return 'required_for';
  if (inOp(cap.warn_for) || inMethod(cap.protocol_methods_warn_for)) return 'warn_for';
  if (inOp(cap.supported_for) || inMethod(cap.protocol_methods_supported_for)) return 'supported_for';
  return 'none';
}

/** Effective `covers_content_digest`: 3.2 is always `required`; 3.0/3.1 default `either`. */
export function effectiveDigestPolicy(cap: RequestSigningCapability | undefined, profileVersion: string): DigestPolicy {
  if (profileVersion.startsWith('3.2') || /^[4-9]/.test(profileVersion)) return 'required';
  return cap?.covers_content_digest ?? 'either';
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasAuth(cfg: unknown): boolean {
  return isObj(cfg) && cfg.authentication !== undefined && cfg.authentication !== null;
}

function argsHaveAuthBlock(args: Record<string, unknown>): boolean {
  if (hasAuth(args.push_notification_config)) return true;
  const configsHaveAuth = (v: unknown) => Array.isArray(v) && v.some(hasAuth);
  if (Array.isArray(args.accounts) && args.accounts.some((a) => isObj(a) && configsHaveAuth(a.notification_configs))) return true;
  if (configsHaveAuth(args.notification_configs)) return true;
  const sync = args.sync_agent_notification_configs;
  return isObj(sync) && configsHaveAuth(sync.notification_configs);
}

/**
 * True when a body registers a webhook with an `authentication` block: in the task arguments
 * directly or inside a JSON-RPC `tools/call` envelope's `params.arguments`.
 */
export function bodyRegistersLegacyWebhookAuth(body: unknown): boolean {
  if (!isObj(body)) return false;
  if (argsHaveAuthBlock(body)) return true;
  const params = body.params;
  return isObj(params) && isObj(params.arguments) && argsHaveAuthBlock(params.arguments);
}

/** Operation and JSON-RPC method of a body: `tools/call` → params.name; otherwise the method only. */
export function operationFromJsonRpc(body: unknown): OperationRef | undefined {
  if (!isObj(body) || typeof body.method !== 'string') return undefined;
  if (body.method === 'tools/call' && isObj(body.params) && typeof body.params.name === 'string') {
    return { jsonRpcMethod: 'tools/call', operation: body.params.name };
  }
  return { jsonRpcMethod: body.method };
}
