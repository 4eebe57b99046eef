/**
 * Badge images: flat SVGs "<label> | <value>", coloured by state. Only fixed words, role names of
 * the closed list and version strings the harness wrote go in; nothing from an agent.
 */
import type { BadgeState, Role } from './badges.js';
import type { AgentStatus } from './types.js';

const COLOURS: Record<AgentStatus, string> = { passing: '#2e7d32', degraded: '#f9a825', failing: '#c62828', unknown: '#757575' };
const STATE_COLOURS: Record<BadgeState | 'none', string> = { active: '#2e7d32', degraded: '#f9a825', revoked: '#757575', none: '#757575' };

/** Rough width of Verdana 11px text, as flat badges size it. */
const widthOf = (s: string): number => Math.round(s.length * 6.5 + 12);

/** Text safe in SVG (the inputs are ours, but the image must not depend on it). */
const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

function flatBadge(label: string, value: string, colour: string): string {
  const [l, v] = [xml(label), xml(value)];
  const left = widthOf(label);
  const right = widthOf(value);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + right}" height="20" role="img" aria-label="${l}: ${v}">`,
    `<title>${l}: ${v}</title>`,
    `<rect width="${left}" height="20" fill="#555"/>`,
    `<rect x="${left}" width="${right}" height="20" fill="${colour}"/>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${left / 2}" y="14">${l}</text>`,
    `<text x="${left + right / 2}" y="14">${v}</text>`,
    '</g></svg>',
  ].join('');
}

/** The agent's compliance status badge. */
export function badgeSvg(status: AgentStatus): string {
  const value = COLOURS[status] ? status : 'unknown';
  return flatBadge('compliance', value, COLOURS[value as AgentStatus]);
}

/** A role's verification badge: `verified 3.1`, `degraded 3.1`, or `not verified`. */
export function roleBadgeSvg(role: Role, state: BadgeState | undefined, version: string | undefined): string {
  const shown = state === 'active' || state === 'degraded' ? state : 'none';
  const value = shown === 'none' ? 'not verified' : `${shown === 'active' ? 'verified' : 'degraded'}${version ? ` ${version}` : ''}`;
  return flatBadge(`AdCP ${role}`, value, STATE_COLOURS[shown]);
}
