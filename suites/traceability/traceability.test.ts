/**
 * The traceability maps are machine-checked: every mapped check exists, every check is in some
 * rule, every entry is well formed, every check's spec reference carries its section's anchor,
 * and (when ../shared is present) every section and anchor is a numbered heading of the document
 * and every numbered heading has an entry. The second half proves each of these can fail, on
 * mutated copies of the real maps.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { builtinSuites } from '../index.js';
import { TRACE_MAP_FILES, traceMaps } from './index.js';
import { readTraceMap } from '../../harness/core/traceability/load.js';
import { checkAnchorProblems, checkCoverageProblems, checkLineProblems, documentProblems, type TracedCheck } from '../../harness/core/traceability/validate.js';
import { SPEC_DOCS, type SpecDoc, type TraceMap } from '../../harness/core/traceability/types.js';

const SPEC_DIR = join(process.cwd(), '../shared/spec');
const specText = (doc: SpecDoc): string => readFileSync(join(SPEC_DIR, `${doc}.md`), 'utf8');
const hasSpec = existsSync(join(SPEC_DIR, 'interface-spec.md')) && existsSync(join(SPEC_DIR, 'digest.md'));
if (!hasSpec) console.warn(`skipping the document half of the traceability test: ${SPEC_DIR} is absent`);

const checks = (): TracedCheck[] =>
  builtinSuites().suites.flatMap((s) => s.checks.map((c) => ({ id: c.id, spec: c.spec, ...(c.lines ? { lines: c.lines } : {}) })));
const rawMap = (doc: SpecDoc): Record<string, unknown> => parse(readFileSync(fileURLToPath(TRACE_MAP_FILES[doc]), 'utf8'));
const copy = (): TraceMap[] => structuredClone(traceMaps());

describe('traceability maps', () => {
  it('read without a problem, one per spec document', () => {
    expect(traceMaps().map((m) => m.doc)).toEqual([...SPEC_DOCS]);
    for (const doc of SPEC_DOCS) expect(readTraceMap(rawMap(doc), doc).problems).toEqual([]);
  });

  it('name only existing checks, and name every check', () => {
    expect(checkCoverageProblems(traceMaps(), checks())).toEqual([]);
  });

  it("give every check's spec reference its section's anchor", () => {
    expect(checkAnchorProblems(traceMaps(), checks())).toEqual([]);
  });

  it('judge every check only at the protocol lines of the rules it tests, and say where each rule line comes from', () => {
    expect(checkLineProblems(traceMaps(), checks())).toEqual([]);
    const scoped = traceMaps().flatMap((m) => m.rules.filter((r) => r.lines));
    expect(scoped.length).toBeGreaterThan(100);
    for (const r of scoped) expect(r.lines_source, r.id).toMatch(/\S/);
  });

  it.skipIf(!hasSpec).each(SPEC_DOCS)('match the headings of the %s, and map every numbered heading', (doc) => {
    const map = traceMaps().find((m) => m.doc === doc)!;
    expect(documentProblems(map, specText(doc))).toEqual([]);
  });
});

describe('the traceability test fails', () => {
  const rules = (data: Record<string, unknown>) => data.rules as Record<string, unknown>[];

  it('when a mapped check id does not exist', () => {
    const maps = copy();
    maps[0]!.rules.find((r) => r.checks)!.checks!.push('errors.no-such.check');
    expect(checkCoverageProblems(maps, checks())).toEqual([expect.stringMatching(/: no check errors\.no-such\.check exists$/)]);
  });

  it('when a check is judged at a line none of its rules has', () => {
    const maps = copy();
    for (const m of maps) for (const r of m.rules) if (r.checks?.includes('webhooks.envelope.token')) r.lines = ['3.2'];
    expect(checkLineProblems(maps, checks())).toEqual([
      expect.stringMatching(/^check webhooks\.envelope\.token is judged at 3\.1, where none of its rules exists/),
    ]);
  });

  it('when a check is in no rule', () => {
    const maps = copy();
    for (const m of maps) for (const r of m.rules) if (r.checks) r.checks = r.checks.filter((c) => c !== 'errors.auth.wrong-bearer');
    expect(checkCoverageProblems(maps, checks())).toEqual(['check errors.auth.wrong-bearer is in no rule of the traceability maps']);
  });

  it('when a rule has both or neither of checks and untested', () => {
    const data = rawMap('interface-spec');
    const [tested, untested] = [rules(data).find((r) => r.checks)!, rules(data).find((r) => r.untested)!];
    tested.untested = 'no check yet: both';
    delete untested.untested;
    const problems = readTraceMap(data, 'map').problems;
    expect(problems).toContain(`map: rule ${tested.id}: needs exactly one of checks and untested`);
    expect(problems).toContain(`map: rule ${untested.id}: needs exactly one of checks and untested`);
  });

  it('when rule ids repeat', () => {
    const data = rawMap('digest');
    rules(data)[1]!.id = rules(data)[0]!.id;
    expect(readTraceMap(data, 'map').problems).toContainEqual(expect.stringMatching(/: duplicate rule id$/));
  });

  it('when an entry has an unknown field, or a reason outside the categories', () => {
    const data = rawMap('digest');
    rules(data)[0]!.note = 'not a field';
    expect(readTraceMap(data, 'map').problems).toEqual(['map: /rules/0: unknown field "note"']);
    const other = rawMap('digest');
    rules(other).find((r) => r.untested)!.untested = 'nobody got to it';
    expect(readTraceMap(other, 'map').problems).toEqual([expect.stringMatching(/\/untested: must start with one of the categories \(no check yet, /)]);
    const top = { ...rawMap('digest'), extra: true };
    expect(readTraceMap(top, 'map').problems).toEqual(['map: /: unknown field "extra"']);
  });

  it('when an id does not name its section, or a section gets two anchors', () => {
    const data = rawMap('interface-spec');
    const [a, b] = rules(data).filter((r) => r.section === '4.4');
    a!.id = 'is-4.5-r1';
    b!.anchor = '44-idempotency';
    const problems = readTraceMap(data, 'map').problems;
    expect(problems).toContain('map: rule is-4.5-r1: the id must start with is-4.4- (its document and section)');
    expect(problems).toContain(`map: rule ${b!.id}: section 4.4 has two anchors, 44-idempotency-rules and 44-idempotency`);
  });

  it("when a check's spec reference lacks its section's anchor", () => {
    // The checks as they should be (every anchor taken from the maps), then one of them broken.
    const anchors = new Map(traceMaps().flatMap((m) => [...m.rules, ...m.no_rules].map((e) => [`${m.doc} ${e.section}`, e.anchor] as const)));
    const traced = checks().map((c) => ({ ...c, spec: { ...c.spec, anchor: anchors.get(`${c.spec.doc} ${c.spec.section}`) } }));
    expect(checkAnchorProblems(traceMaps(), traced)).toEqual([]);
    const one = traced.find((c) => c.spec.doc === 'interface-spec' && c.spec.section === '4.4')!;
    const wrong = traced.map((c) => (c === one ? { ...c, spec: { ...c.spec, anchor: '44-idempotency' } } : c));
    expect(checkAnchorProblems(traceMaps(), wrong)).toEqual([
      `check ${one.id}: spec anchor 44-idempotency is not the anchor of interface-spec §4.4 (44-idempotency-rules)`,
    ]);
    const { anchor: _drop, ...bare } = one.spec;
    const missing = traced.map((c) => (c === one ? { ...c, spec: bare } : c));
    expect(checkAnchorProblems(traceMaps(), missing)).toEqual([`check ${one.id}: spec has no anchor (expected 44-idempotency-rules)`]);
  });

  it.skipIf(!hasSpec)('when an anchor is not the heading anchor of its section', () => {
    const [map] = copy();
    for (const r of map!.rules) if (r.section === '6.5') r.anchor = '65-delivery';
    expect(documentProblems(map!, specText('interface-spec'))).toEqual([
      `${map!.source}: section 6.5: anchor 65-delivery is not the heading's anchor 65-delivery-semantics`,
    ]);
  });

  it.skipIf(!hasSpec)('when a numbered heading of the document has no entry, or an entry no heading', () => {
    const maps = copy();
    const digest = maps.find((m) => m.doc === 'digest')!;
    digest.rules = digest.rules.filter((r) => r.section !== '5.6');
    digest.no_rules.push({ section: '8', anchor: '8-appendix', reason: 'not in the document' });
    expect(documentProblems(digest, specText('digest'))).toEqual([
      `${digest.source}: section 8 is no numbered heading of the digest`,
      `${digest.source}: section 5.6 (#56-401-handling) of the digest has no entry (map its rules, or list it under no_rules)`,
    ]);
    // A section newly added to the document goes unmapped until the map names it.
    const grown = `${specText('interface-spec')}\n### 9.1 Future rules\n\nA new rule.\n`;
    expect(documentProblems(traceMaps()[0]!, grown)).toEqual([
      `${traceMaps()[0]!.source}: section 9.1 (#91-future-rules) of the interface-spec has no entry (map its rules, or list it under no_rules)`,
    ]);
  });
});
