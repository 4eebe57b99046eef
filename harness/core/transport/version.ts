/** Name and version the harness announces (MCP clientInfo, User-Agent). The version has one source: harness/core/version.ts. */
export { HARNESS_VERSION } from '../version.js';

export const HARNESS_NAME = 'proto-comply';
