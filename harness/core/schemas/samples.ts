/**
 * Valid sample payloads of fixtures/samples, for tests and mocks. A sample file is named
 * `<schema>.json` or `<schema>.<variant>.json` (e.g. `create_media_buy-response.async.json`)
 * and is valid against that schema. `{token}` placeholders are expanded for the given token.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TOKEN, protocolIds } from '../token.js';
import { expandTokenPlaceholders } from './loader.js';

export const DEFAULT_SAMPLE_DIR = fileURLToPath(new URL('../../../fixtures/samples/', import.meta.url));

export class SampleNotFoundError extends Error {}

export interface SampleOptions {
  token?: string;
  dir?: string;
}

/** Every sample name (file name without `.json`), sorted. */
export function sampleNames(dir: string = DEFAULT_SAMPLE_DIR): string[] {
  return readdirSync(resolve(dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** The schema a sample is valid against: the name up to the first `.`. */
export function sampleSchemaName(sampleName: string): string {
  const dot = sampleName.indexOf('.');
  return dot === -1 ? sampleName : sampleName.slice(0, dot);
}

/** A fresh copy of a sample with the token expanded (callers may mutate it). */
export function loadSample<T = unknown>(name: string, options: SampleOptions = {}): T {
  const dir = resolve(options.dir ?? DEFAULT_SAMPLE_DIR);
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new SampleNotFoundError(`invalid sample name ${JSON.stringify(name)}`);
  let text: string;
  try {
    text = readFileSync(join(dir, `${name}.json`), 'utf8');
  } catch {
    throw new SampleNotFoundError(`no sample named ${JSON.stringify(name)} in ${dir}; known: ${sampleNames(dir).join(', ')}`);
  }
  return expandTokenPlaceholders(JSON.parse(text) as T, protocolIds(options.token ?? DEFAULT_TOKEN));
}

/** The sample of a task's reply: `get_<token>_capabilities` → `capabilities`, otherwise `<task>-response`. */
export function loadTaskSample<T = unknown>(task: string, options: SampleOptions = {}): T {
  const ids = protocolIds(options.token ?? DEFAULT_TOKEN);
  return loadSample<T>(task === ids.capabilitiesTask ? 'capabilities' : `${task}-response`, options);
}
