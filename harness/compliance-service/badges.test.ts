/** Badge states over an agent's standing: active while passing, degraded within the grace period after it stops, revoked after it and on opting out. */
import { describe, expect, it } from 'vitest';
import { badgesOf, badgeState, claimedRoles } from './badges.js';
import type { AgentRow } from './types.js';

const H = 3_600_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const agent = (o: Partial<AgentRow>): AgentRow => ({
  id: 1,
  url: 'https://a.example/mcp',
  transports: ['mcp'],
  token: 'proto',
  createdAt: iso(T0),
  status: 'passing',
  nextDueAt: 0,
  failures: 0,
  capabilities: ['get_products', 'create_media_buy', 'list_creative_formats'],
  monitoringPaused: false,
  optOut: false,
  requalificationRequired: false,
  lastPassedAt: iso(T0),
  ...o,
});
const policy = { graceMs: 72 * H };

describe('badges', () => {
  it('claims roles from defining tasks only (a seller listing creative formats is not a creative agent)', () => {
    expect(claimedRoles(['get_products', 'list_creative_formats', 'sync_creatives'])).toEqual(['media-buy']);
    expect(claimedRoles(['build_creative', 'get_signals'])).toEqual(['creative', 'signals']);
    expect(claimedRoles([])).toEqual([]);
  });

  it('is active while passing, degraded within the grace period after the first run that did not pass, revoked after', () => {
    expect(badgeState(agent({}), T0 + H, policy)).toBe('active');
    const regressed = agent({ status: 'failing', regressedAt: iso(T0 + 10 * H) });
    expect(badgeState(regressed, T0 + 10 * H + 72 * H, policy)).toBe('degraded');
    expect(badgeState(regressed, T0 + 10 * H + 72 * H + 1, policy)).toBe('revoked');
    expect(badgesOf(regressed, { line: '3.1', version: '3.1' }, T0 + 100 * H, policy)).toEqual([]);
  });

  it('is revoked at once on opting out and until requalified; none for an agent that never passed', () => {
    expect(badgeState(agent({ optOut: true }), T0, policy)).toBe('revoked');
    expect(badgeState(agent({ requalificationRequired: true }), T0, policy)).toBe('revoked');
    expect(badgeState(agent({ lastPassedAt: undefined, status: 'failing' }), T0, policy)).toBeUndefined();
  });

  it('lists one badge per claimed role at the version of the last passing run', () => {
    const b = badgesOf(agent({ status: 'degraded', regressedAt: iso(T0 + H) }), { line: '3.0', version: '3.0.6' }, T0 + 2 * H, policy);
    expect(b).toEqual([
      {
        role: 'media-buy',
        proto_version: '3.0',
        verified_protocol_version: '3.0.6',
        verified_at: iso(T0),
        verified_specialisms: [],
        verification_modes: ['spec'],
        state: 'degraded',
      },
    ]);
  });
});
