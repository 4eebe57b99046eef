import { describe, expect, it } from 'vitest';
import { resolveEndpoints, TransportConfigError } from './endpoints.js';

describe('resolveEndpoints', () => {
  it.each([
    [
      'https://agent.example/sales/mcp',
      {
        mcp: 'https://agent.example/sales/mcp',
        agentCard: ['https://agent.example/sales/.well-known/agent-card.json', 'https://agent.example/.well-known/agent-card.json'],
      },
    ],
    ['https://agent.example/mcp', { mcp: 'https://agent.example/mcp', agentCard: ['https://agent.example/.well-known/agent-card.json'] }],
    ['https://agent.example/mcp/', { mcp: 'https://agent.example/mcp/', agentCard: ['https://agent.example/.well-known/agent-card.json'] }],
    [
      'https://agent.example/.well-known/agent-card.json',
      { mcp: 'https://agent.example/mcp', agentCard: ['https://agent.example/.well-known/agent-card.json'] },
    ],
    [
      'https://agent.example/sales/.well-known/agent-card.json',
      { mcp: 'https://agent.example/sales/mcp', agentCard: ['https://agent.example/sales/.well-known/agent-card.json'] },
    ],
    [
      'https://agent.example/sales/a2a',
      {
        mcp: 'https://agent.example/sales/mcp',
        agentCard: ['https://agent.example/.well-known/agent-card.json'],
        a2a: 'https://agent.example/sales/a2a',
      },
    ],
    ['https://agent.example', { mcp: 'https://agent.example/mcp', agentCard: ['https://agent.example/.well-known/agent-card.json'] }],
    ['http://127.0.0.1:8080/base/', { mcp: 'http://127.0.0.1:8080/base/mcp', agentCard: ['http://127.0.0.1:8080/base/.well-known/agent-card.json'] }],
  ])('%s', (url, expected) => {
    expect(resolveEndpoints(url)).toEqual(expected);
  });

  it('applies explicit MCP and A2A URLs', () => {
    expect(resolveEndpoints('https://a.example', { mcpUrl: 'https://m.example/x', a2aUrl: 'https://b.example/rpc/a2a' })).toEqual({
      mcp: 'https://m.example/x',
      agentCard: ['https://b.example/.well-known/agent-card.json'],
      a2a: 'https://b.example/rpc/a2a',
    });
    expect(resolveEndpoints('https://a.example/a2a', { a2aUrl: 'https://c.example/card/agent-card.json' })).toEqual({
      mcp: 'https://a.example/mcp',
      agentCard: ['https://c.example/card/agent-card.json'],
    });
  });

  it.each(['ftp://agent.example/mcp', 'file:///etc/passwd', 'https://user:pw@agent.example/mcp', 'not a url', '/relative/mcp'])('rejects %s', (url) => {
    expect(() => resolveEndpoints(url)).toThrow(TransportConfigError);
  });

  it('rejects bad overrides too', () => {
    expect(() => resolveEndpoints('https://a.example', { mcpUrl: 'https://u@a.example/mcp' })).toThrow(/userinfo/);
    expect(() => resolveEndpoints('https://a.example', { a2aUrl: 'javascript:alert(1)' })).toThrow(/http or https/);
  });
});
