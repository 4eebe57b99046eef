import { describe, expect, it } from 'vitest';
import { brandJsonUrlFor, loopbackBrandUrl } from './keys.js';

describe('the brand.json a seller is read from', () => {
  it('takes the declared brand_json_url, else /.well-known/brand.json at the agent origin', () => {
    expect(brandJsonUrlFor('http://127.0.0.1:4000/mcp', { identity: { brand_json_url: 'https://seller.example/brand.json' } })).toBe(
      'https://seller.example/brand.json',
    );
    expect(brandJsonUrlFor('http://127.0.0.1:4000/mcp', {})).toBe('http://127.0.0.1:4000/.well-known/brand.json');
  });

  it('reads an https brand.json on a loopback host over http for a plain-http loopback agent, nothing else', () => {
    expect(loopbackBrandUrl('http://127.0.0.1:4000/mcp', 'https://127.0.0.1:4000/.well-known/brand.json')).toBe('http://127.0.0.1:4000/.well-known/brand.json');
    // Behind a local reverse proxy the agent declares the proxy's port, not its own.
    expect(loopbackBrandUrl('http://127.0.0.1:4000/mcp', 'https://127.0.0.1:4001/.well-known/brand.json')).toBe('http://127.0.0.1:4001/.well-known/brand.json');
    expect(loopbackBrandUrl('http://127.0.0.1:4000/mcp', 'https://localhost:4000/.well-known/brand.json')).toBe('http://localhost:4000/.well-known/brand.json');
    expect(loopbackBrandUrl('https://127.0.0.1:4000/mcp', 'https://127.0.0.1:4000/.well-known/brand.json')).toBe(
      'https://127.0.0.1:4000/.well-known/brand.json',
    );
    expect(loopbackBrandUrl('http://127.0.0.1:4000/mcp', 'https://seller.example/.well-known/brand.json')).toBe(
      'https://seller.example/.well-known/brand.json',
    );
    expect(loopbackBrandUrl('http://seller.example/mcp', 'https://127.0.0.1:4000/.well-known/brand.json')).toBe(
      'https://127.0.0.1:4000/.well-known/brand.json',
    );
  });
});
