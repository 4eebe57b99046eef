/**
 * The compliance suites as vitest tests, for `npx vitest run --config vitest.compliance.config.ts`.
 * The agent and the selection come from the environment (PROTO_COMPLY_AGENT, ...; see options.ts).
 */
import { defineComplianceSuites } from './index.js';

defineComplianceSuites();
