/** The response schemas a run judged with (`target.response_schemas`): in the agent-compliance JSON, checked by its schema, and in the target line of the human-facing reports. */
import { describe, expect, it } from 'vitest';
import type { ResponseSchemasInfo, RunResult } from '../harness/core/engine/result.js';
import { renderSummary } from './console.js';
import { renderHtml } from './html.js';
import { renderAgentComplianceJson, validateAgentCompliance } from './json.js';
import { buildRunFixture } from './testing/run-result.js';

const set = { dir: '/sdk/dist/lib/schemas-data/3.0', version: '3.0.6', line: '3.0', chosen: 'beside the bundle' } as const;
const withSchemas = (response_schemas: ResponseSchemasInfo): RunResult => {
  const run = buildRunFixture();
  return { ...run, target: { ...run.target, response_schemas } };
};

describe('the response schemas a run judged with', () => {
  it('are recorded in the agent-compliance JSON, which its schema accepts', () => {
    const run = withSchemas({ judged_with: 'released', released_set: set, note: 'the released 3.0.6 schemas at /sdk/dist/lib/schemas-data/3.0' });
    const doc = JSON.parse(renderAgentComplianceJson(run));
    expect(doc.target.response_schemas).toEqual(run.target.response_schemas);
    expect(validateAgentCompliance(doc)).toEqual({ valid: true, errors: [] });
    expect(validateAgentCompliance({ ...doc, target: { ...doc.target, response_schemas: { judged_with: 'bundle', note: 'x' } } }).valid).toBe(false);
  });

  it('are named in the target line: the released set, or the harness’s own and why', () => {
    const released = withSchemas({ judged_with: 'released', released_set: set, note: 'n' });
    expect(renderSummary(released)).toMatch(/judged against protocol line .*; response schemas: the released 3\.0\.6 set\n/);
    const otherLine = withSchemas({ judged_with: 'harness', released_set: set, note: 'n' });
    expect(renderHtml(otherLine)).toMatch(
      /Judged against protocol line [^<]*; response schemas: the harness&#39;s own \(the released 3\.0\.6 set is of line 3\.0\)<\/p>/,
    );
    const none = withSchemas({ judged_with: 'harness', note: 'n' });
    expect(renderSummary(none)).toContain("; response schemas: the harness's own (no released set beside the bundle)");
    expect(renderSummary(buildRunFixture())).not.toContain('response schemas');
  });
});
