import { describe, expect, it } from 'vitest';
import { RESULT_SCHEMA_VERSION, runEnvelope, targetInfo } from './run-result.js';

describe('run envelope and target', () => {
  it('the default target is the newest released line, and says it was not given', () => {
    expect(targetInfo(undefined)).toEqual({ requested_compliance_target: '3.1', explicit: false });
    expect(targetInfo('3.0')).toEqual({ requested_compliance_target: '3.0', explicit: true });
  });

  it('records what the agent declares, and when the target is not among its versions', () => {
    expect(targetInfo('3.1', { major_versions: [3], supported_versions: ['3.0'], build_version: '3.0.6' })).toEqual({
      requested_compliance_target: '3.1',
      explicit: true,
      agent_declared: { supported_versions: ['3.0'], major_versions: [3], build_version: '3.0.6' },
      agent_lacks_target: true,
    });
    expect(targetInfo('3.0', { supported_versions: ['3.0', '3.1'] }).agent_lacks_target).toBeUndefined();
  });

  it('keeps agent text out: only semver-like version strings, bounded', () => {
    const t = targetInfo('3.1', {
      supported_versions: ['3.1', '<script>', '\u001b[31m3.0', 'x'.repeat(40), ...Array.from({ length: 40 }, () => '3.1')],
      major_versions: [3, 'three', 3.5, -1],
      build_version: 'evil\nline',
    });
    expect(t.agent_declared).toEqual({ supported_versions: Array.from({ length: 16 }, () => '3.1'), major_versions: [3] });
    expect(targetInfo('3.1', 'not an object').agent_declared).toBeUndefined();
  });

  it('builds the members every result carries, with one schema version', () => {
    const e = runEnvelope({
      agentUrl: 'https://a.example/mcp',
      token: 'proto',
      transports: ['mcp'],
      target: targetInfo(undefined),
      seed: '7',
      command: 'npx proto-comply run',
      startedAt: new Date(Date.now() - 1000),
    });
    expect(e.schema_version).toBe(RESULT_SCHEMA_VERSION);
    expect(e.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(e.target.requested_compliance_target).toBe('3.1');
  });
});
