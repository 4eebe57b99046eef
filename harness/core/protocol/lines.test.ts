import { describe, expect, it } from 'vitest';
import { DEFAULT_TARGET, PROTOCOL_LINES, describeLines, inLines, isProtocolLine, lineOfVersion } from './lines.js';

describe('protocol lines', () => {
  it('knows the three 3.x lines, 3.1 (the newest released) by default', () => {
    expect(PROTOCOL_LINES).toEqual(['3.0', '3.1', '3.2']);
    expect(DEFAULT_TARGET).toBe('3.1');
    expect(isProtocolLine('3.2')).toBe(true);
    for (const bad of ['4.0', '3', '3.1.0', '', 3.1]) expect(isProtocolLine(bad)).toBe(false);
  });

  it('an absent line list means every line', () => {
    expect(inLines('3.0', undefined)).toBe(true);
    expect(inLines('3.0', ['3.1', '3.2'])).toBe(false);
    expect(inLines('3.2', ['3.1', '3.2'])).toBe(true);
  });

  it('reads lines the way a report says them', () => {
    expect(describeLines(['3.1', '3.2'])).toBe('3.1 and later');
    expect(describeLines(['3.0', '3.1'])).toBe('3.0 and 3.1');
    expect(describeLines(['3.2'])).toBe('3.2 only');
    expect(describeLines(['3.0', '3.2'])).toBe('3.0, 3.2');
    expect(describeLines(['3.0', '3.1', '3.2'])).toBe('3.0 and later');
  });

  it('takes the line of a release or build version', () => {
    expect(lineOfVersion('3.0')).toBe('3.0');
    expect(lineOfVersion('3.0.6')).toBe('3.0');
    expect(lineOfVersion('3.1-beta')).toBe('3.1');
    expect(lineOfVersion('2.5.3')).toBeUndefined();
    expect(lineOfVersion('v3')).toBeUndefined();
  });
});
