import { describe, expect, it } from 'vitest';
import { caseableHost } from './signed-call.js';

describe('caseableHost (signatures.target.host-case applicability)', () => {
  it('is the host of a DNS-named URL or an IPv6 literal with hex letters', () => {
    expect(caseableHost('http://localhost:4000/mcp')).toBe('localhost');
    expect(caseableHost('https://Seller.Example/mcp')).toBe('seller.example');
    expect(caseableHost('http://[fe80::a]:80/mcp')).toBe('[fe80::a]');
  });
  it('is undefined for an IP literal without letters, or no URL', () => {
    expect(caseableHost('http://127.0.0.1:4000/mcp')).toBeUndefined();
    expect(caseableHost('http://[::1]:4000/mcp')).toBeUndefined();
    expect(caseableHost('not a url')).toBeUndefined();
  });
});
