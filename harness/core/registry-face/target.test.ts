/** Where `--publisher` / `--brand` point: a domain, a file URL or a base URL (discoveryFileUrl). */
import { describe, expect, it } from 'vitest';
import { discoveryFileUrl, registryTargetOf } from './target.js';

describe('discoveryFileUrl', () => {
  it.each([
    ['example.com', 'https://example.com/.well-known/adagents.json'],
    ['Example.COM.', 'https://example.com/.well-known/adagents.json'],
    ['bücher.de', 'https://xn--bcher-kva.de/.well-known/adagents.json'],
    ['example.com:8443', 'https://example.com:8443/.well-known/adagents.json'],
    ['http://127.0.0.1:4000/domains/publisher.test', 'http://127.0.0.1:4000/domains/publisher.test/.well-known/adagents.json'],
    ['http://127.0.0.1:4000/domains/publisher.test/', 'http://127.0.0.1:4000/domains/publisher.test/.well-known/adagents.json'],
    ['https://x.example', 'https://x.example/.well-known/adagents.json'],
    ['https://x.example/.well-known/adagents.json', 'https://x.example/.well-known/adagents.json'],
    ['https://x.example/custom.JSON', 'https://x.example/custom.JSON'],
  ])('%s → %s', (value, url) => {
    expect(discoveryFileUrl(value, 'adagents')).toBe(url);
  });

  it('names the brand file for --brand', () => {
    expect(discoveryFileUrl('brand.example', 'brand')).toBe('https://brand.example/.well-known/brand.json');
    expect(registryTargetOf({ brandUrl: 'brand.example', adagentsUrl: 'pub.example' })).toEqual({
      brandUrl: 'https://brand.example/.well-known/brand.json',
      adagentsUrl: 'https://pub.example/.well-known/adagents.json',
    });
  });

  it.each(['ftp://x.example', 'exa mple.com', 'example.com/path', 'user@example.com', '-bad.example', 'https://x.example/?q=1', 'https://u:p@x.example/', ''])(
    '%j is refused with a message naming the flag',
    (value) => {
      expect(() => discoveryFileUrl(value, 'adagents')).toThrow(/publisher \(adagents\.json\)/);
    },
  );
});
