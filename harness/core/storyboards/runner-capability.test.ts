import { describe, expect, it } from 'vitest';
import { RUNNER_CAPABILITY_VERSION, severityOf } from './runner-capability.js';

describe('the severity a validation is judged at', () => {
  it('is required unless authored advisory, and advisory until the runner capability version reaches its expires_after_version', () => {
    expect(RUNNER_CAPABILITY_VERSION).toBe('6.11.0');
    expect(severityOf({})).toBe('required');
    expect(severityOf({ severity: 'required', expires_after_version: '1.0.0' })).toBe('required');
    expect(severityOf({ severity: 'advisory' })).toBe('advisory');
    expect(severityOf({ severity: 'advisory', expires_after_version: '6.11.0' })).toBe('required');
    expect(severityOf({ severity: 'advisory', expires_after_version: '6.10' })).toBe('required');
    expect(severityOf({ severity: 'advisory', expires_after_version: '6.11.1' })).toBe('advisory');
    expect(severityOf({ severity: 'advisory', expires_after_version: '7.0.0-rc.1' })).toBe('advisory');
  });

  it('never promotes on a version that is not one (the storyboard defect is not the agent failure)', () => {
    expect(severityOf({ severity: 'advisory', expires_after_version: 'soon' })).toBe('advisory');
    expect(severityOf({ severity: 'advisory', expires_after_version: '' })).toBe('advisory');
  });
});
