/**
 * Every human-facing format states the run's target, groups failures under their root cause
 * ("N checks fail because of one defect"), names another check's root cause on a failure, and
 * shows a check's interpretation note; agent text in them stays inert.
 */
import { describe, expect, it } from 'vitest';
import { renderSummary } from './console.js';
import { renderMarkdownSummary } from './markdown.js';
import { renderJUnit } from './junit.js';
import { renderHtml } from './html.js';
import { allureIdentity } from './allure.js';
import { defectGroups } from './view.js';
import { HOSTILE, buildRunFixture } from './testing/run-result.js';
import { findAll, parseXml } from './testing/xml-tree.js';

const run = buildRunFixture();

describe('defects, target and interpretations in every report', () => {
  it('groups the failures that share a root cause', () => {
    expect(defectGroups(run)).toEqual([
      {
        root: 'capabilities.version.declared',
        message: expect.stringContaining('no '),
        transports: ['a2a'],
        failing: ['capabilities.tasks.listed'],
        blocked: [],
      },
    ]);
  });

  it('console: the target line, a "Failures by defect" section, the root cause on the row, the interpretation', () => {
    const text = renderSummary(run);
    expect(text).toContain('judged against protocol line 3.0; the agent declares 3.0');
    expect(text).toMatch(/Failures by defect\n {2}✗ 2 checks fail because of one defect, first seen in capabilities\.version\.declared \[a2a\]: /);
    expect(text).toContain('      also failing: capabilities.tasks.listed');
    expect(text).toContain('(root cause: capabilities.version.declared)');
    expect(text).toContain('interpretation: a declared task is listed');
    expect(text).not.toContain(HOSTILE.bidi);
  });

  it('Markdown: the same, escaped', () => {
    const md = renderMarkdownSummary(run);
    expect(md).toContain('### Failures by defect');
    expect(md).toContain('root cause&#58; capabilities&#46;version&#46;declared');
    expect(md).toContain('interpretation&#58; a declared task is listed');
    expect(md).toContain('Judged against protocol line 3&#46;0');
    expect(md).not.toContain('<script>');
  });

  it('JUnit: the target and root cause as properties, the defect on its root failure, the interpretation', () => {
    const doc = parseXml(renderJUnit(run));
    const props = findAll(doc, 'property').map((p) => `${p.attrs.name}=${p.attrs.value}`);
    expect(props).toContain('requested_compliance_target=3.0');
    expect(props).toContain('root_cause=capabilities.version.declared');
    expect(props.some((p) => p.startsWith('interpretation=interpretation: a declared task is listed'))).toBe(true);
    const failures = findAll(doc, 'failure').map((f) => f.attrs.message ?? '');
    expect(failures.some((m) => m.includes('2 checks fail because of one defect') && m.includes('also failing: capabilities.tasks.listed'))).toBe(true);
  });

  it('HTML: the target, the defect section, the root cause and the interpretation, as text', () => {
    const html = renderHtml(run);
    expect(html).toContain('<p id="target" data-target="3.0">Judged against protocol line 3.0');
    expect(html).toContain('<section id="defects"><h2>Failures by defect</h2>');
    expect(html).toContain('data-root="capabilities.version.declared"');
    expect(html).toContain('<small class="root-cause">(root cause: capabilities.version.declared)</small>');
    expect(html).toContain('<small class="interpretation">interpretation: a declared task is listed');
    expect(html).not.toContain(HOSTILE.script);
  });

  it('Allure: the target and the root cause as labels, the interpretation in the description', () => {
    const failing = run.checks.find((c) => c.check_id === 'capabilities.tasks.listed' && c.transport === 'a2a')!;
    const id = allureIdentity(run, failing);
    expect(id.labels).toContainEqual({ name: 'requested_compliance_target', value: '3.0' });
    expect(id.labels).toContainEqual({ name: 'root_cause', value: 'capabilities.version.declared' });
    expect(id.description).toContain('root cause: capabilities.version.declared');
    expect(id.description).toContain('interpretation: a declared task is listed');
  });
});
