/** The status badge: a flat SVG, "compliance | <status>", colour by status. Only fixed words go in; nothing from an agent. */
import type { AgentStatus } from './types.js';

const COLOURS: Record<AgentStatus, string> = { passing: '#2e7d32', degraded: '#f9a825', failing: '#c62828', unknown: '#757575' };
const LABEL = 'compliance';

/** Rough width of Verdana 11px text, as flat badges size it. */
const widthOf = (s: string): number => Math.round(s.length * 6.5 + 12);

export function badgeSvg(status: AgentStatus): string {
  const value = COLOURS[status] ? status : 'unknown';
  const left = widthOf(LABEL);
  const right = widthOf(value);
  const total = left + right;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" role="img" aria-label="${LABEL}: ${value}">`,
    `<title>${LABEL}: ${value}</title>`,
    `<rect width="${left}" height="20" fill="#555"/>`,
    `<rect x="${left}" width="${right}" height="20" fill="${COLOURS[value as AgentStatus]}"/>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${left / 2}" y="14">${LABEL}</text>`,
    `<text x="${left + right / 2}" y="14">${value}</text>`,
    '</g></svg>',
  ].join('');
}
