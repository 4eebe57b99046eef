/**
 * A one-storyboard bundle grading an agent's OAuth discovery graph (written for the harness, in
 * the manner of the 3.2 oauth-setup storyboard: gated on `oauth.supported: true`, the capability
 * declaration, then one `protected_resource_metadata` step carrying `oauth_metadata_graph`), and
 * its run through the engine against the mock seller on loopback, with or without the seller's
 * OAuth graph (oauth-graph-run.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { certify } from '../../../certify/index.js';
import { startMockSeller } from '../../../../mocks/seller/index.js';
import type { MockSellerOptions } from '../../../../mocks/seller/options.js';
import type { RunResult } from '../../engine/result.js';
import { compileStoryboards } from '../compile.js';
import { loadStoryboardBundle } from '../load.js';

export const OAUTH_GRAPH_BUNDLE: Record<string, string> = {
  'index.json': JSON.stringify({ adcp_version: '3.0.6', universal: ['oauth_graph'], protocols: [], specialisms: [] }),
  'universal/oauth_graph.yaml': `
id: oauth_graph
title: The agent's OAuth discovery graph holds
track: security
requires_capability:
  path: oauth.supported
  equals: true
required_tools: [get_adcp_capabilities]
phases:
  - id: declared
    steps:
      - id: capabilities
        task: get_adcp_capabilities
        sample_request: { context: { correlation_id: "oauth_graph--capabilities" } }
        validations:
          - { check: field_value, path: oauth.supported, value: true, description: the agent opts into the OAuth grade }
  - id: graph
    steps:
      - id: metadata
        task: protected_resource_metadata
        validations:
          - { check: http_status, value: 200, description: the protected-resource metadata is served }
          - { check: field_present, path: authorization_servers, description: it names its authorization servers }
          - { check: oauth_metadata_graph, description: every server and endpoint it leads to holds }
`,
};

/** Runs the bundle against a fresh mock seller (media-buy) with these options, over MCP and A2A. */
export async function runOAuthGraphBundle(seller: Pick<MockSellerOptions, 'oauth'>): Promise<RunResult> {
  const root = mkdtempSync(join(tmpdir(), 'oauth-graph-'));
  try {
    for (const [p, text] of Object.entries(OAUTH_GRAPH_BUNDLE)) {
      mkdirSync(dirname(join(root, p)), { recursive: true });
      writeFileSync(join(root, p), text);
    }
    const catalog = compileStoryboards(loadStoryboardBundle(root));
    const mock = await startMockSeller({ token: 'adcp', authToken: 'oauth-graph-bearer', kinds: ['media-buy'], ...seller });
    try {
      return await certify({ token: 'adcp', catalog, suites: catalog.suites, agentUrl: mock.baseUrl, authToken: 'oauth-graph-bearer', seed: '20261129' });
    } finally {
      await mock.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
