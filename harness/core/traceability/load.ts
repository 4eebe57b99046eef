/**
 * Reading a traceability map file, strictly: unknown fields, a rule with both or neither of
 * `checks` / `untested`, an untested reason outside the closed categories, duplicate rule ids,
 * an id that does not name its document and section, or two anchors for one section are
 * problems. Whether the check ids exist and the anchors match the document is checked by
 * validate.ts, against the suites and the document.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { RULE_ID_PREFIX, SPEC_DOCS, UNTESTED_CATEGORIES, type TraceMap } from './types.js';
import { PROTOCOL_LINES } from '../protocol/lines.js';

export class TraceMapError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'TraceMapError';
  }
}

const SECTION = '^[0-9]+(\\.[0-9]+)*[a-z]?$';
const ANCHOR = '^[a-z0-9][a-z0-9_-]*$';
const ONE_LINE = '^[^\\n]*\\S[^\\n]*$';
const CATEGORIES = Object.keys(UNTESTED_CATEGORIES)
  .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  .join('|');

const MAP_SCHEMA = {
  type: 'object',
  required: ['doc', 'rules'],
  additionalProperties: false,
  properties: {
    doc: { enum: [...SPEC_DOCS] },
    no_rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['section', 'anchor', 'reason'],
        additionalProperties: false,
        properties: {
          section: { type: 'string', pattern: SECTION },
          anchor: { type: 'string', pattern: ANCHOR },
          reason: { type: 'string', pattern: ONE_LINE },
        },
      },
    },
    rules: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'section', 'anchor', 'level', 'rule'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[a-z]+-[0-9]+(\\.[0-9]+)*[a-z]?-[a-z0-9]+(-[a-z0-9]+)*$' },
          section: { type: 'string', pattern: SECTION },
          anchor: { type: 'string', pattern: ANCHOR },
          level: { enum: ['MUST', 'SHOULD', 'MAY'] },
          rule: { type: 'string', pattern: ONE_LINE, maxLength: 200 },
          checks: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { type: 'string', pattern: '^[a-z][a-z0-9-]*(\\.[a-z0-9][a-z0-9_-]*)+$' },
          },
          untested: { type: 'string', pattern: `^(${CATEGORIES}): [^\\n]*\\S[^\\n]*$`, maxLength: 200 },
          lines: { type: 'array', uniqueItems: true, items: { enum: [...PROTOCOL_LINES] } },
          lines_source: { type: 'string', pattern: ONE_LINE, maxLength: 400 },
        },
        dependentRequired: { lines: ['lines_source'], lines_source: ['lines'] },
      },
    },
  },
};

// Compiled on first use, not when `run` imports this module.
let validateShapeFn: ValidateFunction | undefined;
const validateShape = (): ValidateFunction => (validateShapeFn ??= new Ajv2020({ allErrors: true, strict: true }).compile(MAP_SCHEMA));

function describe(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') return `unknown field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`;
  if (e.instancePath.endsWith('/untested') && e.keyword === 'pattern') {
    return `must start with one of the categories (${Object.keys(UNTESTED_CATEGORIES).join(', ')}) and a colon`;
  }
  return e.message ?? e.keyword;
}

/** Collapse a section's dots: the prefix every anchor of section `4.4` starts with is `44-`. */
export function anchorPrefix(section: string): string {
  return `${section.replace(/\./g, '')}-`;
}

/** The map in `data`, and every problem with it (the map is only returned when there are none). */
export function readTraceMap(data: unknown, source: string): { map?: TraceMap; problems: string[] } {
  const validate = validateShape();
  if (!validate(data)) {
    return { problems: (validate.errors ?? []).map((e) => `${source}: ${e.instancePath || '/'}: ${describe(e)}`) };
  }
  const map = { source, no_rules: [], ...(data as object) } as unknown as TraceMap;
  const problems: string[] = [];
  const ids = new Set<string>();
  const anchors = new Map<string, string>();
  const sameAnchor = (where: string, section: string, anchor: string) => {
    if (!anchor.startsWith(anchorPrefix(section))) problems.push(`${where}: anchor ${anchor} is not an anchor of section ${section}`);
    const seen = anchors.get(section);
    if (seen === undefined) anchors.set(section, anchor);
    else if (seen !== anchor) problems.push(`${where}: section ${section} has two anchors, ${seen} and ${anchor}`);
  };
  const prefix = RULE_ID_PREFIX[map.doc];
  for (const r of map.rules) {
    const where = `${source}: rule ${r.id}`;
    if (ids.has(r.id)) problems.push(`${where}: duplicate rule id`);
    ids.add(r.id);
    if (!r.id.startsWith(`${prefix}-${r.section}-`)) problems.push(`${where}: the id must start with ${prefix}-${r.section}- (its document and section)`);
    if ((r.checks === undefined) === (r.untested === undefined)) problems.push(`${where}: needs exactly one of checks and untested`);
    sameAnchor(where, r.section, r.anchor);
  }
  const ruleSections = new Set(map.rules.map((r) => r.section));
  const listed = new Set<string>();
  for (const s of map.no_rules) {
    const where = `${source}: no_rules section ${s.section}`;
    if (listed.has(s.section)) problems.push(`${where}: listed twice`);
    listed.add(s.section);
    if (ruleSections.has(s.section)) problems.push(`${where}: the section has rules`);
    sameAnchor(where, s.section, s.anchor);
  }
  return problems.length ? { problems } : { map, problems };
}

/** Parses and reads a map file; throws TraceMapError listing every problem. */
export function loadTraceMap(file: URL | string): TraceMap {
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8'), { uniqueKeys: true, maxAliasCount: 0 });
  } catch (e) {
    throw new TraceMapError([`${path}: ${(e as Error).message.split('\n')[0]}`]);
  }
  const { map, problems } = readTraceMap(data, path);
  if (!map) throw new TraceMapError(problems);
  return map;
}
