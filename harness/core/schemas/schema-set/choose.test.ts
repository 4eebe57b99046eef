/** Which released schema set a run judges with: named, found beside a storyboard bundle, or none; and what the report says. */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseSchemaSet, responseSchemasInfo, schemaSetPlaces } from './choose.js';
import { SchemaSetError } from './read.js';
import { SCHEMA_SET_FIXTURE } from '../testing/schema-set-fixture.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'schema-choice-'));
  made.push(d);
  return d;
};

describe('the places beside a bundle', () => {
  it("are its schemas/ directory, the spec repository's dist/schemas/<version>/ and the SDK package's dist/lib/schemas-data/<line>/", () => {
    expect(schemaSetPlaces('/b/bundle', '3.0.6')).toEqual(['/b/bundle/schemas']);
    expect(schemaSetPlaces('/repo/dist/compliance/3.0.6', '3.0.6')).toEqual(['/repo/dist/compliance/3.0.6/schemas', '/repo/dist/schemas/3.0.6']);
    expect(schemaSetPlaces('/pkg/compliance/cache/3.0.6/', '3.0.6')).toEqual(['/pkg/compliance/cache/3.0.6/schemas', '/pkg/dist/lib/schemas-data/3.0']);
    // A version of no protocol line has no SDK line directory; no version, only schemas/.
    expect(schemaSetPlaces('/pkg/compliance/cache/9.9.9', '9.9.9')).toEqual(['/pkg/compliance/cache/9.9.9/schemas']);
    expect(schemaSetPlaces('/pkg/compliance/cache/x', undefined)).toEqual(['/pkg/compliance/cache/x/schemas']);
  });
});

describe('choosing a schema set', () => {
  it('takes the directory named, and refuses one that is not a usable set', () => {
    expect(chooseSchemaSet({ dir: SCHEMA_SET_FIXTURE })).toMatchObject({ chosen: 'named', set: { version: '3.0.0-fixture' } });
    expect(() => chooseSchemaSet({ dir: tmp() })).toThrow(SchemaSetError);
    expect(chooseSchemaSet({})).toBeUndefined();
  });

  it('finds a set beside the bundle, passing over places that are absent, unusable or of another line', () => {
    const sdk = tmp();
    const bundle = join(sdk, 'compliance/cache/3.0.6');
    mkdirSync(join(bundle, 'schemas'), { recursive: true });
    writeFileSync(join(bundle, 'schemas/notes.json'), '{}');
    expect(chooseSchemaSet({ bundle: { root: bundle, version: '3.0.6' } })).toEqual({
      chosen: 'beside the bundle',
      passedOver: [
        `${bundle}/schemas: names no release version (adcp_version in manifest.json or index.json, or a directory named for it)`,
        `${sdk}/dist/lib/schemas-data/3.0: absent`,
      ],
    });
    cpSync(SCHEMA_SET_FIXTURE, join(sdk, 'dist/lib/schemas-data/3.0'), { recursive: true });
    const found = chooseSchemaSet({ bundle: { root: bundle, version: '3.0.6' } });
    expect(found?.set?.dir).toBe(join(sdk, 'dist/lib/schemas-data/3.0'));
    expect(found?.chosen).toBe('beside the bundle');
    const other = chooseSchemaSet({ bundle: { root: bundle, version: '3.1.0' } });
    expect(other?.set).toBeUndefined();
    expect(other?.passedOver).toContain(`${sdk}/dist/lib/schemas-data/3.1: absent`);
    cpSync(SCHEMA_SET_FIXTURE, join(bundle, 'schemas'), { recursive: true });
    expect(chooseSchemaSet({ bundle: { root: bundle, version: '3.1.0' } })?.passedOver).toContain(`${bundle}/schemas: line 3.0, the bundle's is 3.1`);
  });
});

describe('what the report says', () => {
  const named = chooseSchemaSet({ dir: SCHEMA_SET_FIXTURE })!;
  const set = { dir: named.set!.dir, version: '3.0.0-fixture', line: '3.0', chosen: 'named' };

  it('names the released set that judges, when its line is the target', () => {
    expect(responseSchemasInfo(named, '3.0')).toEqual({
      judged_with: 'released',
      released_set: set,
      note: `the released 3.0.0-fixture schemas at ${set.dir} (named by --schemas), line 3.0`,
    });
  });

  it("says a set of another line judges nothing, and that the harness's own schemas judge when none was found", () => {
    expect(responseSchemasInfo(named, '3.1')).toEqual({
      judged_with: 'harness',
      released_set: set,
      note: `the released 3.0.0-fixture schemas at ${set.dir} (named by --schemas) are of line 3.0, not the target 3.1: not applied (--target 3.0 judges with them); the harness's own schemas judge`,
    });
    expect(responseSchemasInfo({ chosen: 'beside the bundle', passedOver: ['/b/schemas: absent'] }, '3.1')).toEqual({
      judged_with: 'harness',
      note: "no released schema set beside the bundle (/b/schemas: absent); the harness's own schemas judge",
    });
  });
});
