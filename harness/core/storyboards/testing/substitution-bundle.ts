/**
 * A storyboard bundle of our own for `expect_substitution_safe`, written to a temporary directory
 * and run through the real engine against the loopback substitution agent (substitution-agent.ts):
 * its own observer kit and vector fixture (values of our own, not the protocol's), a catalog with
 * those values, a build with a preview, and observations inline and fetched; beside them, previews
 * that cannot be used (a redirect, JSON), a preview member the agent lacks, a vector the fixture
 * lacks, and an observation whose input an earlier step failed to capture.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { certify } from '../../../certify/index.js';
import type { RunResult } from '../../engine/result.js';
import { compileStoryboards } from '../compile.js';
import { loadStoryboardBundle } from '../load.js';
import { startSubstitutionAgent, type SubstitutionMode } from './substitution-agent.js';

/** Our vectors: name → raw value and its safe form. */
export const VECTORS: Record<string, { value: string; safe: string }> = {
  'query-breakout': { value: 'A1&admin=1', safe: 'A1%26admin%3D1' },
  'literal-token': { value: 'promo-{USER_ID}-x', safe: 'promo-%7BUSER_ID%7D-x' },
  'two-byte': { value: 'Sm\u00f6rg\u00e5s', safe: 'Sm%C3%B6rg%C3%A5s' },
  decomposed: { value: 'Smo\u0308rgas', safe: 'Sm%C3%B6rgas' },
  'quote-paren': { value: "it's (new)", safe: 'it%27s%20%28new%29' },
  'line-break': { value: 'a\r\nb', safe: 'a%0D%0Ab' },
};
/** An inline (custom) binding's raw value: never shown in a report, only its digest. */
export const CUSTOM_VALUE = 'private;value';

const fixture = JSON.stringify({
  vectors: Object.entries(VECTORS).map(([name, v]) => ({
    name,
    macro: '{PID}',
    value: v.value,
    template: 'https://v.example/t?p={PID}',
    expected: `https://v.example/t?p=${v.safe}`,
  })),
});

const bindings = [
  ...Object.keys(VECTORS).map((name, i) => `          - { macro: "{SKU}", catalog_item_id: "i${i}", vector_name: "${name}" }`),
  `          - { macro: "{SKU}", catalog_item_id: "custom", raw_value: "${CUSTOM_VALUE}" }`,
].join('\n');

const items = [...Object.values(VECTORS).map((v) => v.value), CUSTOM_VALUE]
  .map((sku, i) => `              - { item_id: "i${i}", sku: ${JSON.stringify(sku)}, title: "item ${i}" }`)
  .join('\n');

const setup = (prefix: string) => `
      - id: sync
        task: sync_catalogs
        stateful: true
        sample_request:
          idempotency_key: "$generate:uuid_v4#${prefix}_sync"
          account: { brand: { domain: "acme.example" }, operator: "op.example" }
          catalogs:
            - catalog_id: "${prefix}_probe"
              type: product
              items:
${items}
      - id: build
        task: build_creative
        stateful: true
        sample_request:
          idempotency_key: "$generate:uuid_v4#${prefix}_build"
          message: "Use {SKU} in the trackers"
          target_format_id: { agent_url: "https://agent.example", id: "display_300x250" }
          include_preview: true
        validations:
          - { check: field_present, path: "preview.previews[0].renders[0].preview_html", description: a preview }`;

export const SUBSTITUTION_BUNDLE: Record<string, string> = {
  'index.json': JSON.stringify({ adcp_version: '3.0.6', universal: ['macros', 'edges', 'uncaptured'], protocols: [], specialisms: [] }),
  'test-kits/observer.yaml': `
id: substitution_observer_runner
applies_to: { specialisms: [sales_catalog_driven], universals: [] }
attacker_value_catalog:
  source_fixture: static/test-vectors/macro-vectors.json
observation_modes:
  - mode: url_fetch
    runner_config:
      fetch: { max_body_bytes: 65536, max_connect_seconds: 2, timeout_seconds: 5 }
`,
  'test-vectors/macro-vectors.json': fixture,
  'universal/macros.yaml': `
id: macros
title: Catalog macros substituted safely
phases:
  - id: substitution
    steps:${setup('macros')}
      - id: inline
        task: expect_substitution_safe
        requires_contract: substitution_observer_runner
        source: html_inline
        source_path: "/preview/previews/0/renders/0/preview_html"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings:
${bindings}
      - id: fetched
        task: expect_substitution_safe
        requires_contract: substitution_observer_runner
        source: url_fetch
        source_path: "/preview/previews/0/renders/1/preview_url"
        macro_template: "https://track.example/click?sku={SKU}&v=2"
        catalog_bindings:
${bindings}
`,
  'universal/edges.yaml': `
id: edges
title: Previews the step cannot use
phases:
  - id: p
    steps:${setup('edges')}
      - id: redirected
        task: expect_substitution_safe
        source: url_fetch
        source_path: "/preview/previews/0/renders/2/preview_url"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
      - id: not_html
        task: expect_substitution_safe
        source: url_fetch
        source_path: "/preview/previews/0/renders/3/preview_url"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
      - id: metadata_host
        task: expect_substitution_safe
        source: url_fetch
        source_path: "/preview/previews/0/renders/4/preview_url"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
      - id: no_member
        task: expect_substitution_safe
        source_path: "/creative_manifest/preview_html"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
      - id: unknown_vector
        task: expect_substitution_safe
        source_path: "/preview/previews/0/renders/0/preview_html"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "no-such-vector" }]
      - id: no_position
        task: expect_substitution_safe
        source_path: "/preview/previews/0/renders/0/preview_html"
        macro_template: "https://track.example/imp?sku=fixed"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
      - id: other_contract
        task: expect_substitution_safe
        requires_contract: some_other_runner
        source_path: "/preview/previews/0/renders/0/preview_html"
        macro_template: "https://track.example/imp?sku={SKU}"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
`,
  'universal/uncaptured.yaml': `
id: uncaptured
title: An observation whose template an earlier step failed to capture
phases:
  - id: p
    steps:
      - id: build
        task: build_creative
        sample_request:
          idempotency_key: "$generate:uuid_v4#uncaptured_build"
          message: "x"
          target_format_id: { agent_url: "https://agent.example", id: "display_300x250" }
          include_preview: true
        context_outputs:
          - { name: tracker_template, path: "creative_manifest.tracker_template" }
      - id: observe
        task: expect_substitution_safe
        source_path: "/preview/previews/0/renders/0/preview_html"
        macro_template: "$context.tracker_template"
        catalog_bindings: [{ macro: "{SKU}", vector_name: "two-byte" }]
`,
};

/**
 * Writes the bundle (`omit`: files left out), runs it over MCP against a fresh loopback agent
 * substituting as `mode` says, and removes the bundle.
 */
export async function runSubstitutionBundle(mode: SubstitutionMode, omit: string[] = []): Promise<RunResult> {
  const root = mkdtempSync(join(tmpdir(), 'substitution-bundle-'));
  try {
    for (const [p, text] of Object.entries(SUBSTITUTION_BUNDLE)) {
      if (omit.includes(p)) continue;
      mkdirSync(dirname(join(root, p)), { recursive: true });
      writeFileSync(join(root, p), text);
    }
    const catalog = compileStoryboards(loadStoryboardBundle(root));
    const agent = await startSubstitutionAgent(mode);
    try {
      return await certify({
        token: 'adcp',
        catalog,
        suites: catalog.suites,
        agentUrl: agent.url,
        transports: ['mcp'],
        transportExplicit: true,
        seed: '20261129',
      });
    } finally {
      await agent.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
