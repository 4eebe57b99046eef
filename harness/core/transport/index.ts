/** Public surface of the transport layer. Suites and the engine import from here only. */
export * from './types.js';
export { TransportConfigError, failure, describeError } from './errors.js';
export { redact, redactionMarker, redactAuthorization, redactCookie, redactHmacSignature, MIN_SECRET_LENGTH } from './redact.js';
export {
  createRecorder,
  DEFAULT_STORED_BODY_BYTES,
  DEFAULT_MAX_STORED_EXCHANGES,
  type Recorder,
  type RecorderOptions,
} from './capture.js';
export {
  HttpClient,
  normalizeHeaders,
  originOf,
  validateHttpUrl,
  type HttpSettings,
  type HttpRequestSpec,
  type HttpResult,
  type HttpResponse,
  type HttpFailure,
  type StreamConsumerFactory,
} from './http-client.js';
export { postJsonRpc, type RpcCall, type RpcOutcome } from './rpc.js';
export { createSsePicker, DEFAULT_MAX_SSE_EVENTS, type SsePicker } from './sse.js';
export { isObject, tryParseJson, type JsonRpcErrorObject, type JsonRpcResponse } from './jsonrpc.js';
export { findError, isTaskStatus, type FoundError } from './task-error.js';
export { decodeToolResult, type DecodedToolResult } from './mcp-payload.js';
export { decodeA2aResult, mapA2aState, type DecodedA2a } from './a2a-payload.js';
export { McpTransport, MCP_PROTOCOL_VERSION, MAX_TOOL_PAGES, type McpOptions } from './mcp.js';
export {
  A2aTransport,
  A2A_PROTOCOL_VERSION,
  POLL_INITIAL_DELAY_MS,
  POLL_MAX_DELAY_MS,
  type A2aEndpoints,
  type A2aOptions,
  type CardOriginPolicy,
} from './a2a.js';
export { resolveEndpoints, namedUrls, AGENT_CARD_PATH, type ResolvedEndpoints, type EndpointOverrides } from './endpoints.js';
export { createTransport, type FactoryOptions } from './factory.js';
export { HARNESS_NAME, HARNESS_VERSION } from './version.js';
