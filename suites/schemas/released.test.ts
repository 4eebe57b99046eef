/**
 * The schemas suite with a released schema set (`run --schemas`): where the set's line is the
 * target, each reply is judged against it too, a failure naming the pointer and the schema file;
 * under another target the set judges nothing and the check says so. The set here is the fixture
 * set with list_accounts requiring a member no seller sends, so the verdicts do not depend on how
 * closely the mock follows the released 3.0 schemas.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certifyMock } from '../testing/mock-run.js';
import { chooseSchemaSet } from '../../harness/core/schemas/schema-set/choose.js';
import { SCHEMA_SET_FIXTURE } from '../../harness/core/schemas/testing/schema-set-fixture.js';
import type { ProtocolLine } from '../../harness/core/protocol/lines.js';

const dir = mkdtempSync(join(tmpdir(), 'schema-set-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
cpSync(SCHEMA_SET_FIXTURE, dir, { recursive: true });
writeFileSync(
  join(dir, 'account/list-accounts-response.json'),
  JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: '/schemas/3.0.0-fixture/account/list-accounts-response.json',
    type: 'object',
    required: ['accounts', 'never_sent'],
  }),
);

const run = (target: ProtocolLine, set = dir) =>
  certifyMock({
    target,
    transports: ['mcp'],
    suites: ['setup', 'schemas'],
    checkGlob: 'schemas.response.list_accounts',
    schemaSet: chooseSchemaSet({ dir: set }),
  });

describe('the schemas suite with a released schema set', () => {
  it('fails a reply invalid against the set of the target line, naming the pointer and the schema file, and records the set', async () => {
    const r = await run('3.0');
    const check = r.checks.find((c) => c.check_id === 'schemas.response.list_accounts');
    expect(check?.outcome).toBe('fail');
    expect(check?.message).toMatch(
      /^a list_accounts response \(check [a-z_.-]+\) is not valid against the released 3\.0\.0-fixture schema account\/list-accounts-response\.json: \/ must have required property 'never_sent' \(account\/list-accounts-response\.json#\/required\)$/,
    );
    expect(r.target.response_schemas).toMatchObject({ judged_with: 'released', released_set: { version: '3.0.0-fixture', line: '3.0', chosen: 'named' } });
  });

  it('passes replies valid against both, saying which released schema they were judged with', async () => {
    const check = (await run('3.0', SCHEMA_SET_FIXTURE)).checks.find((c) => c.check_id === 'schemas.response.list_accounts');
    expect(check?.outcome).toBe('pass');
    expect(check?.message).toMatch(/\b\d+ repl(y|ies) also valid against the released 3\.0\.0-fixture schema account\/list-accounts-response\.json/);
  });

  it('is a coverage gap, naming the file, when the released schema of a task cannot be compiled', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'schema-set-'));
    try {
      cpSync(SCHEMA_SET_FIXTURE, broken, { recursive: true });
      writeFileSync(join(broken, 'account/list-accounts-response.json'), '{');
      const check = (await run('3.0', broken)).checks.find((c) => c.check_id === 'schemas.response.list_accounts');
      expect(check).toMatchObject({ outcome: 'gap', gap: 'a usable released schema' });
      expect(check?.message).toMatch(
        /^the released 3\.0\.0-fixture schema of list_accounts could not be used: account\/list-accounts-response\.json: not JSON/,
      );
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('judges with the harness’s own schemas alone under another target, and says the set was not applied', async () => {
    const r = await run('3.1');
    const check = r.checks.find((c) => c.check_id === 'schemas.response.list_accounts');
    expect(check?.outcome).toBe('pass');
    // A passing check's notes are its message.
    expect(check?.message).toContain('the released 3.0.0-fixture schemas (line 3.0) were not applied: the run targets 3.1');
    expect(r.target.response_schemas?.judged_with).toBe('harness');
  });
});
