/**
 * Which released schema set a run judges with: the directory named by `--schemas`, or, for a
 * storyboard bundle, one found beside it (a `schemas/` directory next to its index.json; the spec
 * repository's `dist/schemas/<version>/` for `dist/compliance/<version>/`; the SDK package's
 * `dist/lib/schemas-data/<line>/` for `compliance/cache/<version>/`). A named set that cannot be
 * read is an error; a place beside the bundle that holds no usable set is passed over, and said.
 * The report says which set judged, and that a set of another line than the target does not.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ResponseSchemasInfo } from '../../engine/result.js';
import { lineOfVersion, type ProtocolLine } from '../../protocol/lines.js';
import { openSchemaSet, type SchemaSet } from './compile.js';
import { SchemaSetError } from './read.js';

export interface SchemaSetChoice {
  set?: SchemaSet;
  chosen: 'named' | 'beside the bundle';
  /** Beside the bundle: each place looked at that held no usable set, and why. */
  passedOver: string[];
}

/** The places beside a bundle (its directory, its index.json version) where its released schemas may be. */
export function schemaSetPlaces(bundleRoot: string, version: string | undefined): string[] {
  const root = resolve(bundleRoot);
  const places = [join(root, 'schemas')];
  const parent = dirname(root);
  const line = version ? lineOfVersion(version) : undefined;
  if (version && basename(parent) === 'compliance') places.push(join(dirname(parent), 'schemas', version));
  if (line && basename(parent) === 'cache' && basename(dirname(parent)) === 'compliance')
    places.push(join(dirname(dirname(parent)), 'dist', 'lib', 'schemas-data', line));
  return places;
}

/**
 * The set named (`dir`; throws SchemaSetError when it is not a usable set), else the first usable
 * set beside the bundle, else none; undefined when neither a directory nor a bundle is given.
 */
export function chooseSchemaSet(o: { dir?: string; bundle?: { root: string; version?: string } }): SchemaSetChoice | undefined {
  if (o.dir !== undefined) return { set: openSchemaSet(o.dir), chosen: 'named', passedOver: [] };
  if (!o.bundle) return undefined;
  const passedOver: string[] = [];
  const bundleLine = o.bundle.version ? lineOfVersion(o.bundle.version) : undefined;
  for (const place of schemaSetPlaces(o.bundle.root, o.bundle.version)) {
    if (!existsSync(place)) {
      passedOver.push(`${place}: absent`);
      continue;
    }
    try {
      const set = openSchemaSet(place);
      if (bundleLine && set.line !== bundleLine) passedOver.push(`${place}: line ${set.line}, the bundle's is ${bundleLine}`);
      else return { set, chosen: 'beside the bundle', passedOver };
    } catch (e) {
      if (!(e instanceof SchemaSetError)) throw e;
      passedOver.push(e.message.startsWith(place) ? e.message : `${place}: ${e.message}`);
    }
  }
  return { chosen: 'beside the bundle', passedOver };
}

/** What the report says about the choice under the run's target. */
export function responseSchemasInfo(choice: SchemaSetChoice, target: ProtocolLine): ResponseSchemasInfo {
  const set = choice.set;
  if (!set)
    return {
      judged_with: 'harness',
      note: `no released schema set beside the bundle (${choice.passedOver.join('; ')}); the harness's own schemas judge`,
    };
  const released_set = { dir: set.dir, version: set.version, line: set.line, chosen: choice.chosen };
  const named = `the released ${set.version} schemas at ${set.dir} (${choice.chosen === 'named' ? 'named by --schemas' : 'found beside the bundle'})`;
  if (set.line !== target)
    return {
      judged_with: 'harness',
      released_set,
      note: `${named} are of line ${set.line}, not the target ${target}: not applied (--target ${set.line} judges with them); the harness's own schemas judge`,
    };
  return { judged_with: 'released', released_set, note: `${named}, line ${set.line}` };
}
