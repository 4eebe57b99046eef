import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolIds } from '../harness/core/token.js';
import { renderJUnit, writeJUnit } from './junit.js';
import { HOSTILE, HOSTILE_AGENT_URL, HOSTILE_ALL, buildRunFixture } from './testing/run-result.js';
import { oneLine, sanitizeText } from './text.js';
import { escapeXmlAttr, escapeXmlText } from './xml.js';
import { XmlSyntaxError, findAll, parseXml, textOf } from './testing/xml-tree.js';
import type { XmlNode } from './testing/xml-tree.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reports-junit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function testcase(root: XmlNode, suite: string, name: string): XmlNode {
  const s = findAll(root, 'testsuite').find((n) => n.attrs.name === suite);
  expect(s, suite).toBeDefined();
  const c = findAll(s!, 'testcase').find((n) => n.attrs.name.startsWith(`${name}: `));
  expect(c, `${suite} ${name}`).toBeDefined();
  return c!;
}

function child(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c): c is XmlNode => typeof c !== 'string' && c.name === name);
}

describe('XML escaping', () => {
  it('escapes markup and replaces characters illegal in XML 1.0', () => {
    const escaped = escapeXmlAttr(HOSTILE_ALL);
    expect(escaped).not.toMatch(/[<>"']/);
    expect(escaped).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i);
    expect(escaped).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
    expect(escaped).not.toMatch(/[\n\r\t]/);
    expect(escapeXmlText('a]]>b')).toBe('a]]&gt;b');
    expect(escapeXmlText('esc\u001b[31m')).toBe('esc\\u001b[31m');
    expect(escapeXmlText('lone \uD800 x')).toBe('lone \\ud800 x');
    expect(escapeXmlText('pair 😀')).toBe('pair 😀');
  });

  it('the tests read the XML with a strict parser (saxes) that rejects what is not well-formed', () => {
    for (const bad of [
      '<a>x < y</a>',
      '<a>AT&T</a>',
      '<a>&nbsp;</a>',
      '<a b="x"y"/>',
      '<a b="1" b="2"/>',
      '<a>\u0001</a>',
      '<a>&#1;</a>',
      '<a>]]></a>',
      '<a><b></a></b>',
      '<a/><b/>',
      '<a/>x',
      '<a>',
      '<a b="\u0001"/>',
      '<a b="&#xFFFE;"/>',
      '<a>\uD800</a>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow(XmlSyntaxError);
    }
    expect(parseXml('<a b="x&#10;y&quot;">t&amp;&#13;</a>')).toEqual({ name: 'a', attrs: { b: 'x\ny"' }, children: ['t&\r'] });
  });
});

describe('renderJUnit', () => {
  const run = buildRunFixture();
  const xml = renderJUnit(run);
  const root = parseXml(xml);

  it('is well-formed and contains no raw hostile markup', () => {
    expect(root.name).toBe('testsuites');
    expect(xml).not.toContain('<script');
    expect(xml).not.toContain('<img');
    expect(xml).not.toContain('<![CDATA[');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/);
    expect(xml).not.toMatch(/[\uD800-\uDFFF]/u); // no lone surrogates
  });

  it('has one testsuite per suite × transport and one testcase per check, then one per blocked cascade and gap', () => {
    const suites = findAll(root, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual([...run.suites.flatMap((s) => run.transports.map((t) => `${s.suite_id} [${t}]`)), 'not verified']);
    const groups = run.coverage.blocked.length + run.coverage.gaps.length;
    expect(groups).toBe(3);
    expect(findAll(root, 'testcase')).toHaveLength(run.checks.length + groups);
    const caps = suites.find((s) => s.attrs.name === 'capabilities [a2a]')!;
    expect(caps.attrs).toMatchObject({ tests: '3', failures: '1', errors: '0', skipped: '0', time: '0.095' });
    const idem = suites.find((s) => s.attrs.name === 'idempotency [mcp]')!;
    // fail → failure, blocked → skipped, baselined fail → skipped, info → passed
    expect(idem.attrs).toMatchObject({ tests: '4', failures: '1', errors: '0', skipped: '2' });
    // skipped: 2 not applicable, 1 blocked, 3 gaps (one feature, two budget), 1 baselined, 3 group testcases
    expect(root.attrs).toMatchObject({ tests: String(run.checks.length + 3), failures: '2', errors: '1', skipped: '10', time: '4.321' });
    const notVerified = suites.find((s) => s.attrs.name === 'not verified')!;
    expect(findAll(notVerified, 'skipped').map((s) => s.attrs.message)).toEqual([
      expect.stringMatching(/^1 check blocked by idempotency\.replay\.same-payload failing \(mcp\): replay differs/),
      '2 checks not verified, coverage gap (run budget, a2a): the run budget of 60 s ran out',
      expect.stringMatching(/^1 check not verified, coverage gap \(test controller .*, mcp\): the agent offers no test controller/),
    ]);
    const tc = testcase(root, 'capabilities [mcp]', 'capabilities.task.answers');
    expect(tc.attrs).toEqual({
      classname: 'capabilities.mcp',
      name: 'capabilities.task.answers: Capabilities task answers',
      time: '0.012',
    });
    const props = Object.fromEntries(findAll(tc, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(props).toEqual({ level: 'MUST', spec_ref: 'interface-spec §4.1 rule 1', outcome: 'pass' });
  });

  it('maps outcomes to failure, error, skipped and system-out', () => {
    const failed = testcase(root, 'capabilities [a2a]', 'capabilities.version.declared');
    const failure = child(failed, 'failure')!;
    expect(failure.attrs.type).toBe('fail');
    const body = textOf(failure);
    expect(body).toContain('expected: {');
    expect(body).toContain(`pointer: /${protocolIds(run.token).versionMember}`);
    expect(body).toMatch(/#\d+ a2a message\/send get_\w+_capabilities: POST https:\/\/agent.example\/a2a → 200 \(body truncated\)/);

    const error = child(testcase(root, 'idempotency [a2a]', 'idempotency.replay.same-payload'), 'error')!;
    expect(textOf(error)).toContain('no response: timeout after 30000 ms');

    expect(child(testcase(root, 'idempotency [mcp]', 'idempotency.conflict.code'), 'skipped')!.attrs.message).toMatch(
      /^blocked: blocked by idempotency\.replay\.same-payload: /,
    );
    expect(child(testcase(root, 'idempotency [a2a]', 'idempotency.conflict.code'), 'skipped')!.attrs.message).toMatch(/^not run/);
    expect(child(testcase(root, 'signing [mcp]', 'signing.request.verify'), 'skipped')!.attrs.message).toMatch(/^coverage gap \(test controller /);
    expect(child(testcase(root, 'webhooks [mcp]', 'webhooks.signing.tag'), 'skipped')!.attrs.message).toMatch(/^not applicable: /);
    const baselined = testcase(root, 'idempotency [mcp]', 'idempotency.missing-key.rejected');
    expect(child(baselined, 'skipped')!.attrs.message).toMatch(/^expected failure \(baselined fail\)/);
    expect(textOf(child(baselined, 'system-out')!)).toContain('INVALID_REQUEST');

    const warn = testcase(root, 'capabilities [mcp]', 'capabilities.tasks.listed');
    expect(child(warn, 'failure')).toBeUndefined();
    expect(textOf(child(warn, 'system-out')!)).toMatch(/^WARN \(SHOULD\): /);
    expect(textOf(child(testcase(root, 'idempotency [a2a]', 'idempotency.ttl.declared'), 'system-out')!)).toMatch(/^INFO \(MAY\)/);
  });

  it('round-trips hostile values exactly (after sanitising)', () => {
    const replay = run.checks.find((c) => c.check_id === 'idempotency.replay.same-payload' && c.transport === 'mcp')!;
    const failure = child(testcase(root, 'idempotency [mcp]', replay.check_id), 'failure')!;
    expect(failure.attrs.message).toBe(oneLine(replay.message, 1000));
    expect(failure.attrs.message).toContain(HOSTILE.cdata);
    expect(failure.attrs.message).toContain('esc\\u001b[31mRED');
    expect(textOf(failure)).toContain(sanitizeText(HOSTILE.lone));
    const agentUrl = findAll(root, 'property').find((p) => p.attrs.name === 'agent_url')!;
    expect(agentUrl.attrs.value).toBe(HOSTILE_AGENT_URL);
    const title = findAll(root, 'property').find((p) => p.attrs.name === 'suite_title' && p.attrs.value.startsWith('Idempotency'))!;
    expect(title.attrs.value).toBe(`Idempotency ${HOSTILE.script}`);
  });

  it('fails warnings under --strict', () => {
    const strict = parseXml(renderJUnit(buildRunFixture({ strict: true })));
    const warn = testcase(strict, 'capabilities [mcp]', 'capabilities.tasks.listed');
    expect(child(warn, 'failure')!.attrs.type).toBe('warn');
  });

  it('writes junit.xml', async () => {
    const path = await writeJUnit(run, dir);
    expect(path).toBe(join(dir, 'junit.xml'));
    expect(await readFile(path, 'utf8')).toBe(xml);
  });
});
