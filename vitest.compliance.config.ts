/**
 * A ready vitest project that runs the compliance suites against the agent named by
 * PROTO_COMPLY_AGENT (see harness/vitest/options.ts for every variable) and writes Allure
 * results with allure-vitest:
 *
 *   PROTO_COMPLY_AGENT=https://agent.example/mcp PROTO_COMPLY_AUTH_TOKEN=... \
 *     npx vitest run --config vitest.compliance.config.ts
 *
 * Allure results go to $PROTO_COMPLY_ALLURE_DIR (default ./allure-results); set
 * PROTO_COMPLY_OUT=DIR to also get agent-compliance.json, junit.xml and report.html.
 * It is not part of `npm test` (the default config only includes *.test.ts files).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['harness/vitest/agent.compliance.ts'],
    reporters: ['default', ['allure-vitest/reporter', { resultsDir: process.env.PROTO_COMPLY_ALLURE_DIR || 'allure-results' }]],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    // The certification runs once in a beforeAll hook; harness/vitest sets its own hook timeout.
    hookTimeout: 20 * 60_000,
  },
});
